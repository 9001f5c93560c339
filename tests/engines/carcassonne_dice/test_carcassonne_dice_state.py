"""``engines.carcassonne_dice.state``: the state-level contracts of a Carcassonne dice-game match.

The rules themselves are tested rule by rule in the other modules of this folder; here: the initial state
for each player count, the round's dice table (:class:`RoundDice`), the compact log keys, random games that
always offer a decision until they end and end with a winner, replay from a seed, clones, and the derived
facts (``largest_closed_city``, ``score_if_stop``).
"""

from __future__ import annotations

import random

import pytest
from carcassonne_dice_helpers import plane_of, turn_with, with_planes

import engines
from engines.carcassonne_dice.faces import POINTS
from engines.carcassonne_dice.state import (
    DICE,
    GAME_OVER,
    MAX_ROLLS,
    RESOLVE,
    WINNING_TOTAL,
    CarcassonneDiceState,
    RoundDice,
    log_key,
)
from engines.chance import ChanceStreams


def new(players: int = 2, seed: int = 0, **options) -> CarcassonneDiceState:
    return engines.get("carcassonne_dice").new_state(players, seed, options)


def play_out(state: CarcassonneDiceState, seed: int) -> list:
    """Random legal actions to the end; every position before it offers at least one."""
    chooser = random.Random(seed)
    actions = []
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal and state.current_player() == state.active
        actions.append(chooser.choice(legal))
        state.apply(actions[-1])
    return actions


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_initial_state_has_seat_0_rolling_all_nine_dice(players):
    state = new(players, seed=4)
    assert state.players == players and state.phase == RESOLVE and state.current_player() == 0
    assert state.scores() == [0] * players and state.ranking() == [1] * players
    view = state.view()
    assert view["turn"]["rolls_made"] == 1 and view["turn"]["rolls_left"] == MAX_ROLLS - 1
    assert len(view["turn"]["pool"]) + view["turn"]["collected_knights"] + view["turn"]["catapults"] <= DICE
    assert state.legal_actions()


def test_round_dice_read_one_block_of_nine_per_seat_and_roll():
    stream_numbers = ChanceStreams(9).stream("dice", 0).randoms(2 * MAX_ROLLS * DICE)
    dice = RoundDice(ChanceStreams(9).stream("dice", 0))
    # Asked out of order: seat 1's second roll first, then seat 0's first.
    assert [dice.face(1, 2, die) for die in range(DICE)] == [1 + int(x * 6) for x in stream_numbers[36:45]]
    assert [dice.face(0, 1, die) for die in range(DICE)] == [1 + int(x * 6) for x in stream_numbers[:9]]
    assert dice.face(1, 2, 4) == dice.face(1, 2, 4)


@pytest.mark.parametrize(("action", "key"), [
    ({"roll": True}, ("roll",)), ({"stop": True}, ("stop",)), ({"score": True}, ("score",)),
    ({"keep_knight": True}, ("keep_knight",)), ({"collect": "KNIGHT"}, ("collect", "KNIGHT")),
    ({"build": ["CAP", "new"]}, ("build", "CAP", "new")), ({"build": ["BAND", 0, 1, -2, 1]}, ("build", "BAND", 0, 1, -2, 1)),
])
def test_log_keys_are_compact_and_views_spell_them_out_again(action, key):
    assert log_key(action) == key


def test_the_history_shows_actions_as_they_were_sent():
    state = new(2, seed=1)
    action = state.legal_actions()[0]
    state.apply(action)
    assert {"seat": 0, "action": action} in state.view()["history"]


@pytest.mark.parametrize(("players", "equal_turns"), [(2, False), (3, True), (5, False)])
def test_random_games_end_with_a_winner_and_nothing_left_to_do(players, equal_turns):
    state = new(players, seed=players, equal_turns=equal_turns)
    actions = play_out(state, seed=players)
    assert len(actions) <= engines.get("carcassonne_dice").facts.max_game_length
    assert state.phase == GAME_OVER and state.current_player() is None and state.legal_actions() == []
    view = state.view()
    assert view["winner"] and view["end_reason"]
    assert all(state.ranking()[seat] == 1 for seat in view["winner"])
    if view["end_reason"] != "round_cap" and state.catapult_winner is None:
        assert max(state.scores()) >= WINNING_TOTAL


def test_the_same_seed_and_actions_replay_the_same_game():
    first = new(3, seed=21)
    actions = play_out(first, seed=5)
    second = new(3, seed=21)
    for action in actions:
        second.apply(action)
    assert second.view() == first.view() and second.scores() == first.scores()
    assert new(3, seed=22).view() != new(3, seed=21).view() or new(3, seed=23).view() != new(3, seed=21).view()


def test_apply_changes_the_state_and_a_clone_stays_as_it_was():
    state = new(2, seed=3)
    before = state.view()
    twin = state.clone()
    state.apply(state.legal_actions()[0])
    assert state.view() != before
    assert twin.view() == before


def test_resample_hidden_keeps_everything_on_the_table():
    state = new(2, seed=3)
    other = state.resample_hidden(1, seed=77)
    assert other.view() == state.view() and other.legal_actions() == state.legal_actions()


def test_score_if_stop_is_the_points_of_the_largest_closed_city_doubled_when_doubled():
    state = turn_with(["CAP", "CAP"] + ["KNIGHT"] * 7)
    assert state.largest_closed_city() == 0 and state.score_if_stop() == 0
    state.apply({"build": ["CAP", "new"]})
    state.apply({"build": ["CAP", 0, 0, 1, 2]})
    assert state.largest_closed_city() == 2 and state.score_if_stop() == POINTS[2] == 0
    assert [city.closed for _, city in state.all_cities()] == [True]


def test_score_if_stop_counts_only_the_largest_closed_city():
    closed_three = plane_of(("CAP", 0, 0, 0), ("BAND", 0, 1, 0), ("CAP", 0, 2, 2))
    open_four = plane_of(("BAND", 0, 0, 0), ("BAND", 0, 1, 0), ("BAND", 0, 2, 0), ("BAND", 0, 3, 0))
    state = with_planes(turn_with(["KNIGHT"] * 9), closed_three, open_four)
    assert [(plane, city.size, city.closed) for plane, city in state.all_cities()] == [(0, 3, True), (1, 4, False)]
    assert state.largest_closed_city() == 3 and state.score_if_stop() == POINTS[3] == 1
    state.doubled = True
    assert state.score_if_stop() == 2
