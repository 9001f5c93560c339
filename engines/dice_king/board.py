"""The map, the landscapes and the castle tiles (rules Appendix A, ED-1 and ED-2).

This module is pure data plus tables derived from it once at import. The printed map of the real game is
not public; replacing it means editing ``LAYOUT``, ``NEIGHBOURS``, ``START_FIRES`` and ``START_GEMS`` here
and nothing in the rules code.

Fields are numbered ``6 * row + col``. Tiles are integers ``0 … 29`` inside the engine and strings
``"T00" … "T29"`` in observations; tiles ``2k`` and ``2k + 1`` show ``LANDSCAPES[k]``.
"""

from __future__ import annotations

from collections import deque

#: The 15 landscapes in the order of Appendix A's tile list (tile pair k shows LANDSCAPES[k]).
LANDSCAPES: tuple[str, ...] = (
    "meadow", "wheat", "forest", "mountain", "lake", "river", "swamp", "hills",
    "heath", "vineyard", "orchard", "quarry", "canyon", "glacier", "volcano",
)

ROWS = 5
COLS = 6
#: Columns 0-2 form board half A, columns 3-5 half B (the split has no rules meaning, DK-8.1).
HALF_A_COLUMNS = (0, 1, 2)

#: Landscape of each field, row by row (Appendix A layout).
LAYOUT: tuple[tuple[str, ...], ...] = (
    ("meadow", "forest", "lake", "glacier", "swamp", "hills"),
    ("wheat", "mountain", "river", "volcano", "quarry", "canyon"),
    ("hills", "swamp", "heath", "vineyard", "orchard", "forest"),
    ("vineyard", "orchard", "quarry", "mountain", "lake", "heath"),
    ("canyon", "glacier", "volcano", "wheat", "river", "meadow"),
)

#: The neighbour table of Appendix A, as printed (a test checks it against the grid).
NEIGHBOURS: tuple[tuple[int, ...], ...] = (
    (1, 6), (0, 2, 7), (1, 3, 8), (2, 4, 9), (3, 5, 10), (4, 11),
    (0, 7, 12), (1, 6, 8, 13), (2, 7, 9, 14), (3, 8, 10, 15), (4, 9, 11, 16), (5, 10, 17),
    (6, 13, 18), (7, 12, 14, 19), (8, 13, 15, 20), (9, 14, 16, 21), (10, 15, 17, 22), (11, 16, 23),
    (12, 19, 24), (13, 18, 20, 25), (14, 19, 21, 26), (15, 20, 22, 27), (16, 21, 23, 28), (17, 22, 29),
    (18, 25), (19, 24, 26), (20, 25, 27), (21, 26, 28), (22, 27, 29), (23, 28),
)

#: Start dragon fires (DK-2.3): field -> the tile laid on it.
START_FIRES: dict[int, int] = {4: 12, 26: 28}

#: Gems on the map at setup (DK-2.4): field -> "gold" or "white".
START_GEMS: dict[int, str] = {
    2: "gold", 12: "gold", 17: "gold", 27: "gold",
    3: "white", 8: "white", 11: "white", 19: "white", 21: "white", 24: "white",
}

FIELD_COUNT = ROWS * COLS
TILE_COUNT = 2 * len(LANDSCAPES)

#: Landscape name of each field.
FIELD_LANDSCAPE: tuple[str, ...] = tuple(name for row in LAYOUT for name in row)
#: Landscape index (into LANDSCAPES) of each tile.
TILE_LANDSCAPE: tuple[int, ...] = tuple(tile // 2 for tile in range(TILE_COUNT))
#: For each landscape index, its fields in ascending order.
LANDSCAPE_FIELDS: tuple[tuple[int, ...], ...] = tuple(
    tuple(field for field in range(FIELD_COUNT) if FIELD_LANDSCAPE[field] == name) for name in LANDSCAPES
)


def tile_name(tile: int) -> str:
    """The public id of a tile, ``"T07"``."""
    return f"T{tile:02d}"


def tile_number(name: str) -> int:
    """The engine's integer for a public tile id; ``ValueError`` if it is not one."""
    if not isinstance(name, str) or len(name) != 3 or name[0] != "T" or not name[1:].isdigit():
        raise ValueError(f"not a tile id: {name!r}")
    number = int(name[1:])
    if number >= TILE_COUNT:
        raise ValueError(f"not a tile id: {name!r}")
    return number


def _all_distances() -> tuple[tuple[int, ...], ...]:
    """Shortest path lengths between all fields through adjacent fields (DK-8.3)."""
    table = []
    for source in range(FIELD_COUNT):
        dist = [-1] * FIELD_COUNT
        dist[source] = 0
        queue = deque([source])
        while queue:
            here = queue.popleft()
            for there in NEIGHBOURS[here]:
                if dist[there] < 0:
                    dist[there] = dist[here] + 1
                    queue.append(there)
        table.append(tuple(dist))
    return tuple(table)


#: DISTANCE[a][b]: steps between fields a and b, whatever lies on the fields in between.
DISTANCE: tuple[tuple[int, ...], ...] = _all_distances()
