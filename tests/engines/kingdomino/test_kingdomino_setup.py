"""KD-2: setup and the initial pick; ED-1 deterministic chance; ED-2 one seat at a time.

ED-1's draws come from named streams (``engines.kingdomino.state``): game ``g`` shuffles the pile with
``("pile", g)`` and the kings with ``("pick_order", g)``; the hand computations below follow that.
"""

import random

import pytest
from kingdomino_helpers import new, play_out, play_until
from streams_by_hand import RecordingStreams, fisher_yates, stream_rng

import engines
from engines.kingdomino.state import INITIAL_PICK, PLACE

# mode -> (players, options, kings per seat, dominoes used, line size, rounds, K)
MODES = {
    "2p": (2, {}, 2, 24, 4, 6, 5),
    "3p": (3, {}, 1, 36, 3, 12, 5),
    "4p": (4, {}, 1, 48, 4, 12, 5),
    "duel": (2, {"mighty_duel": True}, 2, 48, 4, 12, 7),
}


@pytest.mark.parametrize("mode", MODES)
def test_kd_2_1_setup_counts(mode):
    players, options, kings, used, line, rounds, k = MODES[mode]
    state = new(players, 3, **options)
    assert len(state.pick_order) == players * kings
    assert sorted(state.pick_order) == [(s, i) for s in range(players) for i in range(kings)]
    assert len(state.current_line) == line == len(state.pick_order)
    assert len(state.draw_pile) + line == used
    assert len(state.set_aside) == 48 - used
    assert state.setup.rounds_total == rounds
    view = state.view()
    assert (view["grid_size"], view["frame_size"], view["castle"]) == (k, 2 * k - 1, [k - 1, k - 1])
    assert view["rounds_total"] == rounds


def test_kd_2_2_every_kingdom_starts_as_the_castle_alone():
    state = new(4, 1)
    for kingdom in state.view()["kingdoms"]:
        cells = [cell for row in kingdom["grid"] for cell in row if cell]
        assert cells == ["C"] and kingdom["grid"][4][4] == "C"
        assert kingdom["placed"] == [] and kingdom["discarded"] == []


@pytest.mark.parametrize("players", [2, 3])
def test_kd_2_3_set_aside_dominoes_never_appear(players):
    for seed in range(5):
        state = new(players, seed)
        chooser = random.Random(seed)
        set_aside = set(state.set_aside)
        shown = set()
        while not state.is_terminal():
            for line in (state.current_line, state.next_line or []):
                shown.update(slot.domino for slot in line)
            state.apply(chooser.choice(state.legal_actions()))
        assert shown.isdisjoint(set_aside)
        assert len(shown) == 48 - len(set_aside)
        order = fisher_yates(stream_rng(seed, "pile", 0), range(1, 49))
        assert sorted(order[len(shown):]) == sorted(set_aside)


def test_kd_2_4_lines_come_from_the_front_of_the_pile_sorted_lowest_first():
    seed = 11
    order = fisher_yates(stream_rng(seed, "pile", 0), range(1, 49))
    state = new(4, seed)
    assert [slot.domino for slot in state.current_line] == sorted(order[:4])
    play_until(state, lambda s: s.phase == PLACE)
    assert [slot.domino for slot in state.next_line] == sorted(order[4:8])
    for seed in range(10):
        state = new(3, seed)
        while not state.is_terminal():
            numbers = [slot.domino for slot in state.current_line]
            assert numbers == sorted(numbers)
            play_until(state, lambda s, r=state.round: s.round != r or s.is_terminal(), seed)


def test_kd_2_5_initial_pick_follows_the_shuffled_kings():
    for players, kings in ((2, 2), (3, 1), (4, 1)):
        for seed in range(6):
            rng = stream_rng(seed, "pick_order", 0)
            expected = fisher_yates(rng, [(s, k) for s in range(players) for k in range(kings)])
            state = new(players, seed)
            asked = []
            while state.phase == INITIAL_PICK:
                to_act = state.view()["to_act"]
                asked.append((to_act["seat"], to_act["king"]))
                assert state.current_player() == to_act["seat"]
                legal = state.legal_actions()
                if len(asked) == len(expected):
                    assert len(legal) == 1, "the last king has no choice"
                state.apply(legal[-1])
            assert asked == expected
            claimed = [(slot.king) for slot in state.current_line]
            assert sorted(claimed) == sorted(expected)


def test_kd_2_5_snake_variant_orders_start_other_other_start():
    for seed in range(8):
        start = int(stream_rng(seed, "pick_order", 0).random() * 2)
        state = new(2, seed, initial_pick="snake")
        assert state.pick_order == [(start, 0), (1 - start, 0), (1 - start, 1), (start, 1)]
        seats = []
        while state.phase == INITIAL_PICK:
            seats.append(state.current_player())
            state.apply(state.legal_actions()[0])
        assert seats == [start, 1 - start, 1 - start, start]


def test_kd_2_6_when_the_first_line_is_claimed_the_next_line_forms_and_round_1_starts():
    state = new(2, 4)
    pile_before = state.draw_pile[:4]
    for _ in range(3):
        state.apply(state.legal_actions()[0])
        assert state.phase == INITIAL_PICK and state.next_line is None and state.round == 0
    state.apply(state.legal_actions()[0])
    assert state.phase == PLACE and state.round == 1 and state.position == 0
    assert [slot.domino for slot in state.next_line] == sorted(pile_before)
    assert all(slot.king is not None for slot in state.current_line)


def test_ed_1_chance_is_fisher_yates_on_its_streams_and_nothing_else_draws():
    for seed in (0, 1, 12345, 2**40):
        order = fisher_yates(stream_rng(seed, "pile", 0), range(1, 49))
        kings = fisher_yates(stream_rng(seed, "pick_order", 0), [(0, 0), (0, 1), (1, 0), (1, 1)])
        state = new(2, seed)
        assert state.draw_pile == order[4:24] and state.set_aside == sorted(order[24:])
        assert state.pick_order == kings
        # A whole game asks for no stream after its deal.
        state.streams = RecordingStreams(seed)
        play_out(state, seed)
        assert state.streams.asked == []


def test_ed_1_dynasty_games_2_and_3_are_dealt_from_their_own_streams():
    seed = 41
    deals = []
    for game_index in range(3):
        order = fisher_yates(stream_rng(seed, "pile", game_index), range(1, 49))
        kings = fisher_yates(stream_rng(seed, "pick_order", game_index), [(0, 0), (0, 1), (1, 0), (1, 1)])
        deals.append((sorted(order[:4]), order[4:24], sorted(order[24:]), kings))
    state = new(2, seed, dynasty=True)
    state.streams = RecordingStreams(seed)
    for game_index, (first_line, pile, set_aside, kings) in enumerate(deals):
        play_until(state, lambda s, g=game_index: s.game_index == g)
        assert [slot.domino for slot in state.current_line] == first_line
        assert (state.draw_pile, state.set_aside, state.pick_order) == (pile, set_aside, kings)
    play_out(state, seed)
    assert state.streams.asked == [("pile", 1), ("pick_order", 1), ("pile", 2), ("pick_order", 2)], \
        "the games draw nothing after their deals"


def test_ed_1_same_seed_same_game_and_replay_reproduces_it():
    state = new(3, 77)
    actions = play_out(state, 5)
    again = new(3, 77)
    for action in actions:
        again.apply(action)
    assert again.view() == state.view()
    views = engines.replay("kingdomino", 3, 77, {}, actions)
    assert views[-1] == state.view() and len(views) == len(actions) + 1
    assert new(3, 78).view() != new(3, 77).view()


def test_ed_2_the_acting_king_s_owner_is_the_only_seat_to_act():
    state = new(2, 9)
    while not state.is_terminal():
        to_act = state.view()["to_act"]
        assert state.current_player() == to_act["seat"]
        if state.phase != INITIAL_PICK:
            assert state.current_line[to_act["line_position"]].king == (to_act["seat"], to_act["king"])
        state.apply(state.legal_actions()[0])
    assert state.current_player() is None and state.view()["to_act"] is None
