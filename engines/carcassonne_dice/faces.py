"""The faces of a Carcassonne dice-game die, their rotations, and the points table.

This module is the one place that knows what the dice look like (rule CD-1.3, engine decision ED-1). The
drawings of the four city faces are a reconstruction; if the real dice differ, only ``FACE_TABLE``
changes and everything else (placement, cities, scoring, rendering) follows from it.

Edge codes list the four edges of a face in the order North, East, South, West; ``C`` is city (black on the
die), ``F`` is field (white).
"""

from __future__ import annotations

from typing import NamedTuple

N, E, S, W = 0, 1, 2, 3
#: Cell offset (dx, dy) of the neighbour in each direction; y grows to the North (CD-6.1).
STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0))


class Face(NamedTuple):
    id: int
    name: str
    edges: str | None  # edge code at rotation 0, None for the knight and the catapult


# CD-1.3 (ED-1): the single table of face drawings. Face ids are what a roll draws (ED-11).
FACE_TABLE: tuple[Face, ...] = (
    Face(1, "CAP", "CFFF"),
    Face(2, "CORNER", "CCFF"),
    Face(3, "BAND", "CFCF"),
    Face(4, "TRIPLE", "CCCF"),
    Face(5, "KNIGHT", None),
    Face(6, "CATAPULT", None),
)

FACE_BY_ID: dict[int, Face] = {face.id: face for face in FACE_TABLE}
FACE_ID: dict[str, int] = {face.name: face.id for face in FACE_TABLE}
FACE_NAME: dict[int, str] = {face.id: face.name for face in FACE_TABLE}
CITY_FACES: tuple[int, ...] = tuple(face.id for face in FACE_TABLE if face.edges is not None)
KNIGHT = FACE_ID["KNIGHT"]
CATAPULT = FACE_ID["CATAPULT"]
SIDES = len(FACE_TABLE)


def rotated(edges: str, r: int) -> str:
    """The edge code after ``r`` quarter turns clockwise (CD-6.2): direction d shows old edge (d - r) mod 4."""
    return "".join(edges[(d - r) % 4] for d in range(4))


def _distinct_rotations(edges: str) -> tuple[tuple[int, str], ...]:
    # Rotations that draw the same edges (BAND at 0 and 2) are one placement; the lowest r stands for it.
    seen: dict[str, int] = {}
    for r in range(4):
        seen.setdefault(rotated(edges, r), r)
    return tuple((r, code) for code, r in seen.items())


#: For each city face id, its distinct (rotation, rotated edge code) pairs in ascending rotation.
ROTATIONS: dict[int, tuple[tuple[int, str], ...]] = {
    face_id: _distinct_rotations(FACE_BY_ID[face_id].edges) for face_id in CITY_FACES
}

#: For each city face id, the edge code at each rotation 0..3.
ROTATED: dict[int, tuple[str, ...]] = {
    face_id: tuple(rotated(FACE_BY_ID[face_id].edges, r) for r in range(4)) for face_id in CITY_FACES
}

# A frontier cell's constraint packs, per direction d, what the occupied neighbour on that side shows
# towards the cell: 0 nothing (empty), 1 city, 2 field. The key is sum(code_d * 3**d).
EDGE_CODE = {"C": 1, "F": 2}
POW3 = (1, 3, 9, 27)


def _fits(key: int, code: str) -> bool:
    for d in range(4):
        need = key // POW3[d] % 3
        if need and need != EDGE_CODE[code[d]]:
            return False
    return True


#: For each rotated edge code, what building it adds to the constraint of the empty cell on each side.
FRONTIER_INCREMENTS: dict[str, tuple[int, int, int, int]] = {
    code: tuple(EDGE_CODE[code[d]] * POW3[(d + 2) % 4] for d in range(4))
    for face_id in CITY_FACES
    for code in ROTATED[face_id]
}

#: FITS[key][face_id]: the rotations of that face that match every occupied neighbour of a cell (CD-6.3b).
FITS: tuple[dict[int, tuple[int, ...]], ...] = tuple(
    {face_id: tuple(r for r, code in ROTATIONS[face_id] if _fits(key, code)) for face_id in CITY_FACES}
    for key in range(81)
)

#: CD-7.2: points by the size of the largest closed city; (n-2)(n-1)/2 from 3 dice on, 0 below.
POINTS: tuple[int, ...] = tuple(0 if n < 3 else (n - 2) * (n - 1) // 2 for n in range(10))
