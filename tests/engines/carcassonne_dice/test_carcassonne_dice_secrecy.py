"""Secrecy for a game whose only unknown is the dice not yet rolled (rules 12: all information is public).

What must hold: every seat sees the whole table (its observation is the view plus ``you``), and nothing a
seat receives reveals the future rolls: ``resample_hidden`` re-seeds the dice, leaves every observation
and the legal actions unchanged, and the re-seeded game then rolls differently.
"""

import random

from carcassonne_dice_helpers import game
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st


def position(players: int, seed: int, depth: int):
    """The state after up to ``depth`` random decisions (or the end, if it comes first)."""
    state = game().new_state(players, seed)
    chooser = random.Random(seed)
    for _ in range(depth):
        if state.is_terminal():
            break
        state.apply(chooser.choice(state.legal_actions()))
    return state


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 5), seed=st.integers(0, 2**31 - 1), depth=st.integers(0, 120))
def test_every_seat_sees_the_whole_table(players, seed, depth):
    state = position(players, seed, depth)
    view = state.view()
    for seat in range(players):
        observation = state.observation(seat)
        assert observation.pop("you") == seat
        assert observation == view


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 5), seed=st.integers(0, 2**31 - 1), depth=st.integers(0, 120),
       redeals=st.lists(st.integers(0, 2**31 - 1), min_size=4, max_size=4, unique=True))
def test_observations_do_not_reveal_the_dice_still_to_be_rolled(players, seed, depth, redeals):
    state = position(players, seed, depth)
    if state.is_terminal():
        return
    observations = [state.observation(seat) for seat in range(players)]
    next_rolls = set()
    for redeal in redeals:
        twin = state.resample_hidden(state.current_player(), redeal)
        assert [twin.observation(seat) for seat in range(players)] == observations
        assert twin.legal_actions() == state.legal_actions()
        # Stopping (and scoring, when three knights offer the choice) ends the turn and makes the next
        # seat's first roll from the re-seeded dice.
        if twin.phase == "resolve":
            twin.apply({"stop": True})
        if twin.phase == "knight_choice":
            twin.apply({"score": True})
        if twin.is_terminal():
            return  # the stop won the game: no seat rolls again
        next_rolls.add(str([e for e in twin.view()["history"] if e.get("event") == "roll"][-1:]))
    assert len(next_rolls) > 1, "the re-seeded games all rolled the same: the dice were not re-drawn"
