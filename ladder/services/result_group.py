"""Group commit of played matches: when many finish at once, one worker process records them all.

A worker that played a match hands its packed result (``ladder.services.recording.PackedResult``) to its
game's group in Redis (the broker) and waits for the answer, as it waited for its own transaction
before. Whichever waiting process takes the game's recorder lock first takes every result waiting in
the group (up to ``RESULTS_GROUP_BATCH`` a transaction, until none is left), records them with
``recording.results_record`` in one transaction each, and answers every one of them. So the database sees
one transaction, and the same few statements, for as many results as finished while the last one ran:
few when the fleet is quiet, hundreds a second when it is busy, each worker waiting about one batch's
time. A worker that finds the group empty and the lock free records its own result at once, in one
transaction, without the list (three round trips to Redis instead of nine), and then looks at the group
again as any recorder does. Nothing about a result's fate changes: it is recorded once, under its claim's
token, or refused.

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
import json
import logging
import os
import socket
import time
import uuid

from django.conf import settings

from ladder.services.recording import PackedResult, PackedSeat, results_record

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

    def record(self, result: PackedResult) -> Recorded:
        # Nobody waiting and the lock free: record our own result at once, without the list.
        pipe = self.client.pipeline(transaction=False)
        self._lock(pipe)
        pipe.llen(self.entries)
        locked, waiting = pipe.execute()
        if locked:
            if not waiting:
                return self._record_own(result)
            self._unlock()
        return self._record_through_group(result)

    def _record_own(self, result: PackedResult) -> Recorded:
        """Holding the lock with the group empty: record ``result`` directly, let the lock go, then take
        care of what was handed in meanwhile (its senders wait for their answers)."""
        try:
            recorded = results_record([result])[result.match_id]
        finally:
            self._unlock()
        if self.client.llen(self.entries) and self._lock():
            self._record_all()
        return Recorded(recorded, 1)

    def _record_through_group(self, result: PackedResult) -> Recorded:
        answer_key = _answer_key(result)
        # Pushed before the lock is tried, and a recorder looks at the group again after letting the lock
        # go: so either it takes this entry, or this process gets the lock. Waiters never poll.
        self.client.rpush(self.entries, entry_encode(result))
        deadline = time.monotonic() + settings.RESULTS_GROUP_WAIT_S
        while time.monotonic() < deadline:
            if self._lock():
                self._record_all()
                answer = self.client.lpop(answer_key)
                if answer is None:
                    # The group was emptied without this result (the broker was flushed): record it now.
                    return self._direct(result, why="its entry was gone from the group")
                return _answer_decode(answer)
            # Woken by the answer; past the timeout, the lock is tried again (its holder may have died).
            waited = self.client.blpop([answer_key], timeout=min(LOCK_CHECK_S, max(0.01, deadline - time.monotonic())))
            if waited is not None:
                return _answer_decode(waited[1])
        return self._direct(result, why=f"no answer within {settings.RESULTS_GROUP_WAIT_S} s")

    def _record_all(self) -> None:
        """Holding the lock: record every waiting result, let the lock go, and do it again while results
        are waiting that came just as the lock was let go and the lock is free."""
        while True:
            try:
                self._drain()
            finally:
                self._unlock()
            if not self.client.llen(self.entries) or not self._lock():
                return

    def _direct(self, result: PackedResult, *, why: str) -> Recorded:
        logger.warning("match %s: recording it directly: %s", result.match_id, why)
        return Recorded(results_record([result])[result.match_id], 1)

    def _lock(self, pipe=None):
        """Try the recorder lock: whether it is ours now (with ``pipe``, queued on it instead)."""
        return bool((pipe or self.client).set(self.lock_key, self.me, nx=True, px=int(LOCK_S * 1000)))

    def _unlock(self) -> None:
        # Only our own lock: one that expired and was taken over stays with its new holder.
        self.client.eval(_RELEASE, 1, self.lock_key, self.me)

    def _drain(self) -> None:
        """Record the waiting results, ``RESULTS_GROUP_BATCH`` a transaction, until none is left."""
        while True:
            raw = self.client.lpop(self.entries, settings.RESULTS_GROUP_BATCH) or []
            if not raw:
                return
            results = []
            for data in raw:
                try:
                    results.append(entry_decode(data))
                except ValueError as exc:
                    logger.error("dropped an unreadable entry of %s: %s", self.entries, exc)
            self._answer(results, _record_batch(results))
            self.client.eval(_RENEW, 1, self.lock_key, self.me, int(LOCK_S * 1000))

    def _answer(self, results: list[PackedResult], outcomes: dict[int, bool | None]) -> None:
        batch = len(results)
        pipe = self.client.pipeline(transaction=False)
        for result in results:
            outcome = outcomes.get(result.match_id)
            if outcome is None:
                continue  # not recorded for our fault: its waiter records it directly
            key = _answer_key(result)
            pipe.rpush(key, json.dumps({"recorded": outcome, "batch": batch}))
            pipe.expire(key, ANSWER_TTL_S)
        pipe.execute()


def _record_batch(results: list[PackedResult]) -> dict[int, bool | None]:
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
_RENEW = ("if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) "
          "else return 0 end")


def _answer_key(result: PackedResult) -> str:
    return f"ladder:results:answer:{result.match_id}:{result.token}"


def _answer_decode(data: bytes) -> Recorded:
    answer = json.loads(data)
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
    return json.dumps({
        "m": result.match_id, "t": result.token, "a": _b64(result.actions), "d": result.duration_s,
        "s": [[seat.score, seat.place, seat.outcome, seat.reason, seat.time_used_ms, _b64(seat.logs)]
              for seat in result.seats],
    }, separators=(",", ":")).encode()


def entry_decode(data: bytes) -> PackedResult:
    """The result an entry holds; ``ValueError`` for anything that is not an entry of
    :func:`entry_encode` (every field's type checked: the broker is not trusted with more than bytes)."""
    try:
        entry = json.loads(data)
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
