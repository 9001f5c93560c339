"""End of the game, scoring and ranking: rules DK-9.1 to DK-9.4, DK-10.11, ED-14, ED-20 (checklist
items 11 and 12, the scoring example of 9.1)."""

from __future__ import annotations

import random

import pytest
from dice_king_helpers import at_claim, dice_showing, fresh, give_cards, occupy, refresh, set_display

from engines.dice_king.scoring import seat_scores

FIVE_RED = dice_showing("R1", "R3", "R2", "R6", "R5", "G2")


def test_dk_9_1_the_game_ends_after_phase_3_when_the_supply_is_empty():
    state = fresh(3, seed=2)
    seat = state.active
    victim = (seat + 1) % 3
    give_cards(state, victim, front=["S3-05"])
    state.supply = [0]
    set_display(state, {2: "S2-01"})  # THIEF_CARD: the steal is still part of phase 3
    at_claim(state, FIVE_RED)
    state.apply({"claim": 2})
    while state.phase == "place":
        state.apply(state.legal_actions()[0])
    assert state.supply == [] and state.phase == "steal" and not state.is_terminal()
    state.apply({"pass": True})
    assert state.is_terminal() and state.current_player() is None and state.legal_actions() == []


def worked_example_owner():
    owner = [-1] * 30
    for field in (7, 8, 13, 14, 21, 27, 0):
        owner[field] = 0
    owner[1] = 1
    owner[29] = 2
    return owner


def test_dk_9_2_worked_scoring_example():
    owner = worked_example_owner()
    totals = seat_scores(owner, fires=[2, 2, 1], gold=[1, 0, 0], white=[3, 0, 0])
    assert totals[0] == 12 + 3 + 4 + 9 == 28
    assert totals[1] == 3 + 4 and totals[2] == 3


def test_dk_9_2_the_same_example_through_the_state():
    state = fresh(3, seed=2)
    for field in (7, 8, 13, 14, 21, 27, 0):
        occupy(state, field, 0)
    state.fires = [2, 2, 1]
    state.gold = [1, 0, 0]
    state.white = [3, 0, 0]
    refresh(state)
    assert state.scores() == [28, 4, 0]
    assert state.observation(1)["seats"][0]["score_now"] == 28


def test_dk_9_2_tied_largest_areas_count_only_once():
    owner = [-1] * 30
    for field in (0, 1, 28, 29):
        owner[field] = 0
    assert seat_scores(owner, fires=[0, 0], gold=[0, 0], white=[0, 0])[0] == 3 * 2 + 1 * 2


def test_ed_14_no_fire_majority_points_when_nobody_has_a_fire():
    assert seat_scores([-1] * 30, fires=[0, 0, 0], gold=[0] * 3, white=[0] * 3) == [0, 0, 0]
    assert seat_scores([-1] * 30, fires=[0, 1, 1], gold=[0] * 3, white=[0] * 3) == [0, 4, 4]


def test_dk_9_3_ties_broken_by_dragon_fires_and_shared_places_skip():
    state = fresh(4, seed=2)
    state.fires = [1, 1, 0, 2]  # fire majority: seat 3 only (4 points)
    state.white = [3, 3, 5, 1]  # totals 6, 6, 10, 6
    assert state.scores() == [6, 6, 10, 6]
    assert state.ranking() == [3, 3, 1, 2]
    state.fires = [1, 1, 0, 1]  # fire majority shared by seats 0, 1 and 3 (4 points each)
    state.white = [3, 3, 7, 3]
    assert state.scores() == [10, 10, 14, 10] and state.ranking() == [2, 2, 1, 2]
    state.fires = [0, 0, 0, 0]
    state.white = [4, 4, 2, 1]
    assert state.ranking() == [1, 1, 3, 4]


def test_dk_9_4_scores_still_count_the_17th_marker_winner_and_the_winner_is_first_alone():
    state = fresh(2, seed=2)
    state.white = [0, 5]
    state.markers[0] = 0
    set_display(state, {5: "S5-01"}, others_empty=True)
    at_claim(state, dice_showing("R1", "R3", "R2", "R6", "R5", "R4"), seat=0)
    state.apply({"claim": 5})
    assert state.scores() == [0, 10] and state.ranking() == [1, 2]
    assert state.view()["winner"] == [0]


@pytest.mark.parametrize("players", [2, 4])
def test_dk_10_11_the_game_always_ends_without_a_turn_cap(players):
    for seed in range(15):
        state = fresh(players, seed)
        chooser = random.Random(seed)
        decisions = 0
        while not state.is_terminal():
            state.apply(chooser.choice(state.legal_actions()))
            decisions += 1
        turns = sum(1 for entry in state.history if entry.get("event") == "end_turn")
        # Every turn removes a display card or places a tile: at most 60 + 26 turns.
        assert turns <= 86 and decisions < 1000
        assert state.view()["winner"] == [s for s, place in enumerate(state.ranking()) if place == 1]
