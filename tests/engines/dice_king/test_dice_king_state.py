"""``engines.dice_king.state``: the state-level contracts of a King of the Dice match.

The rules are tested rule by rule in the other modules of this folder; here: the initial state for each
player count and its deal from the match's streams, random games that offer a decision until they end and
end with scores and places, replay from a seed, clones and ``resample_hidden``, and the log copies.
"""

from __future__ import annotations

import random

import pytest

import engines
from engines.base import competition_ranking
from engines.chance import ChanceStreams
from engines.dice_king.board import START_FIRES, TILE_COUNT, tile_name
from engines.dice_king.cards import STACK_CARDS, STACKS
from engines.dice_king.scoring import seat_scores
from engines.dice_king.state import (
    CLAIM,
    GAME_OVER,
    MARKERS_PER_SEAT,
    REMOVED_TILES,
    ROLL,
    DiceKingState,
    _json_copy,
)

GAME = engines.get("dice_king")


def play_out(state: DiceKingState, seed: int) -> list:
    """Random legal actions to the end; every position before it is a real decision: a roll or a claim,
    or an effect's choice with more than one option (the engine takes forced ones itself, ED-19)."""
    chooser = random.Random(seed)
    actions = []
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal and state.current_player() == state.active
        assert state.phase in (ROLL, CLAIM) or len(legal) > 1
        actions.append(chooser.choice(legal))
        state.apply(actions[-1])
    return actions


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_initial_state_of_each_player_count(players):
    state = GAME.new_state(players, 5)
    assert state.players == players and state.phase == ROLL and state.current_player() == state.start_player
    assert 0 <= state.start_player < players
    assert state.markers == [MARKERS_PER_SEAT] * players and state.white == [1] * players
    assert state.gold == [0] * players and state.fires == [0] * players
    assert state.scores() == [2] * players and state.ranking() == [1] * players
    assert state.legal_actions() and {"stop": True} in state.legal_actions()


def test_the_deal_comes_from_the_stack_and_supply_streams():
    state = GAME.new_state(2, 8)
    streams = ChanceStreams(8)
    for stack in STACKS:
        assert state.stacks[stack] == streams.stream("stack", stack).shuffled(STACK_CARDS[stack])
    loose = streams.stream("supply").shuffled(t for t in range(TILE_COUNT) if t not in START_FIRES.values())
    assert state.removed == sorted(loose[:REMOVED_TILES]) and state.supply == sorted(loose[REMOVED_TILES:])
    assert len(state.supply) == TILE_COUNT - len(START_FIRES) - REMOVED_TILES


def test_the_view_shows_what_observations_hide():
    state = GAME.new_state(3, 2)
    view, observation = state.view(), state.observation(1)
    assert view["removed_tiles"] == [tile_name(tile) for tile in state.removed]
    assert view["stack_order"] == {str(stack): state.stacks[stack][1:] for stack in STACKS}
    assert observation["you"] == 1
    assert not {"removed_tiles", "supply", "stack_order"} & set(observation)


@pytest.mark.parametrize(("players", "seed"), [(2, 1), (3, 2), (4, 3)])
def test_random_games_end_with_scores_and_places(players, seed):
    state = GAME.new_state(players, seed)
    actions = play_out(state, seed)
    assert len(actions) <= GAME.facts.max_game_length
    assert state.phase == GAME_OVER and state.current_player() is None and state.legal_actions() == []
    assert state.scores() == seat_scores(state.owner, state.fires, state.gold, state.white)
    keys = [(seat == state.winner_by_markers, score, fires)
            for seat, (score, fires) in enumerate(zip(state.scores(), state.fires))]
    assert state.ranking() == competition_ranking(keys)


def test_the_same_seed_and_actions_replay_the_same_game():
    first = GAME.new_state(3, 13)
    actions = play_out(first, 4)
    second = GAME.new_state(3, 13)
    for action in actions:
        second.apply(action)
    assert second.view() == first.view() and second.ranking() == first.ranking()
    assert GAME.new_state(3, 14).view() != GAME.new_state(3, 13).view()


def test_apply_changes_the_state_and_a_clone_stays_as_it_was():
    state = GAME.new_state(2, 3)
    before = state.view()
    twin = state.clone()
    state.apply(state.legal_actions()[0])
    assert state.view() != before and twin.view() == before
    play_out(twin, 1)
    assert state.phase != GAME_OVER


def test_resample_hidden_keeps_the_players_knowledge_and_redeals_the_rest():
    state = GAME.new_state(3, 6)
    play_out_steps = random.Random(2)
    for _ in range(10):
        state.apply(play_out_steps.choice(state.legal_actions()))
    other = state.resample_hidden(state.current_player(), seed=99)
    assert other.observation(state.current_player()) == state.observation(state.current_player())
    assert sorted(other.removed + other.supply) == sorted(state.removed + state.supply)
    assert [cards[0] for cards in other.stacks.values() if cards] == [
        cards[0] for cards in state.stacks.values() if cards]


def test_log_copies_share_no_list_or_dict():
    entry = {"seat": 0, "dice": [1, 2, [3]], "info": {"drawn": ["T01"]}}
    copied = _json_copy(entry)
    assert copied == entry
    copied["dice"][2].append(4)
    copied["info"]["drawn"].clear()
    assert entry == {"seat": 0, "dice": [1, 2, [3]], "info": {"drawn": ["T01"]}}
