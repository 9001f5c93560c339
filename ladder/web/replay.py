"""Replays drawn for the match page: the picture at a step, and a seat's decisions beside it.

The timeline and the positions come from ``ladder.selectors.matches`` (``match_timeline``,
``match_position``), the one replay read path the REST API uses too; this module only draws them. Engines are
fast next to a page load (a 1,500-action Carcassonne game replays in tens of milliseconds), so nothing is
cached: the timeline is one pass over the actions, and a frame replays up to its step and draws only that
step.

A bot's owner also sees what the bot did at each step: its decisions (``Seat.decisions``, one record per
decision, written by the referee), read here into :class:`Decision` rows with the time bank left after each.

Pictures come from ``engines.<game>.render.render(view, seat_names=...)``, which escapes the seat names it
is given. A game without a renderer, or a match whose actions no longer fit the engine, falls back to the
JSON view (escaped by the template) and a message saying why.
"""

from __future__ import annotations

import bisect
import dataclasses
import importlib
import json
from collections.abc import Callable, Sequence

from ladder.selectors.matches import Position, Step


@dataclasses.dataclass(frozen=True)
class ReplayFrame:
    """One step drawn: ``svg`` from the engine's renderer, or ``view_json`` when there is none."""

    step: Step
    svg: str | None
    view_json: str | None


def renderer(game: str) -> Callable[..., str] | None:
    """The game's ``render(view, *, seat_names)``, or None when the engine ships none."""
    try:
        module = importlib.import_module(f"engines.{game}.render")
    except ModuleNotFoundError:
        return None
    return getattr(module, "render", None)


def frame(position: Position, *, game: str, seat_names: list[str],
          renderer_for: Callable[[str], Callable[..., str] | None] = renderer) -> ReplayFrame:
    """``position`` (``selectors.matches.match_position``) of a ``game`` drawn.

    ``renderer_for(game)`` finds the drawing function (None: show the JSON view instead).
    """
    draw = renderer_for(game)
    if draw is None:
        return ReplayFrame(step=position.step, svg=None,
                           view_json=json.dumps(position.view, indent=1, sort_keys=True))
    return ReplayFrame(step=position.step, svg=draw(position.view, seat_names=list(seat_names)),
                       view_json=None)


@dataclasses.dataclass(frozen=True)
class Decision:
    """One decision of a seat. ``step`` indexes the match's actions: the action it produced leads to step
    ``step + 1``, and ``step == len(actions)`` is an answer that was never played (the seat forfeited on it).
    ``ms`` is its think time, ``log`` what the bot printed while deciding, ``bank_ms`` the bank left after it.
    """

    step: int
    ms: int
    log: str
    bank_ms: int

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def _whole(value) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def seat_decisions(records, *, move_ms: int, bank_ms: int) -> list[Decision]:
    """``Seat.decisions`` as :class:`Decision` rows in step order, the bank run down as the referee's chess
    clock does: each decision takes ``max(0, ms - move_ms)`` from it (never below zero).

    A record that is not ``{"step": int, "ms": int, ...}`` is left out, a negative ``ms`` read as 0 and a
    ``log`` that is not text as empty: the page shows what it can of a bad row rather than failing.
    """
    rows = [r for r in (records or []) if isinstance(r, dict) and _whole(r.get("step")) and _whole(r.get("ms"))]
    rows.sort(key=lambda r: r["step"])  # stable: two records of one step keep their order
    bank, decisions = bank_ms, []
    for record in rows:
        ms = max(0, record["ms"])
        bank = max(0, bank - max(0, ms - move_ms))
        log = record.get("log")
        decisions.append(Decision(step=max(0, record["step"]), ms=ms, log=log if isinstance(log, str) else "",
                                  bank_ms=bank))
    return decisions


def decision_shown(decisions: Sequence[Decision], *, step: int, last: int) -> int | None:
    """The index of the decision shown at viewer step ``step`` of a match of ``last`` actions: the latest
    whose action led to this position or before it (``decision.step < step``); at the last step every
    decision counts, the never-played answer included. None before the seat's first decision.

    The replay script picks the same one (``shownAt`` in replay.js).
    """
    if step >= last:
        return len(decisions) - 1 if decisions else None
    index = bisect.bisect_left([d.step for d in decisions], step) - 1
    return index if index >= 0 else None


def decision_label(decisions: Sequence[Decision], index: int | None, *, step: int, last: int, seat: str) -> str:
    """What the log panel says of ``decisions[index]`` at viewer step ``step``: which step it decided and in
    how long. replay.js builds the same text (``decisionLabel``)."""
    if index is None:
        return f"{seat} has decided nothing before step {step}"
    decision = decisions[index]
    if decision.step >= last:
        return f"{seat} decided after step {last} in {decision.ms} ms; that answer was never played"
    text = f"{seat} decided step {decision.step + 1} in {decision.ms} ms"
    return text if decision.step + 1 == step else f"{text} (its latest decision before step {step})"
