"""``engines.carcassonne_dice.faces``: the face table, rotations, the frontier constraint tables and the points.

The tables derived here (``ROTATIONS``, ``ROTATED``, ``FRONTIER_INCREMENTS``, ``FITS``) are what placement
and the frontier of :mod:`engines.carcassonne_dice.plane` rely on; each is checked against its definition.
"""

from __future__ import annotations

import itertools

import pytest

from engines.carcassonne_dice.faces import (
    CATAPULT,
    CITY_FACES,
    EDGE_CODE,
    FACE_BY_ID,
    FACE_ID,
    FACE_NAME,
    FACE_TABLE,
    FITS,
    FRONTIER_INCREMENTS,
    KNIGHT,
    POINTS,
    POW3,
    ROTATED,
    ROTATIONS,
    SIDES,
    STEPS,
    E,
    N,
    S,
    W,
    rotated,
)


def test_the_lookups_agree_with_the_table():
    assert SIDES == 6 and [face.id for face in FACE_TABLE] == [1, 2, 3, 4, 5, 6]
    for face in FACE_TABLE:
        assert FACE_BY_ID[face.id] is face and FACE_ID[face.name] == face.id and FACE_NAME[face.id] == face.name
    assert CITY_FACES == (1, 2, 3, 4)
    assert FACE_NAME[KNIGHT] == "KNIGHT" and FACE_NAME[CATAPULT] == "CATAPULT"
    assert FACE_BY_ID[KNIGHT].edges is None and FACE_BY_ID[CATAPULT].edges is None


def test_steps_point_north_east_south_west_with_y_to_the_north():
    assert (N, E, S, W) == (0, 1, 2, 3)
    assert STEPS[N] == (0, 1) and STEPS[E] == (1, 0) and STEPS[S] == (0, -1) and STEPS[W] == (-1, 0)


@pytest.mark.parametrize(("edges", "r", "expected"), [
    ("CFFF", 0, "CFFF"), ("CFFF", 1, "FCFF"), ("CFFF", 2, "FFCF"), ("CFFF", 3, "FFFC"), ("CCFF", 1, "FCCF"),
    ("NESW", 1, "WNES"), ("NESW", 4, "NESW"), ("NESW", -1, "ESWN"),
])
def test_rotation_is_clockwise_quarter_turns(edges, r, expected):
    assert rotated(edges, r) == expected


def test_rotations_keep_one_of_each_distinct_drawing_with_the_lowest_turn():
    assert [r for r, _ in ROTATIONS[FACE_ID["CAP"]]] == [0, 1, 2, 3]
    assert ROTATIONS[FACE_ID["BAND"]] == ((0, "CFCF"), (1, "FCFC"))
    for face_id in CITY_FACES:
        assert ROTATED[face_id] == tuple(rotated(FACE_BY_ID[face_id].edges, r) for r in range(4))
        assert {code for _, code in ROTATIONS[face_id]} == set(ROTATED[face_id])


def test_frontier_increments_say_what_a_die_shows_to_each_empty_neighbour():
    # The neighbour to the North sees this die's North edge on its own South side (direction 2).
    increments = FRONTIER_INCREMENTS["CFFF"]
    assert increments == (EDGE_CODE["C"] * POW3[S], EDGE_CODE["F"] * POW3[W], EDGE_CODE["F"] * POW3[N],
                          EDGE_CODE["F"] * POW3[E])
    assert set(FRONTIER_INCREMENTS) == {code for face_id in CITY_FACES for code in ROTATED[face_id]}


def constraint(needs: dict[int, str]) -> int:
    """The packed constraint of a cell whose neighbours show ``needs`` (direction -> edge) towards it."""
    return sum(EDGE_CODE[edge] * POW3[d] for d, edge in needs.items())


def test_an_unconstrained_cell_fits_every_distinct_rotation():
    assert len(FITS) == 81
    for face_id in CITY_FACES:
        assert FITS[0][face_id] == tuple(r for r, _ in ROTATIONS[face_id])


@pytest.mark.parametrize(("key", "face"), list(itertools.product(range(81), CITY_FACES)))
def test_fits_lists_exactly_the_rotations_that_match_every_neighbour(key, face):
    needs = {d: key // POW3[d] % 3 for d in range(4)}
    expected = tuple(r for r, code in ROTATIONS[face]
                     if all(not need or need == EDGE_CODE[code[d]] for d, need in needs.items()))
    assert FITS[key][face] == expected


def test_fits_examples():
    city_to_the_north = constraint({N: "C"})
    assert FITS[city_to_the_north][FACE_ID["CAP"]] == (0,)
    assert FITS[city_to_the_north][FACE_ID["BAND"]] == (0,)
    assert FITS[constraint({N: "C", E: "C", S: "C", W: "C"})][FACE_ID["TRIPLE"]] == ()


def test_points_by_size_of_the_largest_closed_city():
    assert POINTS[:3] == (0, 0, 0)
    assert POINTS[3:] == (1, 3, 6, 10, 15, 21, 28)
    assert len(POINTS) == 10
