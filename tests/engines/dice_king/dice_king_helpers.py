"""Small builders for Dice King rule tests: a fresh state, then set exactly the fields a rule reads.

Positions are built by editing the state's plain fields (documented in ``engines.dice_king.state``) and
calling :func:`refresh`, rather than by playing long random games.
"""

from __future__ import annotations

from itertools import permutations

import engines
from engines.dice_king.board import FIELD_LANDSCAPE, LANDSCAPE_FIELDS, LANDSCAPES
from engines.dice_king.dice import FACES
from engines.dice_king.state import DiceKingState

GAME = engines.get("dice_king")


def fresh(players: int = 3, seed: int = 1) -> DiceKingState:
    return GAME.new_state(players, seed)


def refresh(state: DiceKingState) -> None:
    """Drop the cached legal actions after a test edited the state."""
    state.reset_legal_cache()


def dice_showing(*faces: str) -> list[int]:
    """Die values (die 0 to 5) that show the given faces in some order, e.g. ``("R1", "R1", "G4", ...)``."""
    wanted = [(face[0], int(face[1:])) for face in faces]
    for order in permutations(range(6)):
        if all(FACES[die][value - 1] == colour for die, (colour, value) in zip(order, wanted)):
            values = [0] * 6
            for die, (_, value) in zip(order, wanted):
                values[die] = value
            return values
    raise ValueError(f"no way for the six dice to show {faces}")


def set_display(state: DiceKingState, cards: dict[int, str | None], *, others_empty: bool = False) -> None:
    """Put ``card`` on top of ``stack`` for each entry (``None`` empties the stack)."""
    for stack, card in cards.items():
        if card is None:
            state.stacks[stack] = []
            continue
        if card in state.stacks[stack]:
            state.stacks[stack].remove(card)
        state.stacks[stack].insert(0, card)
    if others_empty:
        for stack in state.stacks:
            if stack not in cards:
                state.stacks[stack] = []
    refresh(state)


def at_claim(state: DiceKingState, values: list[int], *, seat: int | None = None) -> DiceKingState:
    """Make ``seat`` (default: the active seat) stop with the natural result ``values``: phase 2 starts."""
    if seat is not None:
        state.active = seat
    state.phase = "roll"
    state.rolls_made = 3
    state.dice = list(values)
    state.virtual = []
    state.pending = None
    refresh(state)
    state.apply({"stop": True})
    return state


def give_cards(state: DiceKingState, seat: int, front: list[str] = (), supers: list[str] = ()) -> None:
    """Put these cards (taken out of the stacks) into ``seat``'s zone."""
    for card in list(front) + list(supers):
        for stack in state.stacks.values():
            if card in stack:
                stack.remove(card)
    state.front[seat] = sorted(front)
    state.supers[seat] = sorted(supers)
    refresh(state)


def tile_for(state: DiceKingState, field: int) -> int:
    """A tile of ``field``'s landscape taken out of the supply (or the removed tiles if none is left)."""
    landscape = LANDSCAPES.index(FIELD_LANDSCAPE[field])
    for pool in (state.supply, state.removed):
        for tile in (2 * landscape, 2 * landscape + 1):
            if tile in pool:
                pool.remove(tile)
                return tile
    raise ValueError(f"no tile left for field {field}")


def occupy(state: DiceKingState, field: int, seat: int | None, *, fire: bool = False) -> None:
    """Lay a tile on ``field`` with ``seat``'s marker (``None``: nobody's), optionally with a fire."""
    state.tile_at[field] = tile_for(state, field)
    if seat is not None:
        state.owner[field] = seat
        state.markers[seat] -= 1
    state.fire[field] = fire
    refresh(state)


def fields_of(landscape: str) -> tuple[int, ...]:
    return LANDSCAPE_FIELDS[LANDSCAPES.index(landscape)]


def events(state: DiceKingState, name: str) -> list[dict]:
    return [entry for entry in state.history if entry.get("event") == name]
