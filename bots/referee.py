"""Play one match: a game engine and one sandboxed process per bot, no database.

:func:`play_match` deals the game, starts every bot through the sandbox, asks the seat to move for each
decision and applies its answer. A bot that crashes, times out, runs out of memory, answers garbage or an
illegal action forfeits: it is killed, placed last with the reason recorded, and the first legal action is
taken for it from then on, so the match always finishes for the others. Failures of the sandbox itself
raise :class:`SandboxFault` instead, so that the caller can retry the match without blaming anyone.

Timing is a chess clock with a cap per match. Every decision may use ``Limits.move_ms``; anything beyond
that is drawn from ``Limits.bank_ms``, and a decision that exhausts both is a ``timeout``. On top of that a
seat's decisions together may last ``Limits.match_ms``: a decision's allowance is ``move_ms`` plus the bank
left, but never more than the match time left, and a seat that spends its match time forfeits with
``timeout`` too. Without that cap a bot answering just inside ``move_ms`` never touches its bank, and a
long game (hundreds of decisions per seat) would outlast the worker's time limit. ``time_left_ms`` in each
``act`` message is that allowance. The start (``Limits.start_ms``) is timed apart and costs no match time.

Every clock runs only on its own seat's time: the bots are started one after another, each told ``start``
only once the seat before it is ready (or has forfeited), so a bot that stalls while loading spends its
own start time and nobody else's. Before a deadline is judged, whatever already waits in the pipe is read:
a referee that was slow to look never blames a bot that answered in time.

What a bot writes becomes data only through :mod:`bots.untrusted`: each line is parsed with a bounded
size and depth, and anything wrong with it, or with the action it names, is that seat's ``bad_output``
or ``illegal_action``, never an exception out of :func:`play_match`. Every text a bot controls (reasons
quoting it, its error messages, its log) is made storable when its :class:`SeatResult` is built.

Every decision a bot takes is recorded (:class:`DecisionLog`): the step (index into the match's actions of
the action it produced), its think time as the clocks charged it, and what the bot printed while deciding.
A decision's text is what the log pipe holds from the ``act`` message until the answer has arrived: the
SDK flushes the bot's standard output and error before it answers, and the pipe is read once more after
the answer, so every line printed inside ``act`` is that decision's. A background thread's text goes with
the decision during which it reaches the pipe; what reaches it after an answer and before the next ``act``
(the bot is paused in between, so only until it is paused) goes with the earlier decision. What the bot
prints at import and ``start`` is in the seat's whole log only. A forfeited seat's records end with the
decision that forfeited (its step is where the fallback's action went, its text the traceback, if any);
the fallback's decisions after it are not the bot's and have no record. All the records' texts together
stay within ``Limits.log_bytes``; the number of records is bounded by the game's ``max_game_length``.
"""

from __future__ import annotations

import functools
import os
import select
import time
from dataclasses import dataclass, field

import orjson

import engines
from bots.sandbox.errors import SandboxFault, SandboxUnavailable
from bots.sandbox.policy import Limits
from bots.sandbox.process import BotProcess
from bots.untrusted import REASON_CHARS, UntrustedOutput, parse_line, storable_text

__all__ = [
    "OUTCOMES",
    "BotSpec",
    "DecisionLog",
    "Limits",
    "MatchResult",
    "Recording",
    "SandboxFault",
    "SandboxUnavailable",
    "SeatResult",
    "play_match",
    "play_match_in_process",
]

OUTCOMES = ("ok", "timeout", "crash", "memory", "illegal_action", "bad_output")
# How long a bot may keep writing its log after the match before it is cut off.
_END_GRACE_S = 0.05
_READ_CHUNK = 1 << 16
# Chunks of log read in one go: a bot that writes its log as fast as the referee reads it must not keep
# the referee from its clocks.
_LOG_CHUNKS_PER_DRAIN = 16
# Bytes of an unexpected reply quoted in a reason.
_QUOTE_CHARS = 80


def _encode_line(message: dict) -> bytes:
    """One protocol line: compact JSON in UTF-8 and a newline.

    orjson writes the same compact JSON as the standard library, six times faster: every decision sends
    the whole observation, and encoding it is the referee's largest cost per decision. (Engine views are
    plain JSON trees; non-string keys, which ``json`` would turn into strings, are turned likewise. orjson
    refuses them unless told to accept them, which costs a third more on every message: so it is told
    only for a message that has one.)
    """
    try:
        return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)
    except orjson.JSONEncodeError:
        return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS)


@dataclass(frozen=True)
class BotSpec:
    """One seat's bot: ``name`` is shown in results, ``code`` is ``bot.py`` source or a zip with it.
    ``code`` None (only with a :class:`Recording`): no bot, the seat plays the recorded actions."""

    name: str
    code: bytes | None


# What a seat that was not asked (or forfeited while asked) answered.
_NO_ANSWER = object()


@dataclass
class Recording:
    """A recorded match's ``actions`` for :func:`play_match` to follow, given with the same game, players,
    seed and options.

    Before step ``follow_until`` every action applied is the recorded one; the bots on move are asked all
    the same (their clocks run and their faults count as always), so a bot's memory at ``follow_until`` is
    what it would be had it played the match, and its answers are discarded. From ``follow_until`` on the
    bots' answers are applied. A seat without code (:class:`BotSpec` ``code`` None) plays the recorded
    action of each step while it is legal; from the first step where it is not (the game took another
    course), it takes the first legal action, and ``fallback_from`` says from which step, by seat.
    ``discarded`` lists the answers before ``follow_until`` that differ from the record:
    ``{"step", "seat", "answer", "recorded"}``. A recorded action that is not legal where it must be
    followed (a bundle that does not fit the engine) is a ``ValueError`` out of :func:`play_match`.
    """

    actions: list
    follow_until: int = 0
    discarded: list[dict] = field(default_factory=list)
    fallback_from: dict[int, int] = field(default_factory=dict)

    def choose(self, *, seat: int, step: int, legal: list, answer, coded: bool):
        """The action to apply at ``step`` for ``seat`` (``answer``: its bot's, or ``_NO_ANSWER``)."""
        if step < self.follow_until:
            recorded = self._recorded(step, legal)
            if recorded is None:
                raise ValueError(f"the recorded action of step {step} is not legal in the replayed game: the "
                                 "recording does not fit this engine")
            if answer is not _NO_ANSWER and answer != recorded:
                self.discarded.append({"step": step, "seat": seat, "answer": answer, "recorded": recorded})
            return recorded
        if answer is not _NO_ANSWER:
            return answer
        if not coded and seat not in self.fallback_from:
            recorded = self._recorded(step, legal)
            if recorded is not None:
                return recorded
            self.fallback_from[seat] = step
        return legal[0]

    def _recorded(self, step: int, legal: list):
        if step >= len(self.actions):
            return None
        try:
            return engines.find_action(legal, self.actions[step])
        except engines.IllegalAction:
            return None


@dataclass
class SeatResult:
    """One seat's result. Its texts are storable by construction (:func:`bots.untrusted.storable_text`):
    whatever a bot wrote into its reason or log, the result can be recorded and shown."""

    bot: str
    score: int
    place: int
    outcome: str
    reason: str
    time_used_ms: int
    log: str
    #: One ``{"step", "ms", "log"}`` per decision the bot took, in order (:class:`DecisionLog`).
    decisions: list[dict] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.bot = storable_text(self.bot, limit=REASON_CHARS)
        self.reason = storable_text(self.reason, limit=REASON_CHARS)
        self.log = storable_text(self.log)
        self.decisions = [{"step": int(d["step"]), "ms": int(d["ms"]), "log": storable_text(d["log"])}
                          for d in self.decisions]


@dataclass
class MatchResult:
    game: str
    players: int
    seed: int
    options: dict
    actions: list
    seats: list[SeatResult]
    duration_s: float
    #: Whether the bots ran without isolation (the explicit unsafe opt-in).
    unsafe: bool = False

    def to_json(self, *, decisions: bool = False) -> dict:
        """The ``play --json`` object (docs/bots.md, "Playing a match locally"); with ``decisions``, each
        seat also carries its ``decisions`` records (see :class:`SeatResult`)."""
        seats = []
        for s in self.seats:
            seat = {"bot": s.bot, "score": s.score, "place": s.place, "outcome": s.outcome, "reason": s.reason}
            if decisions:
                seat["decisions"] = s.decisions
            seats.append(seat)
        return {
            "game": self.game,
            "players": self.players,
            "seed": self.seed,
            "options": self.options,
            "seats": seats,
            "actions": self.actions,
            "duration_s": self.duration_s,
        }


class LogBuffer:
    """A bot's log capped at ``limit`` bytes: the head and the tail are kept, the middle is counted."""

    def __init__(self, limit: int) -> None:
        self.head_limit = limit // 2
        self.tail_limit = limit - self.head_limit
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def feed(self, data: bytes) -> None:
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        self.tail += data
        excess = len(self.tail) - self.tail_limit
        if excess > 0:
            self.dropped += excess
            del self.tail[:excess]

    def text(self) -> str:
        middle = f"\n[... {self.dropped} bytes of log dropped ...]\n".encode() if self.dropped else b""
        return bytes(self.head + middle + self.tail).decode("utf-8", errors="replace")


_CUT_NOTICE = "[... {dropped} bytes of log dropped: the seat's log cap of {limit} bytes is reached ...]\n"


@dataclass
class _Decision:
    step: int
    ms: int = 0
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def text(self, limit: int) -> str:
        notice = b""
        if self.dropped:
            notice = _CUT_NOTICE.format(dropped=self.dropped, limit=limit).encode()
            if self.head and not self.head.endswith(b"\n"):
                notice = b"\n" + notice
        return bytes(self.head + notice + self.tail).decode("utf-8", errors="replace")


class DecisionLog:
    """What a seat printed, decision by decision, in ``limit`` bytes for all its decisions together.

    Like :class:`LogBuffer`, the head and the tail are kept: the first decisions' text up to half the cap,
    the latest decisions' text up to the other half. As text comes in, the oldest text past the head is
    dropped from the start, so the decisions in between lose theirs; each record that lost bytes says how
    many (a notice that is not counted against the cap: the number of records is bounded by the game's
    length). Text is fed to the record opened last.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.head_left = limit // 2
        self.tail_limit = limit - limit // 2
        self.tail_size = 0
        self.records: list[_Decision] = []
        # The oldest record that may still hold bytes in the tail: trimming never looks further back.
        self._oldest = 0

    def open(self, step: int) -> _Decision:
        record = _Decision(step)
        self.records.append(record)
        return record

    def feed(self, data: bytes) -> None:
        record = self.records[-1]
        if self.head_left > 0:
            taken = data[: self.head_left]
            record.head += taken
            self.head_left -= len(taken)
            data = data[len(taken):]
        if not data:
            return
        record.tail += data
        self.tail_size += len(data)
        while self.tail_size > self.tail_limit:
            oldest = self.records[self._oldest]
            cut = min(len(oldest.tail), self.tail_size - self.tail_limit)
            del oldest.tail[:cut]
            oldest.dropped += cut
            self.tail_size -= cut
            if not oldest.tail and self._oldest < len(self.records) - 1:
                self._oldest += 1

    def to_json(self) -> list[dict]:
        """The records as ``{"step", "ms", "log"}``, in order (texts decoded, invalid UTF-8 replaced)."""
        return [{"step": r.step, "ms": r.ms, "log": r.text(self.limit)} for r in self.records]


class _Forfeit(Exception):
    def __init__(self, outcome: str, reason: str) -> None:
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason


@dataclass
class _Seat:
    index: int
    spec: BotSpec
    limits: Limits
    process: BotProcess | None = None
    log: LogBuffer = field(init=False)
    decisions: DecisionLog = field(init=False)
    #: Whether what the log pipe brings also goes to the last decision record (from the first ``act`` on).
    deciding: bool = False
    inbox: bytearray = field(default_factory=bytearray)
    outcome: str = "ok"
    reason: str = ""
    #: Wall-clock seconds of all its decisions so far; kept unrounded because match time is charged from it.
    time_used_s: float = 0.0
    bank_left_ms: int = 0
    start_deadline: float = 0.0
    log_open: bool = True

    def __post_init__(self) -> None:
        self.log = LogBuffer(self.limits.log_bytes)
        self.decisions = DecisionLog(self.limits.log_bytes)
        self.bank_left_ms = self.limits.bank_ms

    @property
    def live(self) -> bool:
        return self.outcome == "ok" and self.process is not None

    def drain_log(self) -> None:
        """Read the log that is waiting, without blocking (at most a few chunks: the rest waits)."""
        if self.process is None or not self.log_open:
            return
        for _ in range(_LOG_CHUNKS_PER_DRAIN):
            try:
                data = os.read(self.process.log, _READ_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                self.log_open = False
                return
            if not data:
                self.log_open = False
                return
            self.log.feed(data)
            if self.deciding:
                self.decisions.feed(data)

    def offer(self, line: bytes) -> memoryview:
        """Write what the pipe takes of ``line`` now, without waiting; what is left to :meth:`send_rest`
        (all of it if the bot is gone: that is for :meth:`send_rest` to find out)."""
        pending = memoryview(line)
        try:
            return pending[os.write(self.process.to_bot, pending):]
        except OSError:
            return pending

    def send(self, message: dict, deadline: float) -> None:
        """Write one protocol line, draining the log meanwhile; a full pipe past ``deadline`` times out."""
        self.send_rest(memoryview(_encode_line(message)), deadline)

    def send_rest(self, pending: memoryview, deadline: float) -> None:
        """Write ``pending`` as :meth:`send` does."""
        process = self.process
        while pending:
            try:
                written = os.write(process.to_bot, pending)
                pending = pending[written:]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, OSError):
                raise self._ended() from None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise _Forfeit("timeout", "the bot stopped reading its input")
            readers = [process.log] if self.log_open else []
            readable, _, _ = select.select(readers, [process.to_bot], [], remaining)
            if readable:
                self.drain_log()

    def receive(self, deadline: float, late: str) -> dict:
        """The next protocol line from the bot, parsed, or :class:`_Forfeit` (SandboxFault if ours); past
        ``deadline`` a ``timeout`` with reason ``late``, judged only after reading what already waits."""
        process = self.process
        limit = self.limits.max_message_bytes
        scanned = 0
        while True:
            # Only the bytes that arrived since the last look can hold the newline.
            newline = self.inbox.find(b"\n", scanned)
            if newline >= 0:
                line = bytes(self.inbox[:newline])
                del self.inbox[: newline + 1]
                return _parse_reply(line, limit)
            scanned = len(self.inbox)
            if scanned > limit:
                raise _Forfeit("bad_output", f"answer longer than {limit} bytes")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if self._read_waiting():
                    continue
                raise _Forfeit("timeout", late)
            readers = [process.from_bot] + ([process.log] if self.log_open else [])
            readable, _, _ = select.select(readers, [], [], remaining)
            if process.log in readable:
                self.drain_log()
            if process.from_bot in readable:
                self._read_waiting()

    def _read_waiting(self) -> bool:
        """Move what the bot has written into the inbox without blocking; whether anything came (EOF with
        nothing before it ends the bot's turn). Reads no more than one message can be long, plus a chunk,
        and stops at the chunk that ends a line: whatever follows it waits in the pipe as it would in the
        inbox, and a decision then costs one read, not a second one to hear that nothing more came."""
        got = False
        while len(self.inbox) <= self.limits.max_message_bytes:
            try:
                data = os.read(self.process.from_bot, _READ_CHUNK)
            except BlockingIOError:
                return got
            except OSError:
                raise self._ended() from None
            if not data:
                if got:
                    return True
                raise self._ended()
            self.inbox += data
            got = True
            if b"\n" in data:
                return True
        return got

    def check_memory(self) -> None:
        """Forfeit if the kernel had to kill any process of the bot for its memory, even a helper."""
        if self.process.memory_exceeded():
            raise _Forfeit("memory", f"the bot exceeded its memory limit of {self.limits.memory_mb} MiB")

    def _ended(self) -> _Forfeit:
        """The bot's process is gone: its fault, unless the sandbox reported that it could not start it
        (on its own status pipe, which no code of the bot can write to)."""
        self.drain_log()
        failure = self.process.sandbox_failure()
        if failure:
            raise SandboxFault(failure)
        if self.process.memory_exceeded():
            return _Forfeit("memory", f"the bot exceeded its memory limit of {self.limits.memory_mb} MiB")
        return _Forfeit("crash", "the bot's process ended without answering")

    def forfeit(self, outcome: str, reason: str) -> None:
        self.outcome = outcome
        self.reason = reason
        self.stop()

    def stop(self) -> None:
        if self.process is not None:
            self.drain_log()
            self.process.kill()
            self.drain_log()
            self.process.close()


def _parse_reply(line: bytes, max_bytes: int) -> dict:
    """The protocol message on ``line``; :class:`_Forfeit` for anything unusable and for an ``error``
    report (the SDK's, or one a bot forged: either way the seat cannot go on)."""
    try:
        reply = parse_line(line, max_bytes=max_bytes)
    except UntrustedOutput as exc:
        raise _Forfeit("bad_output", exc.reason) from None
    if reply["type"] == "error":
        kind = reply.get("kind")
        outcome = kind if isinstance(kind, str) and kind in ("crash", "memory", "bad_output") else "crash"
        message = reply.get("message", "")
        # Depth is bounded by the parser, so str() of any JSON value is safe; only the start is kept.
        message = storable_text(message if isinstance(message, str) else str(message), limit=REASON_CHARS)
        if outcome == "memory":
            reason = f"the bot ran out of memory: {message}"
        else:
            reason = f"the bot raised {message}" if outcome == "crash" else message
        raise _Forfeit(outcome, reason)
    return reply


def _places(engine_ranking: list[int], faulted: list[bool]) -> list[int]:
    """Engine places among the seats that finished cleanly; every forfeited seat shares the last place,
    the number of seats, even when no seat finished cleanly: a forfeit never earns a first place."""
    keys = [(1, -place) for place, bad in zip(engine_ranking, faulted) if not bad]
    clean = iter(engines.competition_ranking(keys))
    return [len(faulted) if bad else next(clean) for bad in faulted]


def play_match(game: str, bots: list[BotSpec], *, seed: int, options: dict | None = None,
               limits: Limits | None = None, allow_unsafe: bool = False, sandbox=None,
               recording: Recording | None = None) -> MatchResult:
    """Play one match of ``game`` between ``bots`` (seat order as given), each in its own sandbox.

    ``sandbox`` defaults to this process's shared sandbox (see :func:`bots.sandbox.get_sandbox`); a bot's
    faults are results, while :class:`SandboxFault` means the match should be retried. ``recording``
    replays a recorded match, in part or whole (:class:`Recording`). ``ValueError`` for a bad player count
    or options, a seat without code but no recording, and a recording that does not fit the engine.
    """
    from bots.sandbox import get_sandbox

    if recording is None and any(spec.code is None for spec in bots):
        raise ValueError("a seat without code plays recorded actions, and there is no recording")
    limits = limits or Limits()
    started = time.monotonic()
    engine = engines.get(game)
    state = engine.new_state(len(bots), seed, options)
    resolved_options = engine.resolve_options(options)
    if sandbox is None:
        sandbox = get_sandbox(allow_unsafe=allow_unsafe)
    seats = [_Seat(index, spec, limits) for index, spec in enumerate(bots)]
    actions: list = []
    try:
        for seat in seats:
            if seat.spec.code is not None:
                seat.process = sandbox.spawn(seat.spec.code, limits)
        _await_ready(seats, game, resolved_options)
        while not state.is_terminal():
            player = state.current_player()
            legal = state.legal_actions()
            seat = seats[player]
            answer = _NO_ANSWER
            if seat.live:
                try:
                    answer = _decide(seat, state.observation(player), legal, step=len(actions))
                except _Forfeit as fault:
                    seat.forfeit(fault.outcome, fault.reason)
            if recording is not None:
                action = recording.choose(seat=player, step=len(actions), legal=legal, answer=answer,
                                          coded=seat.spec.code is not None)
            else:
                action = legal[0] if answer is _NO_ANSWER else answer
            state.apply(action)
            actions.append(action)
            if seat.live and state.current_player() != player:
                # The move passes on: no CPU for this seat until its next decision. (A seat that decides
                # again next keeps running through the engine's step: pausing it would cost more.)
                seat.process.pause()
        for seat in seats:
            if seat.live:
                try:
                    seat.check_memory()
                except _Forfeit as fault:
                    seat.forfeit(fault.outcome, fault.reason)
        _end_all(seats, state)
    finally:
        for seat in seats:
            seat.stop()
    faulted = [seat.outcome != "ok" for seat in seats]
    places = _places(state.ranking(), faulted)
    scores = state.scores()
    return MatchResult(
        game=game, players=len(bots), seed=seed, options=resolved_options, actions=actions,
        seats=[SeatResult(bot=seat.spec.name, score=scores[seat.index], place=places[seat.index],
                          outcome=seat.outcome, reason=seat.reason,
                          time_used_ms=round(seat.time_used_s * 1000),
                          log=seat.log.text(), decisions=seat.decisions.to_json()) for seat in seats],
        duration_s=round(time.monotonic() - started, 3),
        unsafe=bool(getattr(sandbox, "unsafe", False)),
    )


def _send_start(seat: _Seat, game: str, players: int, options: dict) -> None:
    """Send ``start`` to a spawned bot; its ``start_ms`` runs from now. :class:`_Forfeit` on a fault."""
    seat.start_deadline = time.monotonic() + seat.limits.start_ms / 1000
    message = {"type": "start", "game": game, "seat": seat.index, "players": players, "options": options,
               "move_ms": seat.limits.move_ms, "bank_ms": seat.limits.bank_ms, "match_ms": seat.limits.match_ms}
    seat.send(message, seat.start_deadline)


def _await_ready(seats: list[_Seat], game: str, options: dict) -> None:
    """Start the bots one after another: ``start`` to a seat, its ``ready``, then the next seat.

    Each seat's ``start_ms`` runs only while it alone is loading, so a bot that stalls (or burns the CPU)
    at import costs its own start and never the next seat's. A seat that does not answer in time forfeits.
    """
    for seat in seats:
        if not seat.live:
            continue
        try:
            _send_start(seat, game, len(seats), options)
            reply = seat.receive(seat.start_deadline, f"no answer to start within {seat.limits.start_ms} ms")
            # Not on move until its first act: no CPU of the others' start or turns for it.
            seat.process.pause()
            seat.check_memory()
            if reply["type"] != "ready":
                raise _Forfeit("bad_output", f"expected ready, got {_quote_reply(reply)}")
        except _Forfeit as fault:
            seat.forfeit(fault.outcome, fault.reason)


def _quote_reply(reply: dict) -> str:
    """The start of a parsed reply as JSON, for a reason; orjson escapes every control character, NUL
    included. (A parsed reply re-encodes: bounded depth, string keys, finite numbers. Should one ever not,
    the reason says so rather than the referee raising.)"""
    try:
        return orjson.dumps(reply)[:_QUOTE_CHARS].decode(errors="replace")
    except orjson.JSONEncodeError:
        return "a reply that cannot be shown"


def _allowance(seat: _Seat) -> tuple[float, str]:
    """What ``seat`` may spend on its next decision, in seconds, and the timeout reason if it spends it
    all: ``move_ms`` plus the bank left, but never more than the match time left."""
    clock_s = (seat.limits.move_ms + seat.bank_left_ms) / 1000
    match_left_s = seat.limits.match_ms / 1000 - seat.time_used_s
    if match_left_s < clock_s:
        return max(0.0, match_left_s), f"the bot used its {seat.limits.match_ms} ms for the whole match"
    return clock_s, f"no answer within {seat.limits.move_ms} ms plus a bank of {seat.bank_left_ms} ms"


def _decide(seat: _Seat, observation: dict, legal: list, *, step: int):
    """Ask ``seat`` for its action at ``step`` within :func:`_allowance`; charge the clocks and record the
    decision (:class:`DecisionLog`); :class:`_Forfeit` for any fault (a seat with less than a millisecond
    of match time left forfeits without being asked, and without a record)."""
    allowance_s, late = _allowance(seat)
    # Rounded down: the bot is never told of time it does not have.
    time_left_ms = int(allowance_s * 1000)
    if time_left_ms < 1:
        raise _Forfeit("timeout", late)
    # What waits in the log pipe now was printed before this decision was asked: the previous one's.
    seat.drain_log()
    record = seat.decisions.open(step)
    seat.deciding = True
    # Encoded and handed over while the bot is still paused, as far as the pipe takes it: the encoding is
    # the referee's work, off the bot's clock, and the bot wakes once, to its CPU and its message
    # together, rather than once to be resumed (and go back to sleep in its read) and again to read.
    pending = seat.offer(_encode_line({"type": "act", "observation": observation, "legal_actions": legal,
                                       "time_left_ms": time_left_ms}))
    # Its clock starts once it can run again.
    seat.process.resume()
    began = time.monotonic()
    deadline = began + allowance_s
    try:
        seat.send_rest(pending, deadline)
        reply = seat.receive(deadline, late)
    finally:
        used_s = time.monotonic() - began
        seat.time_used_s += used_s
        used_ms = int(used_s * 1000)
        record.ms = used_ms
        seat.bank_left_ms = max(0, seat.bank_left_ms - max(0, used_ms - seat.limits.move_ms))
        # The SDK flushed the bot's output before answering, so all of it is in the pipe by now (the answer
        # may have been read before the log was looked at).
        seat.drain_log()
    seat.check_memory()
    if reply["type"] != "action" or "action" not in reply:
        raise _Forfeit("bad_output", f"expected an action, got {_quote_reply(reply)}")
    try:
        return engines.find_action(legal, reply["action"])
    except engines.IllegalAction as exc:
        raise _Forfeit("illegal_action", storable_text(str(exc), limit=300)) from None


def _end_all(seats: list[_Seat], state) -> None:
    """Tell the live bots the result (the SDK exits on it) and collect what is left of their logs."""
    message = {"type": "end", "scores": state.scores(), "ranking": state.ranking()}
    deadline = time.monotonic() + _END_GRACE_S
    for seat in seats:
        if seat.live:
            try:
                seat.send(message, deadline)
            except _Forfeit:
                pass
            seat.drain_log()


def play_match_in_process(game: str, bots: list[BotSpec], *, seed: int,
                          options: dict | None = None) -> MatchResult:
    """The same match with every bot called in this process: no isolation, no clock. Benchmarks only."""
    from bots.loader import load_bot, wants_time_left
    from bots.sandbox.unpacked_code import CodeCache

    started = time.monotonic()
    engine = engines.get(game)
    state = engine.new_state(len(bots), seed, options)
    resolved_options = engine.resolve_options(options)
    cache = CodeCache()
    acts = [load_bot(cache.path_for(spec.code), game=game, seat=index, players=len(bots),
                     options=resolved_options, module_name=f"_inprocess_bot_{index}")
            for index, spec in enumerate(bots)]
    # No clock here: a bot that manages its own time is told it has a whole default allowance.
    defaults = Limits()
    allowance_ms = defaults.move_ms + defaults.bank_ms
    acts = [functools.partial(act, time_left_ms=allowance_ms) if wants_time_left(act) else act for act in acts]
    actions = []
    while not state.is_terminal():
        player = state.current_player()
        legal = state.legal_actions()
        action = engines.find_action(legal, acts[player](state.observation(player), legal))
        state.apply(action)
        actions.append(action)
    scores, ranking = state.scores(), state.ranking()
    return MatchResult(
        game=game, players=len(bots), seed=seed, options=resolved_options, actions=actions,
        seats=[SeatResult(bot=spec.name, score=scores[i], place=ranking[i], outcome="ok", reason="",
                          time_used_ms=0, log="") for i, spec in enumerate(bots)],
        duration_s=round(time.monotonic() - started, 3), unsafe=True,
    )
