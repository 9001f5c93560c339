"""KD-1: the domino set, terrains and pieces; KD-5.2: every number once."""

from collections import Counter

from kingdomino_helpers import new

from engines.kingdomino.dominoes import (
    CASTLE,
    DOMINOES,
    NUMBERS,
    TERRAIN_LETTER,
    TERRAIN_NAME,
    TERRAINS,
    domino_json,
)
from engines.kingdomino.state import COLOURS

# KD-1.5 checksum table: terrain -> (squares, dominoes showing it, squares with 0/1/2/3 crowns, crowns).
CHECKSUMS = {
    "wheat": (26, 24, (21, 5, 0, 0), 5),
    "forest": (22, 18, (16, 6, 0, 0), 6),
    "lake": (18, 15, (12, 6, 0, 0), 6),
    "grassland": (14, 12, (10, 2, 2, 0), 6),
    "swamp": (10, 9, (6, 2, 2, 0), 6),
    "mine": (6, 6, (1, 1, 3, 1), 10),
}


def squares():
    for n in NUMBERS:
        ta, ca, tb, cb = DOMINOES[n]
        yield n, TERRAIN_NAME[ta], ca
        yield n, TERRAIN_NAME[tb], cb


def test_kd_1_1_48_dominoes_of_two_squares_some_with_equal_terrains():
    assert NUMBERS == tuple(range(1, 49))
    assert all(len(DOMINOES[n]) == 4 for n in NUMBERS)
    same = [n for n in NUMBERS if DOMINOES[n][0] == DOMINOES[n][2]]
    assert same == list(range(1, 13))
    assert all(0 <= crowns <= 3 for _, _, crowns in squares())


def test_kd_1_2_six_terrains_with_engine_ids():
    assert sorted(TERRAIN_NAME[t] for t in TERRAINS) == sorted(
        ["wheat", "forest", "lake", "grassland", "swamp", "mine"])
    assert [TERRAIN_LETTER[t] for t in TERRAINS] == ["W", "F", "L", "G", "S", "M"]
    assert {terrain for _, terrain, _ in squares()} == set(TERRAIN_NAME.values())


def test_kd_1_3_each_seat_has_a_castle_on_a_blank_starting_tile_and_a_colour():
    state = new(4)
    for kingdom in state.kingdoms:
        assert kingdom.terrain.count(CASTLE) == 1
        assert kingdom.terrain[kingdom.frame.castle] == CASTLE
        assert kingdom.crowns[kingdom.frame.castle] == 0
    assert COLOURS == ("pink", "yellow", "green", "blue")


def test_kd_1_4_table_spot_checks_in_json_shape():
    assert domino_json(1) == {"n": 1, "a": ["wheat", 0], "b": ["wheat", 0]}
    assert domino_json(17) == {"n": 17, "a": ["forest", 0], "b": ["lake", 0]}
    assert domino_json(40) == {"n": 40, "a": ["mine", 1], "b": ["wheat", 0]}
    assert domino_json(46) == {"n": 46, "a": ["swamp", 0], "b": ["mine", 2]}
    assert domino_json(48) == {"n": 48, "a": ["wheat", 0], "b": ["mine", 3]}
    codes = "".join(f"{TERRAIN_LETTER[DOMINOES[n][0]]}{DOMINOES[n][1]}" for n in (19, 30, 36, 45))
    assert codes == "W1L1W0M2"


def test_kd_1_5_checksums_per_terrain_and_overall():
    square_count = Counter(terrain for _, terrain, _ in squares())
    domino_count = Counter(terrain for n in NUMBERS for terrain in {TERRAIN_NAME[DOMINOES[n][0]],
                                                                     TERRAIN_NAME[DOMINOES[n][2]]})
    for terrain, (count, dominoes, by_crowns, total) in CHECKSUMS.items():
        crowns = [c for _, t, c in squares() if t == terrain]
        assert square_count[terrain] == count, terrain
        assert domino_count[terrain] == dominoes, terrain
        assert tuple(crowns.count(k) for k in range(4)) == by_crowns, terrain
        assert sum(crowns) == total, terrain
    all_crowns = [c for _, _, c in squares()]
    assert len(all_crowns) == 96 and sum(all_crowns) == 39
    assert tuple(all_crowns.count(k) for k in range(4)) == (66, 22, 7, 1)
    assert not any(DOMINOES[n][1] and DOMINOES[n][3] for n in NUMBERS), "crowns on both squares"
    assert not any(DOMINOES[n][1] or DOMINOES[n][3] for n in range(1, 13))


def test_kd_5_2_a_line_never_shows_the_same_number_twice():
    for seed in range(20):
        state = new(4, seed)
        numbers = [slot.domino for slot in state.current_line] + state.draw_pile
        assert sorted(numbers) == list(NUMBERS)
