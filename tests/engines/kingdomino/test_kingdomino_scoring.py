"""KD-6 end, KD-7 scoring with section 7's worked example, KD-8 tie-breakers, KD-9.1/9.2 bonuses,
ED-7, ED-8, ED-10, ED-11."""

from kingdomino_helpers import (
    EAST,
    NORTH,
    SOUTH,
    WEST,
    WORKED_EXAMPLE,
    build_kingdom,
    finished,
    new,
    play_out,
)

from engines.kingdomino.kingdom import GridGeometry, Kingdom
from engines.kingdomino.state import PLACE

TRANSPOSE = {EAST: SOUTH, SOUTH: EAST, WEST: NORTH, NORTH: WEST}
# The worked example mirrored in its diagonal: the same properties, so the same score and tie-breakers.
MIRRORED_EXAMPLE = [(n, c, r, TRANSPOSE[o]) for n, r, c, o in WORKED_EXAMPLE]
# A 5 x 5 span with the castle in a corner (rows 4-8, columns 4-8).
CORNER_CASTLE = [(10, 4, 5, EAST), (11, 4, 7, EAST), (3, 5, 4, SOUTH), (4, 7, 4, SOUTH)]

WORKED_GRID = [
    ["G0", "G0", "S1", "G0", "G0"],
    ["G2", "G0", "S0", "S0", "S2"],
    ["L0", "W1", "C", "S0", "M2"],
    ["W1", "W0", "W0", "W0", "W0"],
    ["M0", "F1", "M3", "M2", "W0"],
]


def scored(base, largest, crowns):
    """A kingdom whose scoring summary is given, for ranking tests that need exact values."""
    kingdom = Kingdom(GridGeometry.of(5))
    kingdom._summary = (base, largest, crowns)
    return kingdom


def test_kd_6_1_the_game_ends_after_the_last_round_with_the_pile_resolved():
    for players in (2, 3, 4):
        state = new(players, 4)
        play_out(state, 4)
        assert state.is_terminal() and state.draw_pile == []
        assert state.round == state.setup.rounds_total
        resolved = sum(len(k.placed) + len(k.discarded) for k in state.kingdoms)
        assert resolved == state.setup.dominoes_used


def test_kd_6_2_a_kingdom_may_end_incomplete_after_discards():
    for seed in range(200):
        state = new(2, seed)
        play_out(state, seed)
        holed = [k for k in state.kingdoms if k.discarded]
        if holed:
            break
    kingdom = holed[0]
    assert sum(1 for row in kingdom.grid() for cell in row if cell) < 25
    assert state.scores() == [k.summary()[0] for k in state.kingdoms]


def test_kd_7_worked_example_replays_legally_into_the_drawn_kingdom():
    kingdom = build_kingdom(WORKED_EXAMPLE)
    grid = kingdom.grid()
    assert [row[2:7] for row in grid[2:7]] == WORKED_GRID
    assert sum(1 for row in grid for cell in row if cell) == 25


def test_kd_7_1_properties_are_edge_joined_same_terrain_and_the_castle_joins_nothing():
    # Wheat on both sides of the castle: two properties of 1 square and 1 crown each, not one of 2 x 2.
    kingdom = build_kingdom([(21, 4, 5, EAST), (19, 4, 3, WEST)])
    assert kingdom.summary() == (2, 1, 2)
    # In the worked example the three mine groups stay apart: 10 + 2 + 0.
    mines = build_kingdom(WORKED_EXAMPLE)
    values = []
    for cells in ([(6, 4), (6, 5)], [(4, 6)], [(6, 2)]):
        squares = len(cells)
        crowns = sum(int(mines.grid()[r][c][1:]) for r, c in cells)
        values.append(squares * crowns)
    assert values == [10, 2, 0]


def test_kd_7_2_a_property_is_worth_squares_times_crowns_and_zero_without_crowns():
    assert build_kingdom([(1, 4, 5, EAST), (2, 4, 7, EAST)]).summary() == (0, 4, 0)
    assert build_kingdom([(1, 4, 5, EAST), (21, 4, 7, EAST)]).summary() == (3, 3, 1)
    assert build_kingdom([(1, 4, 5, EAST), (21, 4, 7, EAST), (19, 5, 5, EAST)]).summary() == (8, 4, 2)


def test_kd_7_3_worked_example_base_score_is_50():
    assert build_kingdom(WORKED_EXAMPLE).summary() == (50, 7, 15)


def test_kd_7_4_scores_are_base_during_play_and_add_bonuses_at_the_end():
    state = finished([build_kingdom(WORKED_EXAMPLE), build_kingdom([])], middle_kingdom=True, harmony=True)
    assert state.scores() == [65, 0]
    state.phase = PLACE
    assert state.scores() == [50, 0]


def test_kd_8_1_the_highest_score_wins():
    state = finished([scored(40, 9, 9), scored(50, 1, 1), scored(45, 5, 5)])
    assert state.ranking() == [3, 1, 2]


def test_kd_8_2_tie_broken_by_largest_property():
    state = finished([scored(50, 7, 13), scored(50, 6, 15)])
    assert state.ranking() == [1, 2]


def test_kd_8_2_the_largest_property_counts_even_without_crowns():
    # Both score 1 from a lone crowned wheat; A's 4-square wheat field has no crown yet still decides.
    a = build_kingdom([(1, 4, 5, EAST), (2, 3, 5, EAST), (19, 4, 3, WEST)])
    b = build_kingdom([(19, 4, 3, WEST), (3, 4, 5, EAST)])
    assert (a.summary(), b.summary()) == ((1, 4, 1), (1, 2, 1))
    assert finished([a, b]).ranking() == [1, 2]


def test_kd_8_3_then_by_crowns():
    state = finished([scored(50, 7, 15), scored(50, 7, 13)])
    assert state.ranking() == [1, 2]


def test_kd_8_4_still_tied_seats_share_the_place():
    state = finished([build_kingdom(WORKED_EXAMPLE), build_kingdom(MIRRORED_EXAMPLE), scored(60, 1, 1)])
    assert state.scores() == [50, 50, 60]
    assert state.ranking() == [2, 2, 1]
    state = finished([scored(50, 7, 15), scored(50, 7, 15), scored(10, 1, 1)])
    assert state.ranking() == [1, 1, 3]


def test_kd_8_5_rulebook_order_largest_property_before_crowns():
    state = finished([scored(50, 6, 20), scored(50, 7, 1)])
    assert state.ranking() == [2, 1]


def test_kd_9_1_middle_kingdom_adds_10_on_the_worked_example():
    state = finished([build_kingdom(WORKED_EXAMPLE), build_kingdom(CORNER_CASTLE)], middle_kingdom=True)
    assert state.scores() == [60, 0]
    assert finished([build_kingdom(WORKED_EXAMPLE)] * 2).scores() == [50, 50], "off by default"


def test_kd_9_2_harmony_adds_5_on_the_worked_example():
    state = finished([build_kingdom(WORKED_EXAMPLE), build_kingdom(CORNER_CASTLE)], harmony=True)
    assert state.scores() == [55, 0]


def test_kd_9_1_and_9_2_combined_give_65():
    state = finished([build_kingdom(WORKED_EXAMPLE), build_kingdom(MIRRORED_EXAMPLE)],
                     middle_kingdom=True, harmony=True)
    assert state.scores() == [65, 65]


def test_ed_7_middle_kingdom_needs_exactly_k_by_k_centred_on_the_castle():
    middle = {"middle_kingdom": True}
    assert build_kingdom(WORKED_EXAMPLE).bonus(middle) == 10
    cross = build_kingdom([(10, 4, 5, EAST), (11, 4, 3, WEST), (3, 3, 4, NORTH), (4, 5, 4, SOUTH)])
    assert cross.bonus(middle) == 10, "spans 5 x 5 centred on the castle, holes and all"
    assert build_kingdom(CORNER_CASTLE).bonus(middle) == 0, "5 x 5 but the castle in a corner"
    assert build_kingdom([]).bonus(middle) == 0, "a lone castle"
    four_wide = build_kingdom([(10, 4, 5, EAST), (3, 3, 4, NORTH), (4, 5, 4, SOUTH), (19, 4, 3, NORTH)])
    assert (four_wide.min_c, four_wide.max_c, four_wide.min_r, four_wide.max_r) == (3, 6, 2, 6)
    assert four_wide.bonus(middle) == 0, "4 wide has no centre column"


def test_ed_8_harmony_needs_a_full_square_and_no_discard():
    kingdom = build_kingdom(WORKED_EXAMPLE)
    assert kingdom.bonus({"harmony": True}) == 5
    kingdom.discard(13)
    assert kingdom.bonus({"harmony": True}) == 0
    assert build_kingdom(WORKED_EXAMPLE[:-1]).bonus({"harmony": True}) == 0


def test_ed_10_dynasty_totals_share_a_place_without_tie_breakers():
    state = finished([scored(50, 7, 15), scored(40, 1, 1)], dynasty=True)
    state.game_index = 2
    state.match_scores = [100, 110]
    assert state.scores() == [150, 150]
    assert state.ranking() == [1, 1]


def test_ed_11_running_scores_leave_bonuses_out_until_the_end():
    state = new(2, 0, middle_kingdom=True, harmony=True)
    state.kingdoms = [build_kingdom(WORKED_EXAMPLE), build_kingdom([])]
    assert not state.is_terminal()
    assert state.scores() == [50, 0]
