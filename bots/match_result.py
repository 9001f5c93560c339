"""What a match is asked to be and what it was, as plain data: the seats' bots (:class:`BotSpec`), a
recorded match to follow (:class:`ReplayScript`), and the results (:class:`SeatResult`,
:class:`MatchResult`) that :func:`bots.referee.play_match` returns and the ladder stores."""

from __future__ import annotations

from dataclasses import dataclass, field

import engines
from bots.untrusted import REASON_CHARS, storable_text

OUTCOMES = ("ok", "timeout", "crash", "memory", "illegal_action", "bad_output")

@dataclass(frozen=True)
class BotSpec:
    """One seat's bot: ``name`` is shown in results, ``code`` is ``bot.py`` source or a zip with it.
    ``code`` None (only with a :class:`ReplayScript`): no bot, the seat plays the recorded actions."""

    name: str
    code: bytes | None


#: What a seat that was not asked (or forfeited while asked) answered.
NO_ANSWER = object()


@dataclass
class ReplayScript:
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
        """The action to apply at ``step`` for ``seat`` (``answer``: its bot's, or ``NO_ANSWER``)."""
        if step < self.follow_until:
            recorded = self._recorded(step, legal)
            if recorded is None:
                raise ValueError(f"the recorded action of step {step} is not legal in the replayed game: the "
                                 "recording does not fit this engine")
            if answer is not NO_ANSWER and answer != recorded:
                self.discarded.append({"step": step, "seat": seat, "answer": answer, "recorded": recorded})
            return recorded
        if answer is not NO_ANSWER:
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
