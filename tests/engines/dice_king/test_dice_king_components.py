"""Components and their substitute data: rules DK-1.1 to DK-1.5, ED-1 to ED-4, Appendices A to C
(checklist item 14)."""

from __future__ import annotations

from collections import Counter
from itertools import product

from engines.dice_king import board, cards, dice
from engines.dice_king.cards import CARDS, STACK_CARDS
from engines.dice_king.conditions import parse


def test_dk_1_1_map_has_30_fields_and_each_of_15_landscapes_twice():
    assert board.FIELD_COUNT == 30 and len(board.FIELD_LANDSCAPE) == 30
    counts = Counter(board.FIELD_LANDSCAPE)
    assert len(counts) == 15 and set(counts.values()) == {2}
    assert set(counts) == set(board.LANDSCAPES)


def test_ed_1_each_landscape_once_per_half_and_its_fields_far_apart():
    for fields in board.LANDSCAPE_FIELDS:
        halves = {"A" if field % 6 in board.HALF_A_COLUMNS else "B" for field in fields}
        assert halves == {"A", "B"}
        assert board.DISTANCE[fields[0]][fields[1]] >= 4


def test_ed_1_appendix_a_neighbours_are_symmetric_and_equal_grid_adjacency():
    for field in range(30):
        row, col = divmod(field, 6)
        grid = {6 * r + c for r, c in ((row - 1, col), (row + 1, col), (row, col - 1), (row, col + 1))
                if 0 <= r < 5 and 0 <= c < 6}
        assert set(board.NEIGHBOURS[field]) == grid
        for other in board.NEIGHBOURS[field]:
            assert field in board.NEIGHBOURS[other]


def test_ed_1_appendix_a_field_table_spot_checks():
    expected = {0: "meadow", 4: "swamp", 9: "volcano", 13: "swamp", 17: "forest", 22: "lake", 26: "volcano",
                29: "meadow"}
    for field, landscape in expected.items():
        assert board.FIELD_LANDSCAPE[field] == landscape
    assert board.LANDSCAPE_FIELDS[board.LANDSCAPES.index("vineyard")] == (15, 18)


def test_ed_1_start_fires_and_gems_balanced_between_halves():
    assert board.START_FIRES == {4: 12, 26: 28}
    gold = [f for f, kind in board.START_GEMS.items() if kind == "gold"]
    white = [f for f, kind in board.START_GEMS.items() if kind == "white"]
    assert sorted(gold) == [2, 12, 17, 27] and sorted(white) == [3, 8, 11, 19, 21, 24]
    for group, per_half in ((gold, 2), (white, 3), (list(board.START_FIRES), 1)):
        in_a = sum(1 for field in group if field % 6 in board.HALF_A_COLUMNS)
        assert in_a == per_half and len(group) - in_a == per_half


def test_dk_1_2_and_ed_2_thirty_tiles_two_per_landscape_matching_their_start_fields():
    assert board.TILE_COUNT == 30
    assert Counter(board.TILE_LANDSCAPE) == {k: 2 for k in range(15)}
    assert board.LANDSCAPES[board.TILE_LANDSCAPE[12]] == "swamp" == board.FIELD_LANDSCAPE[4]
    assert board.LANDSCAPES[board.TILE_LANDSCAPE[28]] == "volcano" == board.FIELD_LANDSCAPE[26]
    assert board.tile_name(7) == "T07" and board.tile_number("T07") == 7


def test_dk_1_3_and_ed_3_sixty_cards_in_five_stacks_of_twelve_with_their_effects():
    assert len(CARDS) == 60
    assert {stack: len(ids) for stack, ids in STACK_CARDS.items()} == {s: 12 for s in range(1, 6)}
    effects = {stack: Counter(CARDS[c].effect for c in ids) for stack, ids in STACK_CARDS.items()}
    assert effects[1] == {"DWARF": 12}
    assert effects[2] == {"THIEF_CARD": 6, "THIEF_GEM": 6}
    assert effects[3] == {"TAMER": 12} and effects[4] == {"BRAWLER": 12} and effects[5] == {"LANDOWNER": 12}
    for card in CARDS.values():
        assert parse(card.condition.text) == card.condition
        assert (card.condition.kind == "TIERS") == (card.effect == "DWARF")


def test_ed_3_joker_dice_cover_all_18_pairs_with_no_repeat_within_a_stack():
    jokers = Counter(card.joker for card in CARDS.values())
    assert set(jokers) == set(product("RGB", range(1, 7)))
    fours = {("R", 1), ("G", 2), ("B", 3), ("R", 4), ("G", 5), ("B", 6)}
    assert all(jokers[j] == (4 if j in fours else 3) for j in jokers)
    for ids in STACK_CARDS.values():
        stack_jokers = [CARDS[c].joker for c in ids]
        assert len(set(stack_jokers)) == 12


def test_ed_3_card_table_is_the_only_source_of_card_data():
    assert [row[0] for row in cards.CARD_TABLE] == sorted(CARDS)
    assert CARDS["S2-06"].condition.text == "ORDER(R>B>G)" and CARDS["S2-06"].joker == ("G", 1)


def test_dk_1_4_and_ed_4_dice_checks_of_appendix_c():
    assert len(dice.FACES) == 6
    for faces in dice.FACES:
        assert Counter(faces) == {"R": 2, "G": 2, "B": 2}
    pairs = Counter((faces[v - 1], v) for faces in dice.FACES for v in range(1, 7))
    assert set(pairs.values()) == {2} and len(pairs) == 18
    for colour in "RGB":
        assert sum(v for faces in dice.FACES for v in range(1, 7) if faces[v - 1] == colour) == 42
    assert len(set(dice.FACES)) == 6


def test_ed_4_relabelling_colours_maps_the_dice_set_onto_itself():
    shift = {"R": "G", "G": "B", "B": "R"}
    relabelled = {"".join(shift[c] for c in faces) for faces in dice.FACES}
    assert relabelled == set(dice.FACES)
    assert "".join(shift[c] for c in dice.FACES[0]) == dice.FACES[4]  # D1 -> D5


def test_dk_1_5_component_totals_are_conserved_through_a_game():
    import random

    from dice_king_helpers import fresh

    for players in (2, 4):
        state = fresh(players, seed=11)
        chooser = random.Random(3)
        while not state.is_terminal():
            gold = state.supply_gold + sum(state.gold) + sum(1 for g in state.gem if g == "gold")
            white = state.supply_white + sum(state.white) + sum(1 for g in state.gem if g == "white")
            fires = state.supply_fires + sum(state.fires) + sum(state.fire)
            markers = sum(state.markers) + sum(1 for o in state.owner if o >= 0)
            assert (gold, white, fires, markers) == (6, 18, 15, 16 * players)
            state.apply(chooser.choice(state.legal_actions()))
