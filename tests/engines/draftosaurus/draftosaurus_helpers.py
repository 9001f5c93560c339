"""Small builders for Draftosaurus rule tests: a fresh state, a zoo from its pens, a hand-set position.

Tests set up a position by taking a real initial state and overwriting the fields the rule is about
(zoos, hands, die, roller); the legal-action cache is dropped afterwards so the engine recomputes it.
"""

from __future__ import annotations

import random

import engines
from engines.draftosaurus.state import DraftosaurusState
from engines.draftosaurus.zoo import Zoo, canonical_hand

GAME = engines.get("draftosaurus")
SUMMER = {"board": "summer", "mode": "single"}
WINTER = {"board": "winter", "mode": "single"}
SUMMER_WINTER = {"board": "summer", "mode": "summer_winter"}


def new(players: int = 4, options: dict | None = None, seed: int = 0) -> DraftosaurusState:
    return GAME.new_state(players, seed, options or SUMMER)


def zoo(side: str, river: list[str] | None = None, **pens) -> Zoo:
    """A zoo of ``side`` holding the given pens (``pyramid`` as a cell -> species dict) and River."""
    built = Zoo(side)
    for pen, dinos in pens.items():
        if pen == "pyramid":
            built.pyramid.update(dinos)
        else:
            built.pens[pen] = list(dinos)
    built.river = list(river or [])
    return built


def position(players: int = 4, options: dict | None = None, *, zoos: list[Zoo] | None = None,
             hands: list[list[str]] | None = None, die: str | None = None, roller: int | None = None,
             seed: int = 0) -> DraftosaurusState:
    """A state in the place phase of round 1, turn 1, with the given fields overwritten."""
    state = new(players, options, seed)
    if zoos is not None:
        state.zoos = [z.copy() for z in zoos]
    if hands is not None:
        state.hands = [canonical_hand(hand) for hand in hands]
    if die is not None:
        state.die = die
    if roller is not None:
        state.roller = roller
    state.reset_legal_cache()
    return state


def destinations(state: DraftosaurusState, dino: str) -> list[str]:
    """The destinations (``pyramid:B1`` for cells) the current seat may send ``dino`` to."""
    return [a["to"] + (":" + a["cell"] if "cell" in a else "")
            for a in state.legal_actions() if a["dino"] == dino]


def play_step(state: DraftosaurusState, choose) -> None:
    """Let every asked seat of the current step choose with ``choose(state, seat) -> action``."""
    for _ in range(len(state.asked)):
        seat = state.current_player()
        state.apply(choose(state, seat))


def first_legal(state: DraftosaurusState, seat: int) -> dict:
    return state.legal_actions()[0]


def random_playout(state: DraftosaurusState, seed: int = 0, upto: int | None = None) -> list:
    """Play random legal actions to the end (or ``upto`` decisions); returns the actions."""
    chooser = random.Random(seed)
    actions = []
    while not state.is_terminal() and (upto is None or len(actions) < upto):
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        actions.append(action)
    return actions


def quarantine_position(seat_0_zoo, players=2):
    """A winter game whose last placement step is done, with ``seat_0_zoo`` (plus what seat 0 placed
    last, which goes to the River) as seat 0's zoo and nothing quarantined elsewhere."""
    state = new(players, WINTER, seed=1)
    while not (state.round == state.setup.rounds and state.turn == state.setup.turns_per_round):
        state.apply(state.legal_actions()[-1])
    state.zoos = [seat_0_zoo.copy()] + [zoo("winter") for _ in range(players - 1)]
    state.reset_legal_cache()
    play_step(state, lambda s, seat: next(a for a in s.legal_actions() if a["to"] == "river"))
    if players == 2:
        play_step(state, lambda s, seat: s.legal_actions()[0])
    return state
