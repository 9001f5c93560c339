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

The results and the seats' bots are data of :mod:`bots.match_result`, a seat's end of the protocol is
:mod:`bots.seat_io`, its logs :mod:`bots.log_capture`; this module is the match loop.
"""

from __future__ import annotations

import time

import orjson

import engines
from bots.log_capture import DecisionLog
from bots.match_result import NO_ANSWER, OUTCOMES, BotSpec, MatchResult, ReplayScript, SeatResult
from bots.sandbox.errors import SandboxFault, SandboxUnavailable
from bots.sandbox.policy import Limits
from bots.seat_io import Forfeit, SeatedBot, encode_line
from bots.untrusted import storable_text

# The referee's public face: what callers play a match with and get back.
__all__ = [
    "OUTCOMES",
    "BotSpec",
    "DecisionLog",
    "Limits",
    "MatchResult",
    "ReplayScript",
    "SandboxFault",
    "SandboxUnavailable",
    "SeatResult",
    "play_match",
]

# How long a bot may keep writing its log after the match before it is cut off.
_END_GRACE_S = 0.05
# Bytes of an unexpected reply quoted in a reason.
_QUOTE_CHARS = 80


def _places(engine_ranking: list[int], faulted: list[bool]) -> list[int]:
    """Engine places among the seats that finished cleanly; every forfeited seat shares the last place,
    the number of seats, even when no seat finished cleanly: a forfeit never earns a first place."""
    keys = [(1, -place) for place, bad in zip(engine_ranking, faulted) if not bad]
    clean = iter(engines.competition_ranking(keys))
    return [len(faulted) if bad else next(clean) for bad in faulted]


def play_match(game: str, bots: list[BotSpec], *, seed: int, options: dict | None = None,
               limits: Limits | None = None, allow_unsafe: bool = False, sandbox=None,
               recording: ReplayScript | None = None) -> MatchResult:
    """Play one match of ``game`` between ``bots`` (seat order as given), each in its own sandbox.

    ``sandbox`` defaults to this process's shared sandbox (see :func:`bots.sandbox.get_sandbox`); a bot's
    faults are results, while :class:`SandboxFault` means the match should be retried. ``recording``
    replays a recorded match, in part or whole (:class:`ReplayScript`). ``ValueError`` for a bad player count
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
    seats = [SeatedBot(index, spec, limits) for index, spec in enumerate(bots)]
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
            answer = NO_ANSWER
            if seat.live:
                try:
                    answer = _decide(seat, state.observation(player), legal, step=len(actions))
                except Forfeit as fault:
                    seat.forfeit(fault.outcome, fault.reason)
            if recording is not None:
                action = recording.choose(seat=player, step=len(actions), legal=legal, answer=answer,
                                          coded=seat.spec.code is not None)
            else:
                action = legal[0] if answer is NO_ANSWER else answer
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
                except Forfeit as fault:
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


def _send_start(seat: SeatedBot, game: str, players: int, options: dict) -> None:
    """Send ``start`` to a spawned bot; its ``start_ms`` runs from now. :class:`Forfeit` on a fault."""
    seat.start_deadline = time.monotonic() + seat.limits.start_ms / 1000
    message = {"type": "start", "game": game, "seat": seat.index, "players": players, "options": options,
               "move_ms": seat.limits.move_ms, "bank_ms": seat.limits.bank_ms, "match_ms": seat.limits.match_ms}
    seat.send(message, seat.start_deadline)


def _await_ready(seats: list[SeatedBot], game: str, options: dict) -> None:
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
                raise Forfeit("bad_output", f"expected ready, got {_quote_reply(reply)}")
        except Forfeit as fault:
            seat.forfeit(fault.outcome, fault.reason)


def _quote_reply(reply: dict) -> str:
    """The start of a parsed reply as JSON, for a reason; orjson escapes every control character, NUL
    included. (A parsed reply re-encodes: bounded depth, string keys, finite numbers. Should one ever not,
    the reason says so rather than the referee raising.)"""
    try:
        return orjson.dumps(reply)[:_QUOTE_CHARS].decode(errors="replace")
    except orjson.JSONEncodeError:
        return "a reply that cannot be shown"


def _allowance(seat: SeatedBot) -> tuple[float, str]:
    """What ``seat`` may spend on its next decision, in seconds, and the timeout reason if it spends it
    all: ``move_ms`` plus the bank left, but never more than the match time left."""
    clock_s = (seat.limits.move_ms + seat.bank_left_ms) / 1000
    match_left_s = seat.limits.match_ms / 1000 - seat.time_used_s
    if match_left_s < clock_s:
        return max(0.0, match_left_s), f"the bot used its {seat.limits.match_ms} ms for the whole match"
    return clock_s, f"no answer within {seat.limits.move_ms} ms plus a bank of {seat.bank_left_ms} ms"


def _decide(seat: SeatedBot, observation: dict, legal: list, *, step: int):
    """Ask ``seat`` for its action at ``step`` within :func:`_allowance`; charge the clocks and record the
    decision (:class:`DecisionLog`); :class:`Forfeit` for any fault (a seat with less than a millisecond
    of match time left forfeits without being asked, and without a record)."""
    allowance_s, late = _allowance(seat)
    # Rounded down: the bot is never told of time it does not have.
    time_left_ms = int(allowance_s * 1000)
    if time_left_ms < 1:
        raise Forfeit("timeout", late)
    # What waits in the log pipe now was printed before this decision was asked: the previous one's.
    seat.drain_log()
    record = seat.decisions.open(step)
    seat.deciding = True
    # Encoded, the referee's work, off the bot's clock; then handed over while the bot is still paused, as
    # far as the pipe takes it, so that the bot wakes once, to its CPU and its message together, rather
    # than once to be resumed (and go back to sleep in its read) and again to read.
    line = encode_line({"type": "act", "observation": observation, "legal_actions": legal,
                        "time_left_ms": time_left_ms})
    # Its clock starts before it can run: before the line lands (a seat that moves again was never
    # paused) and before the thaw, whose woken bot may take this CPU at once and think before the call
    # that woke it returns here. The bot is charged those two calls, never the other way round.
    began = time.monotonic()
    pending = seat.offer(line)
    seat.process.resume()
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
        raise Forfeit("bad_output", f"expected an action, got {_quote_reply(reply)}")
    try:
        return engines.find_action(legal, reply["action"])
    except engines.IllegalAction as exc:
        raise Forfeit("illegal_action", storable_text(str(exc), limit=300)) from None


def _end_all(seats: list[SeatedBot], state) -> None:
    """Tell the live bots the result (the SDK exits on it) and collect what is left of their logs."""
    message = {"type": "end", "scores": state.scores(), "ranking": state.ranking()}
    deadline = time.monotonic() + _END_GRACE_S
    for seat in seats:
        if seat.live:
            try:
                seat.send(message, deadline)
            except Forfeit:
                pass
            seat.drain_log()
