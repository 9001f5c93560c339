"""``engines.kingdomino.dominoes``: terrain ids, the decoded domino table and the two encodings.

The table's content (checksums per terrain, spot checks against the rules) is tested in
``test_kingdomino_components.py``; here: the ids and names, how each code becomes a tuple, and
``domino_json`` and ``cell_code`` for every kind of cell.
"""

from __future__ import annotations

import pytest

from engines.kingdomino.dominoes import (
    _CODES,
    CASTLE,
    DOMINOES,
    EMPTY,
    FOREST,
    LAKE,
    MINE,
    NUMBERS,
    SWAMP,
    TERRAIN_LETTER,
    TERRAIN_NAME,
    TERRAINS,
    WHEAT,
    _decode,
    cell_code,
    domino_json,
)


def test_terrains_are_one_to_six_between_empty_and_castle():
    assert TERRAINS == (1, 2, 3, 4, 5, 6) and EMPTY == 0 and CASTLE == 7
    assert set(TERRAIN_NAME) == set(TERRAIN_LETTER) == set(TERRAINS)
    assert len(set(TERRAIN_NAME.values())) == len(set(TERRAIN_LETTER.values())) == 6


def test_numbers_index_the_table_directly():
    assert NUMBERS == tuple(range(1, 49)) and len(DOMINOES) == 49
    assert DOMINOES[0] == (EMPTY, 0, EMPTY, 0)
    assert all(DOMINOES[n] == _decode(_CODES[n - 1]) for n in NUMBERS)


@pytest.mark.parametrize(("code", "decoded"), [("W0W0", (WHEAT, 0, WHEAT, 0)), ("F1L0", (FOREST, 1, LAKE, 0)),
                                               ("S0M2", (SWAMP, 0, MINE, 2)), ("W0M3", (WHEAT, 0, MINE, 3))])
def test_codes_decode_to_terrain_and_crowns_of_each_square(code, decoded):
    assert _decode(code) == decoded


def test_a_bad_code_is_refused():
    with pytest.raises(KeyError):
        _decode("X0W0")


def test_domino_json_names_both_squares():
    assert domino_json(1) == {"n": 1, "a": ["wheat", 0], "b": ["wheat", 0]}
    assert domino_json(48) == {"n": 48, "a": ["wheat", 0], "b": ["mine", 3]}
    first, second = domino_json(17), domino_json(17)
    first["a"].append("x")
    assert second["a"] == ["forest", 0]


@pytest.mark.parametrize(("terrain", "crowns", "code"), [(EMPTY, 0, ""), (CASTLE, 0, "C"), (WHEAT, 0, "W0"),
                                                         (MINE, 3, "M3"), (LAKE, 1, "L1")])
def test_cell_codes(terrain, crowns, code):
    assert cell_code(terrain, crowns) == code
