"""``engines.draftosaurus.board``: the printed components as data and ``die_allows``.

The setup tests check the bag and hands against the rules; here: the lookups derived from the pens (by id,
board order), each side's pens and their capacities, the pyramid's geometry, the points tables, and each
die face's test in ``die_allows`` against a zoo.
"""

from __future__ import annotations

import pytest

from engines.draftosaurus.board import (
    BOARD_ORDER,
    DIFFERENCES_POINTS,
    FACES,
    FOOD_COURT,
    GRASSLANDS,
    PEN_BY_ID,
    PENS,
    PYRAMID,
    PYRAMID_CELL_POINTS,
    PYRAMID_CELLS,
    PYRAMID_NEIGHBOURS,
    PYRAMID_ROWS,
    RESTROOMS,
    RIVER,
    SAMENESS_POINTS,
    SETUPS,
    SPECIES,
    SPECIES_INDEX,
    T_REX,
    WOODLANDS,
    Pen,
    die_allows,
)
from engines.draftosaurus.zoo import Zoo


def test_species_and_faces_in_their_canonical_orders():
    assert SPECIES[0] == T_REX and len(SPECIES) == len(set(SPECIES)) == 6
    assert [SPECIES_INDEX[species] for species in SPECIES] == list(range(6))
    assert len(FACES) == 6 and {WOODLANDS, GRASSLANDS, FOOD_COURT, RESTROOMS} < set(FACES)


@pytest.mark.parametrize("side", ["summer", "winter"])
def test_each_side_has_six_pens_split_by_area_and_by_river_side(side):
    pens = PENS[side]
    assert len(pens) == 6 and all(isinstance(pen, Pen) for pen in pens)
    assert sum(pen.area == WOODLANDS for pen in pens) == 3 and sum(pen.side == FOOD_COURT for pen in pens) == 3
    assert BOARD_ORDER[side] == tuple(pen.id for pen in pens) + (RIVER,)
    assert all(PEN_BY_ID[pen.id] is pen for pen in pens)


def test_pen_capacities():
    assert {pen.id: pen.capacity for pen in PENS["summer"]} == {
        "forest_of_sameness": 6, "meadow_of_differences": 6, "prairie_of_love": 6, "woody_trio": 3,
        "king_of_the_jungle": 1, "solitary_island": 1}
    assert PEN_BY_ID[PYRAMID].capacity == 6 and PEN_BY_ID["lovers_bridge_left"].capacity > 6 * 12


def test_the_pyramid_has_three_rows_and_symmetric_touching_pairs():
    assert tuple(cell for row in PYRAMID_ROWS for cell in row) == PYRAMID_CELLS
    assert set(PYRAMID_CELL_POINTS) == set(PYRAMID_CELLS)
    pairs = {frozenset((cell, other)) for cell, others in PYRAMID_NEIGHBOURS.items() for other in others}
    assert len(pairs) == 9
    assert all(cell in PYRAMID_NEIGHBOURS[other] for cell, others in PYRAMID_NEIGHBOURS.items() for other in others)


def test_points_tables_grow_with_the_count():
    assert SAMENESS_POINTS[0] == DIFFERENCES_POINTS[0] == 0 and len(SAMENESS_POINTS) == len(DIFFERENCES_POINTS) == 7
    assert list(SAMENESS_POINTS) == sorted(SAMENESS_POINTS) and list(DIFFERENCES_POINTS) == sorted(DIFFERENCES_POINTS)


def test_setups_for_two_to_five_players():
    assert sorted(SETUPS) == [2, 3, 4, 5]
    for setup in SETUPS.values():
        assert setup.hand_size == 6 and setup.rounds * setup.turns_per_round == 12


@pytest.mark.parametrize(("face", "pen", "allowed"), [
    (WOODLANDS, "woody_trio", True), (WOODLANDS, "solitary_island", False),
    (GRASSLANDS, "meadow_of_differences", True), (GRASSLANDS, "forest_of_sameness", False),
    (FOOD_COURT, "prairie_of_love", True), (FOOD_COURT, "king_of_the_jungle", False),
    (RESTROOMS, "king_of_the_jungle", True), (RESTROOMS, "woody_trio", False),
])
def test_area_and_side_faces_select_pens(face, pen, allowed):
    assert die_allows(face, PEN_BY_ID[pen], Zoo("summer")) is allowed


def test_empty_pen_and_no_t_rex_faces_look_at_the_zoo():
    zoo = Zoo("summer")
    zoo.place(T_REX, "woody_trio")
    zoo.place("triceratops", "prairie_of_love")
    trio, prairie, island = PEN_BY_ID["woody_trio"], PEN_BY_ID["prairie_of_love"], PEN_BY_ID["solitary_island"]
    assert [die_allows("empty_pen", pen, zoo) for pen in (trio, prairie, island)] == [False, False, True]
    assert [die_allows("no_t_rex", pen, zoo) for pen in (trio, prairie, island)] == [False, True, True]


def test_the_pyramid_is_judged_as_a_whole():
    zoo = Zoo("winter")
    zoo.place(T_REX, PYRAMID, "B2")
    assert not die_allows("empty_pen", PEN_BY_ID[PYRAMID], zoo)
    assert not die_allows("no_t_rex", PEN_BY_ID[PYRAMID], zoo)
    assert die_allows("no_t_rex", PEN_BY_ID["lovers_bridge_right"], zoo)
