"""The 48 Kingdomino dominoes and the six terrains (rules KD-1.2 and KD-1.4).

Terrains are small integers inside the engine (``1 … 6``; ``0`` is an empty cell and ``CASTLE`` the
starting tile) and words in every JSON value. ``DOMINOES[n]`` is ``(terrain_a, crowns_a, terrain_b,
crowns_b)`` for domino number ``n``; index 0 is unused so that numbers index directly.
"""

from __future__ import annotations

EMPTY = 0
WHEAT, FOREST, LAKE, GRASSLAND, SWAMP, MINE = 1, 2, 3, 4, 5, 6
CASTLE = 7
TERRAINS = (WHEAT, FOREST, LAKE, GRASSLAND, SWAMP, MINE)

#: Engine id of each terrain, as used in observations (``["forest", 0]``).
TERRAIN_NAME = {WHEAT: "wheat", FOREST: "forest", LAKE: "lake", GRASSLAND: "grassland", SWAMP: "swamp",
                MINE: "mine"}
#: One-letter code of each terrain, as used in grid cells (``"M3"``) and in the rules' domino table.
TERRAIN_LETTER = {WHEAT: "W", FOREST: "F", LAKE: "L", GRASSLAND: "G", SWAMP: "S", MINE: "M"}
_BY_LETTER = {letter: terrain for terrain, letter in TERRAIN_LETTER.items()}

# The table of KD-1.4 in its own code column, one code per domino number 1 … 48.
_CODES = ["W0W0", "W0W0", "F0F0", "F0F0", "F0F0", "F0F0", "L0L0", "L0L0", "L0L0", "G0G0", "G0G0", "S0S0", "W0F0", "W0L0", "W0G0", "W0S0", "F0L0", "F0G0", "W1F0", "W1L0", "W1G0", "W1S0", "W1M0", "F1W0", "F1W0", "F1W0", "F1W0", "F1L0", "F1G0", "L1W0", "L1W0", "L1F0", "L1F0", "L1F0", "L1F0", "W0G1", "L0G1", "W0S1", "G0S1", "M1W0", "W0G2", "L0G2", "W0S2", "G0S2", "M2W0", "S0M2", "S0M2", "W0M3"]


def _decode(code: str) -> tuple[int, int, int, int]:
    return _BY_LETTER[code[0]], int(code[1]), _BY_LETTER[code[2]], int(code[3])


DOMINOES: tuple[tuple[int, int, int, int], ...] = ((EMPTY, 0, EMPTY, 0),) + tuple(_decode(c) for c in _CODES)
NUMBERS = tuple(range(1, len(DOMINOES)))
assert len(NUMBERS) == 48


def domino_json(n: int) -> dict:
    """Domino ``n`` as the rules' JSON shape: ``{"n": 17, "a": ["forest", 0], "b": ["lake", 0]}``."""
    ta, ca, tb, cb = DOMINOES[n]
    return {"n": n, "a": [TERRAIN_NAME[ta], ca], "b": [TERRAIN_NAME[tb], cb]}


def cell_code(terrain: int, crowns: int) -> str:
    """A grid cell as the rules' string: ``""`` empty, ``"C"`` castle, else letter and crowns."""
    if terrain == EMPTY:
        return ""
    if terrain == CASTLE:
        return "C"
    return f"{TERRAIN_LETTER[terrain]}{crowns}"
