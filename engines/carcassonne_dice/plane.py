"""One plane of a turn's city area: built dice on a grid, the open cells around them, and their cities.

A plane (CD-6.1, ED-3) is an unbounded grid whose first die sits at (0, 0). Besides the dice it keeps its
**frontier**: every empty cell next to a die, with a packed constraint saying what each occupied neighbour
shows towards it. Building updates the frontier in place, so listing the legal placements never rescans
the plane (the turn's decisions come in long chains, and each one needs the list).
"""

from __future__ import annotations

from typing import NamedTuple

from engines.carcassonne_dice.faces import FACE_NAME, FITS, FRONTIER_INCREMENTS, STEPS


class BuiltDie(NamedTuple):
    die: int
    face: int
    r: int
    edges: str  # rotated edge code, N E S W


class City(NamedTuple):
    dice: tuple[int, ...]  # die ids, ascending
    size: int
    closed: bool
    open_edges: int  # city edges that face an empty cell


class Plane:
    """The dice of one plane and its frontier. Placement legality is checked by the caller (the state)."""

    __slots__ = ("_builds", "_cities", "cells", "frontier", "index")

    def __init__(self, index: int) -> None:
        self.index = index
        self.cells: dict[tuple[int, int], BuiltDie] = {}
        self.frontier: dict[tuple[int, int], int] = {}
        # Build actions into this plane per face id, made on demand and dropped when the plane changes;
        # the lists are never mutated, so copies may share them.
        self._builds: dict[int, list] = {}
        self._cities: tuple[City, ...] | None = None

    def copy(self) -> Plane:
        twin = Plane.__new__(Plane)
        twin.index = self.index
        twin.cells = dict(self.cells)
        twin.frontier = dict(self.frontier)
        twin._builds = self._builds
        twin._cities = self._cities
        return twin

    def fits(self, x: int, y: int, face: int, r: int) -> bool:
        """Whether a city face may go on (x, y) at rotation r (CD-6.3b; the lowest of equal rotations)."""
        key = self.frontier.get((x, y))
        return key is not None and r in FITS[key][face]

    def build_actions(self, face: int) -> list:
        """The ``build`` actions of rules 12.2 for ``face`` into this plane, sorted by (x, y, r)."""
        actions = self._builds.get(face)
        if actions is None:
            name, index, frontier = FACE_NAME[face], self.index, self.frontier
            actions = [
                {"build": [name, index, x, y, r]}
                for (x, y) in sorted(frontier)
                for r in FITS[frontier[(x, y)]][face]
            ]
            self._builds[face] = actions
        return actions

    def place(self, x: int, y: int, built: BuiltDie) -> None:
        """Put ``built`` on the empty cell (x, y) and update the frontier around it."""
        cell = (x, y)
        self._builds = {}
        self._cities = None
        self.cells[cell] = built
        self.frontier.pop(cell, None)
        cells, frontier = self.cells, self.frontier
        # Seen from each empty neighbour, this die lies in the opposite direction (FRONTIER_INCREMENTS).
        for (dx, dy), increment in zip(STEPS, FRONTIER_INCREMENTS[built.edges]):
            neighbour = (x + dx, y + dy)
            if neighbour not in cells:
                frontier[neighbour] = frontier.get(neighbour, 0) + increment

    def cities(self) -> tuple[City, ...]:
        """The cities of this plane (CD-6.4) with their closedness (CD-6.5), ordered by lowest die id."""
        if self._cities is None:
            self._cities = self._find_cities()
        return self._cities

    def _find_cities(self) -> tuple[City, ...]:
        cells = self.cells
        seen: set[tuple[int, int]] = set()
        result = []
        for start in cells:
            if start in seen:
                continue
            seen.add(start)
            stack = [start]
            dice = []
            open_edges = 0
            while stack:
                x, y = stack.pop()
                built = cells[(x, y)]
                dice.append(built.die)
                for d, (dx, dy) in enumerate(STEPS):
                    if built.edges[d] != "C":
                        continue
                    neighbour = (x + dx, y + dy)
                    if neighbour not in cells:
                        open_edges += 1
                    elif neighbour not in seen:
                        seen.add(neighbour)
                        stack.append(neighbour)
            dice.sort()
            result.append(City(tuple(dice), len(dice), open_edges == 0, open_edges))
        result.sort(key=lambda city: city.dice[0])
        return tuple(result)
