"""Small builders for Carcassonne dice-game rule tests: states with loaded dice and hand-built planes.

Rule tests need exact rolls. ``LoadedDice`` stands in for a round's dice (``state.round_dice``) and rolls
the faces it is given, in order (one face per pool die, ascending die id, as a roll asks them). ``turn_with`` starts a
turn on such dice from any totals and reserved knights; ``plane_of`` builds a plane die by die through the
engine's own placement so every helper-built position is a legal one.
"""

from __future__ import annotations

import random

import engines
from engines.carcassonne_dice.faces import FACE_ID, ROTATED
from engines.carcassonne_dice.plane import BuiltDie, Plane
from engines.carcassonne_dice.state import CarcassonneDiceState


class LoadedDice:
    """A chance source that rolls the given face names in order; rolling past the end is a test error."""

    def __init__(self, *faces: str) -> None:
        self.queue = [FACE_ID[face] for face in faces]

    def load(self, *faces: str) -> None:
        self.queue.extend(FACE_ID[face] for face in faces)

    def face(self, seat: int, roll: int, die: int) -> int:
        assert 1 <= roll <= 3 and 0 <= die < 9
        assert self.queue, "the test rolled more dice than it loaded"
        return self.queue.pop(0)


def game():
    return engines.get("carcassonne_dice")


def new(players: int = 2, seed: int = 0, **options) -> CarcassonneDiceState:
    return game().new_state(players, seed, options)


def turn_with(faces, *, players: int = 2, seat: int = 0, totals=None, reserved=None,
              equal_turns: bool = False, round_index: int = 0) -> CarcassonneDiceState:
    """A state at the start of ``seat``'s turn in round ``round_index + 1`` whose first roll is ``faces``.

    ``reserved`` maps seat -> die id of a knight held in front of that seat. Returns the state with the
    first roll made and resolved (catapults handed on, forced stops applied), and the dice still loaded
    with whatever ``faces`` has beyond the first roll (``state.round_dice.load(...)`` adds more; every
    later turn of the state rolls the same loaded dice).
    """
    state = new(players, 0, equal_turns=equal_turns)
    state.totals = list(totals) if totals is not None else [0] * players
    state.reserved = [None] * players
    for holder, die in (reserved or {}).items():
        state.reserved[holder] = die
    state.turn_index = round_index * players + seat
    state.turn_logs = []
    loaded = state.round_dice = LoadedDice(*faces)
    state._deal_dice = lambda: loaded
    state.reset_legal_cache()
    state._start_turn()
    return state


def plane_of(*dice) -> Plane:
    """A plane from (face name, x, y, r) tuples; each die after the first must be a legal placement."""
    plane = Plane(0)
    for die, (name, x, y, r) in enumerate(dice):
        face = FACE_ID[name]
        if plane.cells:
            assert plane.fits(x, y, face, r) or plane.fits(x, y, face, r % 2), f"{name} at {(x, y, r)} is illegal"
        plane.place(x, y, BuiltDie(die, face, r, ROTATED[face][r]))
    return plane


def with_planes(state: CarcassonneDiceState, *planes: Plane) -> CarcassonneDiceState:
    """``state`` with its turn's planes replaced (renumbered 0, 1, ...)."""
    for index, plane in enumerate(planes):
        plane.index = index
    state.planes = list(planes)
    state.reset_legal_cache()
    return state


def builds(state: CarcassonneDiceState) -> list:
    return [action["build"] for action in state.legal_actions() if "build" in action]


def random_game(players: int, seed: int, options=None, *, on_step=None) -> tuple[CarcassonneDiceState, list]:
    """Play uniformly random legal actions to the end; ``on_step(state)`` is called before each one."""
    state = game().new_state(players, seed, options)
    chooser = random.Random(seed)
    actions = []
    while not state.is_terminal():
        if on_step is not None:
            on_step(state)
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        actions.append(action)
    return state, actions
