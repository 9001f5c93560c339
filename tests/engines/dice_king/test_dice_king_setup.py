"""Setup and determinism: rules DK-2.1 to DK-2.8, ED-5, ED-15 (checklist items 1 and 13)."""

from __future__ import annotations

import json
import random

import pytest
from dice_king_helpers import GAME, events, fresh
from streams_by_hand import below, fisher_yates, stream_rng

import engines
from engines.dice_king.cards import STACK_CARDS


@pytest.mark.parametrize("players", [2, 3, 4])
def test_dk_2_1_each_seat_has_16_markers_and_one_white_gem(players):
    state = fresh(players)
    assert state.markers == [16] * players
    assert state.white == [1] * players and state.gold == [0] * players
    obs = state.observation(0)
    assert [seat["markers_left"] for seat in obs["seats"]] == [16] * players
    assert all(seat["gems"] == {"gold": 0, "white": 1} for seat in obs["seats"])


def test_dk_2_2_and_ed_1_same_map_for_every_player_count():
    maps = [[(f["field"], f["landscape"], f["neighbours"]) for f in fresh(n).view()["map"]] for n in (2, 3, 4)]
    assert maps[0] == maps[1] == maps[2]


def test_dk_2_3_start_fires_with_their_tiles_and_no_owner():
    view = fresh().view()
    for field, tile in ((4, "T12"), (26, "T28")):
        entry = view["map"][field]
        assert entry["tile"] == tile and entry["fire"] is True and entry["owner"] is None
    assert sum(1 for f in view["map"] if f["tile"] is not None) == 2


def test_dk_2_4_gems_on_the_map():
    view = fresh().view()
    gems = {f["field"]: f["gem"] for f in view["map"] if f["gem"]}
    assert gems == {2: "gold", 12: "gold", 17: "gold", 27: "gold",
                    3: "white", 8: "white", 11: "white", 19: "white", 21: "white", 24: "white"}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_dk_2_5_two_removed_tiles_hidden_and_26_in_the_supply(players):
    state = fresh(players, seed=5)
    view = state.view()
    assert len(view["removed_tiles"]) == 2 and len(view["supply"]) == 26
    every = set(view["removed_tiles"]) | set(view["supply"]) | {"T12", "T28"}
    assert every == {f"T{t:02d}" for t in range(30)}
    for seat in range(players):
        obs = state.observation(seat)
        assert "removed_tiles" not in obs and "supply" not in obs and "stack_order" not in obs
        assert obs["tiles"]["supply_count"] == 26 and obs["tiles"]["removed_count"] == 2
        text = json.dumps(obs)
        assert not any(tile in text for tile in view["removed_tiles"] + view["supply"])


@pytest.mark.parametrize(("players", "white"), [(2, 10), (3, 9), (4, 8)])
def test_dk_2_6_general_supply(players, white):
    assert fresh(players).observation(0)["general_supply"] == {"gold": 2, "white": white, "fires": 13}


def test_dk_2_7_each_stack_shuffled_separately_with_its_top_card_on_display():
    state = fresh(seed=9)
    obs = state.observation(0)
    for entry in obs["display"]:
        stack = entry["stack"]
        assert entry["card"] == state.stacks[stack][0]
        assert sorted([entry["card"]] + obs["stack_remaining"][str(stack)]) == list(STACK_CARDS[stack])
    tops = {tuple(fresh(seed=s).stacks[1][:3]) for s in range(10)}
    assert len(tops) > 1


def test_dk_2_8_and_ed_5_most_sixes_starts_and_ties_roll_again():
    for seed in range(40):
        state = fresh(4, seed)
        (roll_off,) = events(state, "start_roll_off")
        last = roll_off["rounds"][-1]
        sixes = {roll["seat"]: roll["values"].count(6) for roll in last}
        assert sixes[state.start_player] > max(v for s, v in sixes.items() if s != state.start_player)
        for earlier, later in zip(roll_off["rounds"], roll_off["rounds"][1:]):
            best = max(roll["values"].count(6) for roll in earlier)
            assert [r["seat"] for r in later] == [r["seat"] for r in earlier if r["values"].count(6) == best]
        assert state.active == state.start_player == roll_off["start_player"]


def hand_deal(players: int, seed: int) -> dict:
    """ED-15 computed by hand from the named streams: stacks, tiles, roll-off and the first roll."""
    stacks = {stack: fisher_yates(stream_rng(seed, "stack", stack), sorted(STACK_CARDS[stack]))
              for stack in range(1, 6)}
    tiles = fisher_yates(stream_rng(seed, "supply"), [t for t in range(30) if t not in (12, 28)])
    seats = list(range(players))
    rounds = 0
    while True:
        rolls = {seat: stream_rng(seed, "roll_off", rounds, seat) for seat in seats}
        sixes = {seat: [1 + below(rng, 6) for _ in range(6)].count(6) for seat, rng in rolls.items()}
        best = max(sixes.values())
        seats = [seat for seat in seats if sixes[seat] == best]
        rounds += 1
        if len(seats) == 1:
            break
    dice = stream_rng(seed, "dice", 0)  # round 0, whose block 0 is the start player's first turn
    first_roll = [1 + below(dice, 6) for _ in range(6)]
    return {"stacks": stacks, "removed": sorted(tiles[:2]), "supply": sorted(tiles[2:]), "start": seats[0],
            "first_roll": first_roll}


@pytest.mark.parametrize(("players", "seed"), [(2, 0), (3, 17), (4, 12345)])
def test_ed_15_draw_order_matches_a_hand_computation(players, seed):
    expected = hand_deal(players, seed)
    state = fresh(players, seed)
    assert state.stacks == expected["stacks"]
    assert state.removed == expected["removed"] and state.supply == expected["supply"]
    assert state.start_player == expected["start"]
    assert state.dice == expected["first_roll"]


def test_ed_15_each_turn_of_a_round_reads_its_own_block_of_the_round_streams():
    state = fresh(3, seed=19)
    dice = stream_rng(19, "dice", 1)
    blocks = [[1 + below(dice, 6) for _ in range(18)] for _ in range(3)]
    while state.turn < 4:  # stop at once and take the first card or alarm offered: short turns
        state.apply(state.legal_actions()[-1] if state.phase == "roll" else state.legal_actions()[0])
    assert state.turn == 4 and state.dice == blocks[1][:6]  # round 1, place 1
    assert state.active == (state.start_player + 1) % 3


def test_ed_15_a_re_rolled_die_shows_its_own_next_throw():
    state = fresh(3, seed=8)
    dice = stream_rng(8, "dice", 0)
    throws = [1 + below(dice, 6) for _ in range(18)]  # throw j of die d at 6j + d
    assert state.dice == throws[:6]
    state.apply({"reroll": [1, 4]})
    assert state.dice == [throws[0], throws[6 + 1], throws[2], throws[3], throws[6 + 4], throws[5]]
    state.apply({"reroll": [0, 4]})  # die 0's second throw, die 4's third
    assert state.dice == [throws[6 + 0], throws[6 + 1], throws[2], throws[3], throws[12 + 4], throws[5]]


def tickets(seed: int, round_: int, block: int) -> list[float]:
    """Block ``block`` of stream ("tile", round): draw k of the round's turn i is block 3 * i + k."""
    rng = stream_rng(seed, "tile", round_)
    numbers = [rng.random() for _ in range(30 * (block + 1))]
    return numbers[30 * block:]


def test_ed_15_a_tile_draw_takes_the_supply_tile_with_the_smallest_ticket():
    state = fresh(3, seed=4)
    supply = list(state.supply)
    state.pending = {"effect": "DWARF", "card": "S1-01", "drawn": [], "to_place": 1, "tiers": 2}
    state._draw(2)
    first = min(supply, key=tickets(4, 0, 0).__getitem__)
    second = min((tile for tile in supply if tile != first), key=tickets(4, 0, 1).__getitem__)
    assert state.pending["drawn"] == [first, second]
    assert sorted(state.supply + [first, second]) == supply


def test_ed_15_a_tile_draw_does_not_depend_on_tiles_it_does_not_pick():
    # The draw's tile is the smallest ticket of the supply: taking other tiles out changes nothing.
    state = fresh(2, seed=30)
    winner = min(state.supply, key=tickets(30, 0, 0).__getitem__)
    for smaller in (state.supply[::2], state.supply[1::2], [winner]):
        twin = state.clone()
        twin.supply = sorted(set(smaller) | {winner})
        twin.pending = {"effect": "THIEF_GEM", "card": "S2-02", "drawn": [], "to_place": 1}
        twin._draw(1)
        assert twin.pending["drawn"] == [winner]


def test_checklist_13_same_seed_and_actions_give_the_same_views():
    state = fresh(3, seed=21)
    chooser = random.Random(2)
    actions = []
    while not state.is_terminal():
        action = chooser.choice(state.legal_actions())
        state.apply(action)
        actions.append(action)
    first = engines.replay("dice_king", 3, 21, None, actions)
    second = engines.replay("dice_king", 3, 21, {}, actions)
    assert first == second and first[-1] == state.view()


def test_game_has_no_options_and_refuses_any():
    assert GAME.default_options() == {} and GAME.variants() == [(2, {}), (3, {}), (4, {})]
    with pytest.raises(ValueError, match="unknown option"):
        GAME.new_state(2, 1, {"map": "real"})
    with pytest.raises(ValueError, match="2 to 4"):
        GAME.new_state(5, 1)
