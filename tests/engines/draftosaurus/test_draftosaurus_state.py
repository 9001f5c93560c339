"""``engines.draftosaurus.state``: the state-level contracts of a Draftosaurus match.

The rules are tested rule by rule in the other modules of this folder; here: the initial state for each
player count and its deal from the ``bag`` and ``die`` streams, simultaneous steps asked seat by seat,
random games to the end with scores and places, ``summer_winter`` playing two games, replay, clones,
``resample_hidden`` and what a seat can deduce (``known_holders``, ``unseen``).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest

import engines
from engines.base import competition_ranking
from engines.chance import ChanceStreams
from engines.draftosaurus.board import FACES, SETUPS, SPECIES
from engines.draftosaurus.scoring import all_scores
from engines.draftosaurus.state import DISCARD, GAME_OVER, PLACE, DraftosaurusState, _distinct
from engines.draftosaurus.zoo import canonical_hand

GAME = engines.get("draftosaurus")


def new(players: int, seed: int = 0, **options) -> DraftosaurusState:
    return GAME.new_state(players, seed, options)


def play_out(state: DraftosaurusState, seed: int) -> list:
    chooser = random.Random(seed)
    actions = []
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal and legal == state.legal_for(state.current_player())
        actions.append(chooser.choice(legal))
        state.apply(actions[-1])
    return actions


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_the_initial_state_deals_a_hand_to_every_seat(players):
    state = new(players, seed=3)
    setup = SETUPS[players]
    assert state.phase == PLACE and state.current_player() == 0 and state.roller == 0
    assert (state.round, state.turn, state.board) == (1, 1, "summer")
    assert all(len(hand) == setup.hand_size and hand == canonical_hand(hand) for hand in state.hands)
    dealt = Counter(dino for hand in state.hands for dino in hand) + Counter(state.bag)
    assert dealt == dict.fromkeys(SPECIES, setup.per_species)
    assert state.scores() == [0] * players and state.ranking() == [1] * players


def test_the_deal_and_the_dice_come_from_their_streams():
    state = new(3, seed=12)
    streams = ChanceStreams(12)
    setup = SETUPS[3]
    bag = streams.stream("bag", 0).shuffled(species for species in SPECIES for _ in range(setup.per_species))
    assert state.hands == [canonical_hand(bag[6 * seat:6 * seat + 6]) for seat in range(3)]
    assert state.bag == bag[18:]
    rolls = streams.stream("die", 0).dice(setup.rounds * setup.turns_per_round)
    assert state.dice_faces == tuple(FACES[value - 1] for value in rolls) and state.die == state.dice_faces[0]


def test_a_step_is_asked_seat_by_seat_and_resolved_when_all_have_chosen():
    state = new(3, seed=1)
    zoos_before = [zoo.to_json() for zoo in state.zoos]
    for seat in range(3):
        assert state.current_player() == seat and state.phase == PLACE
        state.apply(state.legal_actions()[0])
        if seat < 2:
            assert [zoo.to_json() for zoo in state.zoos] == zoos_before  # kept pending until all chose
    assert state.turn == 2 and state.roller == 1 and state.current_player() == 0
    assert sum(zoo.size() for zoo in state.zoos) == 3 and all(len(hand) == 5 for hand in state.hands)


def test_two_players_also_discard():
    state = new(2, seed=1)
    state.apply(state.legal_actions()[0])
    state.apply(state.legal_actions()[0])
    assert state.phase == DISCARD
    assert state.legal_actions() == [{"discard": dino} for dino in _distinct(state.hands[0])]


@pytest.mark.parametrize(("players", "options"), [(2, {}), (4, {"board": "winter"}), (5, {})])
def test_random_games_end_with_scores_and_places(players, options):
    state = new(players, players, **options)
    actions = play_out(state, players)
    assert len(actions) <= GAME.facts.max_game_length
    assert state.phase == GAME_OVER and state.current_player() is None and state.legal_actions() == []
    assert state.scores() == all_scores(state.zoos)
    assert state.ranking() == competition_ranking([(s, -t) for s, t in zip(state.scores(), state.t_rex_counts())])


def test_summer_winter_plays_two_games_and_adds_them_up():
    state = new(3, 4, mode="summer_winter")
    chooser = random.Random(0)
    while state.board == "summer":
        state.apply(chooser.choice(state.legal_actions()))
    banked = list(state.match_scores)
    assert state.game_index == 1 and state.board == "winter" and state.round == 1 and any(banked)
    assert state.scores() == banked  # the winter zoos are still empty
    play_out(state, 1)
    assert state.scores() == [b + now for b, now in zip(banked, state.game_scores())]


def test_the_same_seed_and_actions_replay_the_same_game():
    first = new(4, 9)
    actions = play_out(first, 2)
    second = new(4, 9)
    for action in actions:
        second.apply(action)
    assert second.view() == first.view()
    assert new(4, 10).view() != new(4, 9).view()


def test_apply_changes_the_state_and_a_clone_stays_as_it_was():
    state = new(3, 5)
    before = state.view()
    twin = state.clone()
    for _ in range(3):
        state.apply(state.legal_actions()[-1])
    assert state.view() != before and twin.view() == before


def test_what_a_seat_knows_grows_with_the_passes():
    state = new(4, 2)
    assert state.known_holders(0) == []
    unseen = state.unseen(0)
    assert sum(unseen.values()) == 8 * 6 - 6
    for _ in range(4):
        state.apply(state.legal_actions()[0])
    assert state.turn == 2 and state.known_holders(0) == [1]
    assert sum(state.unseen(0).values()) == 8 * 6 - 4 - 5 - 5  # four placed, two hands of five seen


def test_resample_hidden_keeps_the_seats_observation():
    state = new(4, 2)
    for _ in range(5):
        state.apply(state.legal_actions()[0])
    seat = state.current_player()
    other = state.resample_hidden(seat, 77)
    assert other.observation(seat) == state.observation(seat)
    assert other.hands[seat] == state.hands[seat]
