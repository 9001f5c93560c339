"""Small builders for Kingdomino rule tests: kingdoms from placement lists, states at chosen moments."""

from __future__ import annotations

import random

import engines
from engines.kingdomino.kingdom import GridGeometry, Kingdom
from engines.kingdomino.state import GAME_OVER, KingdominoState

EAST, SOUTH, WEST, NORTH = 0, 1, 2, 3

# Section 7's worked example: (domino, r, c, direction), each legal in this order.
WORKED_EXAMPLE = [
    (46, 4, 5, EAST), (12, 3, 4, EAST), (21, 4, 3, NORTH), (48, 5, 4, SOUTH), (42, 4, 2, NORTH),
    (24, 6, 3, NORTH), (11, 2, 3, WEST), (39, 2, 5, WEST), (1, 5, 5, EAST), (45, 6, 5, EAST),
    (23, 5, 2, SOUTH), (44, 2, 6, SOUTH),
]

# A kingdom whose castle is walled in by wheat, forest and lakes: a swamp domino has nowhere to go.
WALLED_IN = [(1, 4, 5, EAST), (3, 4, 3, WEST), (7, 3, 4, NORTH), (8, 5, 4, SOUTH)]


def game():
    return engines.get("kingdomino")


def new(players: int = 2, seed: int = 0, **options) -> KingdominoState:
    return game().new_state(players, seed, options)


def is_legal(kingdom: Kingdom, n: int, r: int, c: int, o: int) -> bool:
    return kingdom.frame.key(r, c, o) in kingdom.legal_keys(n)


def build_kingdom(placements, k: int = 5) -> Kingdom:
    """A kingdom with ``placements`` [(n, r, c, o), ...] applied; each must be legal when placed."""
    kingdom = Kingdom(GridGeometry.of(k))
    for n, r, c, o in placements:
        assert is_legal(kingdom, n, r, c, o), f"domino {n} at {(r, c, o)} is not legal here"
        kingdom.place(n, kingdom.frame.key(r, c, o))
    return kingdom


def finished(kingdoms: list[Kingdom], **options) -> KingdominoState:
    """A state whose game is over with the given kingdoms (one per seat)."""
    state = new(len(kingdoms), 0, **options)
    state.kingdoms = kingdoms
    state.phase = GAME_OVER
    state.reset_legal_cache()
    return state


def play_until(state: KingdominoState, stop, seed: int = 0) -> KingdominoState:
    """Play random legal actions until ``stop(state)`` holds (or the game ends); returns the state."""
    chooser = random.Random(seed)
    while not stop(state) and not state.is_terminal():
        state.apply(chooser.choice(state.legal_actions()))
    return state


def play_out(state: KingdominoState, seed: int = 0) -> list:
    """Play random legal actions to the end; return the actions played."""
    chooser = random.Random(seed)
    actions = []
    while not state.is_terminal():
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        actions.append(action)
    return actions
