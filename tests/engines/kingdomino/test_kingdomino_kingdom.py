"""``engines.kingdomino.kingdom``: the frame's geometry, incremental legal placements, placing, scoring
and the bonuses, on kingdoms built by hand.

The incremental generator is checked against a literal reading of KD-4.2 to KD-4.4 on random kingdoms;
the worked example of the rules and the tie-breakers are in ``test_kingdomino_scoring.py``.
"""

from __future__ import annotations

import copy
import random

import pytest
from kingdomino_helpers import EAST, NORTH, SOUTH, WEST, WORKED_EXAMPLE, build_kingdom

from engines.kingdomino.dominoes import CASTLE, DOMINOES, EMPTY, NUMBERS
from engines.kingdomino.kingdom import (
    DIRECTIONS,
    GridGeometry,
    Kingdom,
    bonus_points,
    is_harmony,
    is_middle_kingdom,
)


@pytest.mark.parametrize("k", [5, 7])
def test_the_frame_has_the_castle_in_its_centre(k):
    frame = GridGeometry.of(k)
    assert frame is GridGeometry.of(k) and frame.size == 2 * k - 1 and frame.cells == frame.size ** 2
    assert (frame.row[frame.castle], frame.col[frame.castle]) == (k - 1, k - 1)
    assert frame.neighbour[0] == (1, frame.size, -1, -1)  # east, south, west, north of the corner
    assert len(frame.adjacent[frame.castle]) == 4 and len(frame.adjacent[0]) == 2
    for key in range(frame.cells * 4):
        assert frame.key(*frame.triple(key)) == key
    assert DIRECTIONS[EAST] == (0, 1) and DIRECTIONS[NORTH] == (-1, 0)


def literal_legal(kingdom: Kingdom, n: int) -> list[int]:
    """KD-4.2 to KD-4.4 read literally: both cells empty and on the frame, the kingdom within K x K
    afterwards, and one square touching the castle or its own terrain."""
    frame, terrain = kingdom.frame, kingdom.terrain
    ta, _, tb, _ = DOMINOES[n]
    occupied = [cell for cell in range(frame.cells) if terrain[cell] != EMPTY]
    keys = []
    for a in range(frame.cells):
        for o in range(4):
            b = frame.neighbour[a][o]
            if b < 0 or terrain[a] != EMPTY or terrain[b] != EMPTY:
                continue
            cells = occupied + [a, b]
            rows, cols = [frame.row[c] for c in cells], [frame.col[c] for c in cells]
            if max(rows) - min(rows) >= frame.k or max(cols) - min(cols) >= frame.k:
                continue
            if any(terrain[q] in (CASTLE, t) for cell, t in ((a, ta), (b, tb)) for q in frame.adjacent[cell]):
                keys.append(a * 4 + o)
    return keys


@pytest.mark.parametrize("seed", range(6))
def test_legal_keys_match_the_rules_read_literally(seed):
    chooser = random.Random(seed)
    kingdom = Kingdom(GridGeometry.of(5))
    for n in chooser.sample(NUMBERS, 20):
        keys = kingdom.legal_keys(n)
        assert keys == literal_legal(kingdom, n)
        if keys:
            kingdom.place(n, chooser.choice(keys))
        else:
            kingdom.discard(n)
    assert len(kingdom.placed) + len(kingdom.discarded) == 20


def test_placing_writes_both_squares_and_records_the_placement():
    kingdom = Kingdom(GridGeometry.of(5))
    kingdom.place(46, kingdom.frame.key(4, 5, EAST))  # S0 M2 east of the castle
    grid = kingdom.grid()
    assert grid[4][4] == "C" and grid[4][5] == "S0" and grid[4][6] == "M2"
    assert kingdom.placed == [[46, 4, 5, EAST]] and kingdom.summary() == (2, 1, 2)  # one mine square with 2 crowns
    assert kingdom.frame.key(4, 5, SOUTH) not in kingdom.legal_keys(46)


def test_the_worked_example_scores_50_with_its_largest_property_and_crowns():
    kingdom = build_kingdom(WORKED_EXAMPLE)
    base, largest, crowns = kingdom.summary()
    assert base == 50 and largest >= 1 and crowns == sum(kingdom.crowns)
    data = kingdom.to_json(2)
    assert data["seat"] == 2 and data["base_score"] == 50 and len(data["placed"]) == len(WORKED_EXAMPLE)
    assert is_middle_kingdom(data["grid"], 5)


def test_a_copy_and_a_deep_copy_are_independent():
    kingdom = build_kingdom(WORKED_EXAMPLE[:3])
    for twin in (kingdom.copy(), copy.deepcopy(kingdom)):
        twin.place(WORKED_EXAMPLE[3][0], twin.frame.key(*WORKED_EXAMPLE[3][1:]))
        twin.discard(5)
        assert len(kingdom.placed) == 3 and kingdom.discarded == [] and len(twin.placed) == 4
    assert kingdom.summary() == build_kingdom(WORKED_EXAMPLE[:3]).summary()


def test_a_castle_alone_scores_nothing_and_earns_no_bonus():
    kingdom = Kingdom(GridGeometry.of(5))
    assert kingdom.summary() == (0, 0, 0)
    assert not is_middle_kingdom(kingdom.grid(), 5) and not is_harmony(kingdom.grid(), [], 5)


def test_harmony_needs_every_cell_and_no_discard():
    full = [["W0"] * 5 for _ in range(5)]
    assert is_harmony(full, [], 5) and not is_harmony(full, [3], 5)
    full[0][0] = ""
    assert not is_harmony(full, [], 5)


def test_middle_kingdom_needs_the_castle_in_the_centre_of_a_full_span():
    grid = [[""] * 9 for _ in range(9)]
    for r in range(2, 7):
        grid[r][2] = grid[r][6] = "W0"
    for c in range(2, 7):
        grid[2][c] = grid[6][c] = "W0"
    grid[4][4] = "C"
    assert is_middle_kingdom(grid, 5)
    shifted = [[""] + line[:-1] for line in grid]
    shifted[4][4] = "C"
    assert not is_middle_kingdom(shifted, 5)


def test_bonus_points_count_only_the_options_that_are_on():
    grid = [[""] * 9 for _ in range(2)] + [[""] * 2 + ["W0"] * 5 + [""] * 2 for _ in range(5)] + [[""] * 9] * 2
    grid[4][4] = "C"
    assert bonus_points(grid, [], 5, {}) == 0
    assert bonus_points(grid, [], 5, {"middle_kingdom": True}) == 10
    assert bonus_points(grid, [], 5, {"harmony": True}) == 5
    assert bonus_points(grid, [], 5, {"middle_kingdom": True, "harmony": True}) == 15
    assert bonus_points(grid, [1], 5, {"middle_kingdom": True, "harmony": True}) == 10
    assert build_kingdom(WORKED_EXAMPLE).bonus({"middle_kingdom": True}) == 10


def test_west_and_north_keys_point_the_other_way():
    kingdom = Kingdom(GridGeometry.of(5))
    frame = kingdom.frame
    kingdom.place(1, frame.key(4, 3, WEST))
    assert kingdom.grid()[4][3] == "W0" and kingdom.grid()[4][2] == "W0"
    kingdom.place(3, frame.key(3, 4, NORTH))
    assert kingdom.grid()[3][4] == "F0" and kingdom.grid()[2][4] == "F0"
