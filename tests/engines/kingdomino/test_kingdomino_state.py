"""``engines.kingdomino.state``: the state-level contracts of a Kingdomino match.

The rules are tested rule by rule in the other modules of this folder; here: :class:`Setup` per
configuration, the initial state and its deal from the ``pile`` and ``pick_order`` streams, the decision
cycle (initial pick, then place and pick per king), random games to the end with scores and places,
Dynasty's three games, replay, clones, :class:`LineSlot` copies and ``resample_hidden``.
"""

from __future__ import annotations

import random

import pytest

import engines
from engines.base import competition_ranking
from engines.chance import ChanceStreams
from engines.kingdomino.dominoes import NUMBERS
from engines.kingdomino.state import (
    DYNASTY_GAMES,
    GAME_OVER,
    INITIAL_PICK,
    PICK,
    PLACE,
    KingdominoState,
    LineSlot,
    Setup,
)

GAME = engines.get("kingdomino")


def new(players: int, seed: int = 0, **options) -> KingdominoState:
    return GAME.new_state(players, seed, options)


def play_out(state: KingdominoState, seed: int) -> list:
    chooser = random.Random(seed)
    actions = []
    while not state.is_terminal():
        legal = state.legal_actions()
        assert legal and state.current_player() == state.acting_king()[0]
        actions.append(chooser.choice(legal))
        state.apply(actions[-1])
    return actions


@pytest.mark.parametrize(("players", "duel", "expected"), [
    (2, False, (5, 2, 24, 4, 6)), (3, False, (5, 1, 36, 3, 12)), (4, False, (5, 1, 48, 4, 12)),
    (2, True, (7, 2, 48, 4, 12)),
])
def test_setup_of_each_configuration(players, duel, expected):
    setup = Setup.of(players, duel)
    assert (setup.grid_size, setup.kings_per_seat, setup.dominoes_used, setup.line_size,
            setup.rounds_total) == expected


@pytest.mark.parametrize("players", [2, 3, 4])
def test_the_initial_state_deals_the_pile_and_the_first_line(players):
    state = new(players, seed=7)
    setup = state.setup
    assert state.phase == INITIAL_PICK and state.round == 0
    assert len(state.pick_order) == players * setup.kings_per_seat
    assert state.current_player() == state.pick_order[0][0]
    line = [slot.domino for slot in state.current_line]
    assert line == sorted(line) and len(line) == setup.line_size and all(state.revealed[n] for n in line)
    dealt = line + state.draw_pile
    assert len(dealt) == setup.dominoes_used and sorted(dealt + state.set_aside) == list(NUMBERS)
    assert state.legal_actions() == [{"pick": p} for p in range(setup.line_size)]
    assert state.scores() == [0] * players


def test_the_deal_comes_from_the_pile_and_pick_order_streams():
    state = new(3, seed=5)
    streams = ChanceStreams(5)
    order = streams.stream("pile", 0).shuffled(NUMBERS)
    assert sorted(order[:3]) == [slot.domino for slot in state.current_line]
    assert state.draw_pile == order[3:36] and state.set_aside == sorted(order[36:])
    assert state.pick_order == streams.stream("pick_order", 0).shuffled([(0, 0), (1, 0), (2, 0)])


def test_the_snake_pick_alternates_from_a_drawn_first_seat():
    state = new(2, seed=3, initial_pick="snake")
    start = ChanceStreams(3).stream("pick_order", 0).below(2)
    assert state.pick_order == [(start, 0), (1 - start, 0), (1 - start, 1), (start, 1)]


def test_after_the_initial_pick_each_king_places_then_picks():
    state = new(3, seed=2)
    for _ in range(3):
        state.apply(state.legal_actions()[0])
    assert state.phase == PLACE and state.round == 1 and state.next_line is not None
    king = state.acting_king()
    assert king == state.current_line[0].king
    assert all("place" in action or action == {"discard": True} for action in state.legal_actions())
    state.apply(state.legal_actions()[0])
    assert state.phase == PICK and state.current_player() == king[0]
    assert state.legal_actions() == [{"pick": p} for p in range(3)]
    state.apply({"pick": 1})
    assert state.next_line[1].king == king and state.phase == PLACE and state.position == 1


@pytest.mark.parametrize(("players", "options"), [(2, {}), (3, {"harmony": True}), (4, {"middle_kingdom": True}),
                                                  (2, {"mighty_duel": True})])
def test_random_games_end_with_scores_and_places(players, options):
    state = new(players, players, **options)
    actions = play_out(state, players)
    assert len(actions) <= GAME.facts.max_game_length
    assert state.phase == GAME_OVER and state.current_player() is None and state.legal_actions() == []
    placed = sum(len(k.placed) + len(k.discarded) for k in state.kingdoms)
    assert placed == state.setup.dominoes_used
    expected = [k.summary()[0] + k.bonus(state.options) for k in state.kingdoms]
    assert state.scores() == expected
    assert state.ranking() == competition_ranking([(s, *k.summary()[1:]) for s, k in zip(expected, state.kingdoms)])


def test_a_dynasty_plays_three_games_and_ranks_the_total():
    state = new(2, 4, dynasty=True)
    games = set()
    chooser = random.Random(0)
    while not state.is_terminal():
        games.add(state.game_index)
        state.apply(chooser.choice(state.legal_actions()))
    assert games == set(range(DYNASTY_GAMES))
    assert state.scores() == [t + k.summary()[0] for t, k in zip(state.match_scores, state.kingdoms)]
    assert state.ranking() == competition_ranking(state.scores())


def test_the_same_seed_and_actions_replay_the_same_game():
    first = new(4, 11)
    actions = play_out(first, 3)
    second = new(4, 11)
    for action in actions:
        second.apply(action)
    assert second.view() == first.view()
    assert new(4, 12).view() != new(4, 11).view()


def test_apply_changes_the_state_and_a_clone_stays_as_it_was():
    state = new(2, 1)
    for _ in range(4):
        state.apply(state.legal_actions()[0])
    before = state.view()
    twin = state.clone()
    state.apply(state.legal_actions()[-1])
    state.apply(state.legal_actions()[-1])
    assert state.view() != before and twin.view() == before


def test_line_slot_copies_are_independent():
    slot = LineSlot(17, (1, 0))
    twin = slot.copy()
    twin.done, twin.king = True, None
    assert (slot.domino, slot.king, slot.done) == (17, (1, 0), False)


def test_resample_hidden_reshuffles_only_what_nobody_has_seen():
    state = new(3, 6)
    for _ in range(5):
        state.apply(state.legal_actions()[0])
    other = state.resample_hidden(0, 99)
    assert other.observation(0) == state.observation(0)
    assert len(other.draw_pile) == len(state.draw_pile)
    assert sorted(other.draw_pile + other.set_aside) == sorted(state.draw_pile + state.set_aside)
    assert other.draw_pile != state.draw_pile
