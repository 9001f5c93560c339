"""``engines.dice_king.scoring``: areas, field points and the DK-9.2 totals, on hand-made ownerships.

``owner`` has one entry per field (``-1`` for nobody); fields are ``6 * row + col`` on the 5 x 6 map.
"""

from __future__ import annotations

from engines.dice_king.board import FIELD_COUNT
from engines.dice_king.scoring import (
    POINTS_FIRE_MAJORITY,
    POINTS_GOLD,
    POINTS_LARGEST_AREA_FIELD,
    POINTS_OTHER_FIELD,
    POINTS_WHITE,
    areas,
    field_points,
    seat_scores,
)


def owned(**seats: list[int]) -> list[int]:
    """An ownership table: ``owned(s0=[...], s1=[...])`` gives seat 0 and seat 1 those fields."""
    owner = [-1] * FIELD_COUNT
    for name, fields in seats.items():
        for field in fields:
            owner[field] = int(name[1:])
    return owner


def test_areas_are_groups_of_adjacent_own_fields_largest_first():
    owner = owned(s0=[0, 1, 7, 20, 29, 28, 22], s1=[2])
    assert areas(owner, 0) == [[0, 1, 7], [22, 28, 29], [20]]
    assert areas(owner, 1) == [[2]]
    assert areas(owner, 2) == []


def test_fields_touching_only_diagonally_are_separate_areas():
    assert areas(owned(s0=[0, 7]), 0) == [[0], [7]]


def test_equal_areas_are_ordered_by_their_lowest_field():
    assert areas(owned(s0=[24, 25, 4, 5]), 0) == [[4, 5], [24, 25]]


def test_field_points_count_the_largest_area_once():
    owner = owned(s0=[0, 1, 7, 22, 28, 29, 20])
    assert field_points(owner, 0) == POINTS_LARGEST_AREA_FIELD * 3 + POINTS_OTHER_FIELD * 4 == 13
    assert field_points(owner, 1) == 0
    assert field_points(owned(s1=[14]), 1) == 3


def test_seat_scores_add_gems_and_the_fire_majority():
    owner = owned(s0=[0, 1], s1=[29])
    assert seat_scores(owner, fires=[2, 1], gold=[1, 0], white=[0, 2]) == [
        6 + POINTS_GOLD + POINTS_FIRE_MAJORITY, 3 + 2 * POINTS_WHITE]


def test_a_tied_fire_majority_scores_for_every_tied_seat():
    owner = owned()
    assert seat_scores(owner, fires=[3, 3, 1], gold=[0, 0, 0], white=[0, 0, 0]) == [4, 4, 0]


def test_no_fires_means_no_majority():
    assert seat_scores(owned(), fires=[0, 0], gold=[0, 0], white=[0, 0]) == [0, 0]
