"""Group commit of played matches: when many finish at once, one worker process records them all.

A worker that played a match hands its packed result (``ladder.services.play.recording.PackedResult``) to its
game's group in Redis (the broker) and waits for the answer, as it waited for its own transaction
before. Whichever waiting process takes the game's recorder lock first takes every result waiting in
the group (up to ``RESULTS_GROUP_BATCH`` a transaction, until none is left), records them with
``recording.results_record`` in one transaction each, and answers every one of them. So the database sees
one transaction, and the same few statements, for as many results as finished while the last one ran:
few when the fleet is quiet, hundreds a second when it is busy, each worker waiting about one batch's
time. A worker that finds the group empty and the lock free records its own result at once, in one
transaction, without the list, and then looks at the group again as any recorder does. Nothing about a
result's fate changes: it is recorded once, under its claim's token, or refused.

Each step is one round trip to Redis, a script that does it whole (:data:`_ENTER`, :data:`_NEXT`): a
worker hands its result in, and learns whether to record it alone, to record the group or to wait, in
one; a recorder answers the batch it recorded, takes the next one and renews its lock, or lets the lock
go once the group is empty, in one. A waiter then waits on its answer (a blocking pop), a second round
trip; a worker alone records its result in two.

Nothing is lost when a part fails:

* a recorder that dies mid-batch takes its results with it, but not their claims: its lock expires
  (``LOCK_S``), and each waiter whose answer does not come within ``RESULTS_GROUP_WAIT_S`` records its
  own result directly (a result the dead recorder did commit is then refused by its token, harmlessly);
* a recorder that finds the group empty while its own answer is missing (the broker was flushed)
  records its own result directly at once;
* an entry that cannot be read (not one of ours) is dropped and logged; its sender, if any, times out
  and records directly;
* a broker that cannot be reached: the worker records its own result directly.

Entries are JSON (bytes as base64): a worker never unpickles what it reads from the broker.
"""

from __future__ import annotations

import base64
import binascii
import dataclasses
import logging
import os
import socket
import time
import uuid

import orjson
from django.conf import settings

from ladder.services.play.recording import PackedResult, PackedSeat, results_record

logger = logging.getLogger(__name__)

#: Seconds the recorder lock lasts unless renewed (after every batch): past it a dead recorder's group
#: is taken over.
LOCK_S = 10.0
#: Seconds an answer is kept for a waiter that may have given up.
ANSWER_TTL_S = 60
#: Seconds a waiter waits for its answer before it looks at the lock again (whose holder may have died).
LOCK_CHECK_S = 1.0


@dataclasses.dataclass(frozen=True)
class Recorded:
    """A result's fate: ``recorded`` (False: its claim was lost or it was recorded already) and the
    number of results in the transaction that took it (``batch``; 1 when recorded directly)."""

    recorded: bool
    batch: int


def group_available() -> bool:
    """Whether results go through the group: the setting is on and the broker is Redis."""
    return settings.RESULTS_GROUP_COMMIT and settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://"))


def result_record(*, game: str, result: PackedResult) -> Recorded:
    """Record ``result`` of a match of ``game`` through its group (module docstring), or directly where
    there is no group; returns once it is recorded or refused."""
    if not group_available():
        return Recorded(results_record([result])[result.match_id], 1)
    import redis

    group = group_for(game)
    try:
        return group.record(result)
    except redis.RedisError as exc:
        # The broker is unreachable: the database still is, and the token keeps the result from being
        # recorded twice should the group have taken it after all.
        return group._direct(result, why=f"the group cannot be reached ({type(exc).__name__}: {exc})")


class ResultGroup:
    """One game's group: the waiting results (a Redis list), the recorder lock and the answers."""

    def __init__(self, client, game: str) -> None:
        self.client = client
        self.game = game
        self.entries = f"ladder:results:{game}"
        self.lock_key = f"ladder:results:{game}:recorder"
        self.me = f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"
        # redis-py's scripts: run by their digest, loaded again where Redis does not hold them.
        self._scripts = {script: client.register_script(script) for script in (_ENTER, _NEXT)}

    def load_scripts(self) -> None:
        """Have Redis hold the group's scripts now rather than at their first use."""
        for script in self._scripts.values():
            self.client.script_load(script.script)

    def record(self, result: PackedResult) -> Recorded:
        role = self._run(_ENTER, [self.entries, self.lock_key], [self.me, _LOCK_MS, entry_encode(result)])
        if role == b"own":
            # Nobody waiting and the lock free: our own result at once, without the list.
            import redis

            try:
                recorded = results_record([result])[result.match_id]
            except BaseException:
                self._unlock()
                raise
            try:
                self._record_all()
            except redis.RedisError as exc:
                # Ours is recorded; what others handed in meanwhile waits for their own time-outs.
                logger.warning("the group of %s could not be looked at again: %s", self.game, exc)
            return Recorded(recorded, 1)
        if role == b"lead":
            # Our entry is in the group and the lock is ours: we record the group, our result with it.
            mine = self._record_all(own=result)
            if mine is None:
                # The group was emptied without this result (the broker was flushed): record it now.
                return self._direct(result, why="its entry was gone from the group")
            return mine
        return self._wait(result)

    def _wait(self, result: PackedResult) -> Recorded:
        """Wait for the answer to our entry; past each ``LOCK_CHECK_S`` try the lock (its holder may have
        died), and past ``RESULTS_GROUP_WAIT_S`` record the result ourselves."""
        answer_key = _answer_key(result)
        deadline = time.monotonic() + settings.RESULTS_GROUP_WAIT_S
        while time.monotonic() < deadline:
            waited = self.client.blpop([answer_key], timeout=min(LOCK_CHECK_S, max(0.01, deadline - time.monotonic())))
            if waited is not None:
                return _answer_decode(waited[1])
            if self._lock():
                mine = self._record_all(own=result)
                if mine is not None:
                    return mine
                # A holder that died after recording it may have answered it still.
                answer = self.client.lpop(answer_key)
                if answer is not None:
                    return _answer_decode(answer)
                return self._direct(result, why="its entry was gone from the group")
        return self._direct(result, why=f"no answer within {settings.RESULTS_GROUP_WAIT_S} s")

    def _record_all(self, own: PackedResult | None = None) -> Recorded | None:
        """Holding the lock: record the waiting results, ``RESULTS_GROUP_BATCH`` a transaction, answering
        each batch as the next is taken, until the group is empty and the lock let go (or the lock was
        lost: its new holder goes on). Returns ``own``'s fate if it was among them (not answered through
        Redis: it is ours), else None."""
        answers: list[tuple[str, bytes]] = []
        mine = None
        try:
            while True:
                taken = self._run(_NEXT, [self.entries, self.lock_key, *(key for key, _ in answers)],
                                  [self.me, _LOCK_MS, settings.RESULTS_GROUP_BATCH, ANSWER_TTL_S,
                                   *(answer for _, answer in answers)])
                answers = []
                if not taken:
                    return mine
                results = []
                for data in taken:
                    try:
                        results.append(entry_decode(data))
                    except ValueError as exc:
                        logger.error("dropped an unreadable entry of %s: %s", self.entries, exc)
                outcomes = results_record_guarded(results)
                for result in results:
                    outcome = outcomes.get(result.match_id)
                    if outcome is None:
                        continue  # not recorded for our fault: its waiter records it directly
                    if own is not None and (result.match_id, result.token) == (own.match_id, own.token):
                        mine = Recorded(outcome, len(results))
                        continue
                    answers.append((_answer_key(result), orjson.dumps({"recorded": outcome, "batch": len(results)})))
        except BaseException:
            # Let the lock go (and answer what we recorded) where we can: otherwise it expires.
            try:
                if answers:
                    pipe = self.client.pipeline(transaction=False)
                    for key, answer in answers:
                        pipe.rpush(key, answer)
                        pipe.expire(key, ANSWER_TTL_S)
                    pipe.execute()
                self._unlock()
            except Exception:  # noqa: BLE001 - the first failure is the one to report
                pass
            raise

    def _run(self, script: str, keys: list, args: list):
        """Run one of the group's scripts (:data:`_ENTER`, :data:`_NEXT`)."""
        return self._scripts[script](keys=keys, args=args)

    def _direct(self, result: PackedResult, *, why: str) -> Recorded:
        logger.warning("match %s: recording it directly: %s", result.match_id, why)
        return Recorded(results_record([result])[result.match_id], 1)

    def _lock(self) -> bool:
        """Try the recorder lock: whether it is ours now."""
        return bool(self.client.set(self.lock_key, self.me, nx=True, px=_LOCK_MS))

    def _unlock(self) -> None:
        # Only our own lock: one that expired and was taken over stays with its new holder.
        self.client.eval(_RELEASE, 1, self.lock_key, self.me)


_LOCK_MS = int(LOCK_S * 1000)

#: A worker hands its result in. KEYS: the group's list, its lock; ARGV: the worker, the lock's
#: milliseconds, the entry. ``own``: the group was empty and the lock is the worker's, the entry not
#: pushed (the worker records it alone); ``lead``: the entry is pushed and the lock is the worker's (it
#: records the group); ``wait``: the entry is pushed and someone else holds the lock. Pushed before the
#: lock is tried, and a recorder lets the lock go only in the same step that finds the group empty
#: (:data:`_NEXT`): so either a recorder takes the entry, or this worker gets the lock.
_ENTER = """
if redis.call('llen', KEYS[1]) == 0 and redis.call('set', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 'own'
end
redis.call('rpush', KEYS[1], ARGV[3])
if redis.call('set', KEYS[2], ARGV[1], 'NX', 'PX', ARGV[2]) then
  return 'lead'
end
return 'wait'
"""

#: A recorder's step. KEYS: the group's list, its lock, then the answer lists of the batch it recorded;
#: ARGV: the recorder, the lock's milliseconds, the batch size, the answers' lifetime in seconds, then
#: the answers. Answers the batch; then, still holding the lock, takes the next batch and renews the
#: lock, or finds the group empty and lets the lock go (an empty list). Nil if the lock is no longer its.
_NEXT = """
for i = 3, #KEYS do
  redis.call('rpush', KEYS[i], ARGV[i + 2])
  redis.call('expire', KEYS[i], ARGV[4])
end
if redis.call('get', KEYS[2]) ~= ARGV[1] then
  return false
end
local taken = redis.call('lpop', KEYS[1], ARGV[3])
if taken then
  redis.call('pexpire', KEYS[2], ARGV[2])
  return taken
end
redis.call('del', KEYS[2])
return {}
"""


def results_record_guarded(results: list[PackedResult]) -> dict[int, bool | None]:
    """``results_record`` of the batch; if the batch fails as a whole (one result that does not fit its
    match, a deadlock), each result on its own, so that one bad result costs only itself (None)."""
    if not results:
        return {}
    try:
        return results_record(results)
    except Exception:
        logger.exception("a batch of %d results failed; recording them one by one", len(results))
    outcomes: dict[int, bool | None] = {}
    for result in results:
        try:
            outcomes.update(results_record([result]))
        except Exception:
            logger.exception("match %s: its result could not be recorded", result.match_id)
            outcomes[result.match_id] = None
    return outcomes


_RELEASE = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end"


def _answer_key(result: PackedResult) -> str:
    return f"ladder:results:answer:{result.match_id}:{result.token}"


def _answer_decode(data: bytes) -> Recorded:
    answer = orjson.loads(data)
    return Recorded(bool(answer["recorded"]), int(answer["batch"]))


_groups: dict[tuple[int, str], ResultGroup] = {}


def group_for(game: str) -> ResultGroup:
    """This process's group of ``game`` (a Redis client per process: made after the pool forked)."""
    key = (os.getpid(), game)
    group = _groups.get(key)
    if group is None:
        import redis

        client = next((g.client for (pid, _), g in _groups.items() if pid == os.getpid()), None) \
            or redis.Redis.from_url(settings.CELERY_BROKER_URL)
        group = _groups[key] = ResultGroup(client, game)
    return group


# --- entries -------------------------------------------------------------------------------------------


def entry_encode(result: PackedResult) -> bytes:
    """A result as the group holds it: JSON, bytes as base64."""
    return orjson.dumps({
        "m": result.match_id, "t": result.token, "a": _b64(result.actions), "d": result.duration_s,
        "s": [[seat.score, seat.place, seat.outcome, seat.reason, seat.time_used_ms, _b64(seat.logs)]
              for seat in result.seats],
    })


def entry_decode(data: bytes) -> PackedResult:
    """The result an entry holds; ``ValueError`` for anything that is not an entry of
    :func:`entry_encode` (every field's type checked: the broker is not trusted with more than bytes)."""
    try:
        entry = orjson.loads(data)
        seats = tuple(PackedSeat(score=_number_or_none(score), place=_int_or_none(place), outcome=_text(outcome),
                                 reason=_text(reason), time_used_ms=_int(time_used), logs=_unb64(logs))
                      for score, place, outcome, reason, time_used, logs in entry["s"])
        return PackedResult(match_id=_int(entry["m"]), token=str(uuid.UUID(_text(entry["t"]))),
                            actions=_unb64(entry["a"]), duration_s=float(_number_or_none(entry["d"]) or 0.0),
                            seats=seats)
    except (KeyError, TypeError, ValueError, binascii.Error) as exc:
        raise ValueError(f"not a result entry ({type(exc).__name__}: {exc})"[:300]) from None


def _b64(data: bytes | None) -> str | None:
    return None if data is None else base64.b64encode(data).decode("ascii")


def _unb64(text) -> bytes | None:
    return None if text is None else base64.b64decode(_text(text), validate=True)


def _text(value) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected text, got {type(value).__name__}")
    return value


def _int(value) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"expected an integer, got {type(value).__name__}")
    return value


def _int_or_none(value) -> int | None:
    return None if value is None else _int(value)


def _number_or_none(value) -> float | int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"expected a number, got {type(value).__name__}")
    return value
