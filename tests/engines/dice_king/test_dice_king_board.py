"""``engines.dice_king.board``: the map's derived tables and the public tile ids.

The printed data (layout, neighbours, start fires and gems) is checked against the rules in
``test_dice_king_components.py``; here: the tables derived from it at import and ``tile_name`` /
``tile_number`` with their error cases.
"""

from __future__ import annotations

import pytest

from engines.dice_king.board import (
    COLS,
    DISTANCE,
    FIELD_COUNT,
    FIELD_LANDSCAPE,
    LANDSCAPE_FIELDS,
    LANDSCAPES,
    LAYOUT,
    NEIGHBOURS,
    ROWS,
    TILE_COUNT,
    TILE_LANDSCAPE,
    tile_name,
    tile_number,
)


def test_fields_are_numbered_row_by_row():
    assert (ROWS, COLS, FIELD_COUNT) == (5, 6, 30)
    for row in range(ROWS):
        for col in range(COLS):
            assert FIELD_LANDSCAPE[COLS * row + col] == LAYOUT[row][col]


def test_landscape_fields_list_each_landscapes_fields_ascending():
    assert len(LANDSCAPE_FIELDS) == len(LANDSCAPES)
    for index, fields in enumerate(LANDSCAPE_FIELDS):
        assert list(fields) == sorted(fields)
        assert all(FIELD_LANDSCAPE[field] == LANDSCAPES[index] for field in fields)
    assert sorted(field for fields in LANDSCAPE_FIELDS for field in fields) == list(range(FIELD_COUNT))


def test_tiles_come_in_pairs_per_landscape():
    assert TILE_COUNT == 30 and TILE_LANDSCAPE[0] == TILE_LANDSCAPE[1] == 0 and TILE_LANDSCAPE[29] == 14


def test_distance_is_the_grid_distance_of_the_map():
    for a in range(FIELD_COUNT):
        for b in range(FIELD_COUNT):
            (ra, ca), (rb, cb) = divmod(a, COLS), divmod(b, COLS)
            assert DISTANCE[a][b] == abs(ra - rb) + abs(ca - cb) == DISTANCE[b][a]
    assert all(DISTANCE[a][b] == 1 for a in range(FIELD_COUNT) for b in NEIGHBOURS[a])
    assert DISTANCE[0][29] == 9


@pytest.mark.parametrize(("tile", "name"), [(0, "T00"), (7, "T07"), (29, "T29")])
def test_tile_names_and_numbers_are_inverse(tile, name):
    assert tile_name(tile) == name and tile_number(name) == tile


@pytest.mark.parametrize("name", ["T30", "T99", "t07", "T7", "T007", "X07", "T-1", "T 7", 7, None, ["T07"]])
def test_tile_number_refuses_what_is_not_a_tile_id(name):
    with pytest.raises(ValueError, match="not a tile id"):
        tile_number(name)
