"""Matches of the example bots (``bots/examples/<game>/``) played in-process against an engine."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import engines

EXAMPLES = Path(__file__).resolve().parents[2] / "bots" / "examples"


def examples(game: str) -> Path:
    """The folder of ``game``'s example bots."""
    return EXAMPLES / game

#: A bot bound to its seat: ``act(observation, legal_actions) -> action``.
Act = Callable[[dict, list], object]


def play_match(state: engines.State, bots: Sequence[Act]) -> engines.State:
    """Play ``state`` to the end with ``bots[seat]`` deciding for each seat; every answer must be one of
    the legal actions it was offered. Returns the final state."""
    while not state.is_terminal():
        seat = state.current_player()
        legal = state.legal_actions()
        action = bots[seat](state.observation(seat), legal)
        assert action in legal, f"seat {seat} answered {action!r}, not a legal action"
        state.apply(action)
    return state
