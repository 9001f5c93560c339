"""One kingdom on its fixed frame: placement legality (KD-4), placing, and scoring (KD-7, KD-9.1-9.2).

The frame is ``(2K-1) x (2K-1)`` cells with the castle in the centre, stored as flat lists indexed
``r * F + c`` (row-major, so sorting indices sorts by row then column). Legal placement generation is the
engine's hot path, so it is incremental rather than a scan of the frame:

* ``open_for[t]`` holds the empty cells that touch a square of terrain ``t`` or the castle, i.e. the
  cells where a square of terrain ``t`` would connect (KD-4.4). Placing a domino updates only the
  neighbours of its two cells.
* the bounding box of occupied cells gives the window of rows and columns a new square may use without
  breaking the ``K x K`` limit (KD-4.3). The window always lies inside the frame, so it also enforces
  KD-4.2's frame bound.

A placement is encoded as the integer key ``(r * F + c) * 4 + o``; ascending keys are the canonical order
of ED-9 (by ``r``, then ``c``, then ``o``).
"""

from __future__ import annotations

from typing import ClassVar

from engines.kingdomino.dominoes import CASTLE, DOMINOES, EMPTY, TERRAINS, cell_code

# Direction o of KD-4.1 as (row step, column step): 0 east, 1 south, 2 west, 3 north.
DIRECTIONS = ((0, 1), (1, 0), (0, -1), (-1, 0))


class GridGeometry:
    """The geometry of the frame shared by every kingdom of one grid size ``K`` (5, or 7 for the Mighty
    Duel): its cells, their neighbours and the placement keys."""

    _cache: ClassVar[dict[int, GridGeometry]] = {}

    def __init__(self, k: int) -> None:
        self.k = k
        self.size = size = 2 * k - 1
        self.cells = size * size
        self.castle = (k - 1) * size + (k - 1)
        self.row = [i // size for i in range(self.cells)]
        self.col = [i % size for i in range(self.cells)]
        # neighbour[i][o] is the cell in direction o from i, or -1 off the frame.
        self.neighbour = []
        for i in range(self.cells):
            r, c = divmod(i, size)
            self.neighbour.append(tuple(
                (r + dr) * size + (c + dc) if 0 <= r + dr < size and 0 <= c + dc < size else -1
                for dr, dc in DIRECTIONS
            ))
        # The same without the off-frame entries, for flood fills and open-cell updates.
        self.adjacent = [tuple(n for n in self.neighbour[i] if n >= 0) for i in range(self.cells)]
        # triples[key] == (r, c, o): turning keys into actions is part of every placement decision.
        self.triples = [(cell // size, cell % size, o) for cell in range(self.cells) for o in range(4)]

    @classmethod
    def of(cls, k: int) -> GridGeometry:
        frame = cls._cache.get(k)
        if frame is None:
            frame = cls._cache[k] = cls(k)
        return frame

    def key(self, r: int, c: int, o: int) -> int:
        return (r * self.size + c) * 4 + o

    def triple(self, key: int) -> tuple[int, int, int]:
        return self.triples[key]


class Kingdom:
    """A seat's kingdom: cells, open cells per terrain, bounding box, placed and discarded dominoes."""

    __slots__ = (
        "_summary",
        "codes",
        "crowns",
        "discarded",
        "frame",
        "max_c",
        "max_r",
        "min_c",
        "min_r",
        "open_for",
        "placed",
        "terrain",
    )

    def __init__(self, frame: GridGeometry) -> None:
        self.frame = frame
        self.terrain = [EMPTY] * frame.cells
        self.crowns = [0] * frame.cells
        self.terrain[frame.castle] = CASTLE
        # The grid's cell strings, kept up to date so that observations need not rebuild them.
        self.codes = [""] * frame.cells
        self.codes[frame.castle] = cell_code(CASTLE, 0)
        # The castle is wild (KD-4.4), so its empty neighbours are open to every terrain.
        castle_open = set(frame.adjacent[frame.castle])
        self.open_for = [set() if t not in TERRAINS else set(castle_open) for t in range(CASTLE + 1)]
        centre = frame.k - 1
        self.min_r = self.max_r = self.min_c = self.max_c = centre
        self.placed: list[list[int]] = []
        self.discarded: list[int] = []
        self._summary: tuple[int, int, int] | None = None

    def copy(self) -> Kingdom:
        twin = Kingdom.__new__(Kingdom)
        twin.frame = self.frame
        twin.terrain = self.terrain[:]
        twin.crowns = self.crowns[:]
        twin.codes = self.codes[:]
        twin.open_for = [set(cells) for cells in self.open_for]
        twin.min_r, twin.max_r, twin.min_c, twin.max_c = self.min_r, self.max_r, self.min_c, self.max_c
        twin.placed = [entry[:] for entry in self.placed]
        twin.discarded = self.discarded[:]
        twin._summary = self._summary
        return twin

    def __deepcopy__(self, memo: dict) -> Kingdom:
        return self.copy()

    # -- placement (KD-4) ------------------------------------------------------------------------------

    def legal_keys(self, n: int) -> list[int]:
        """Every legal placement of domino ``n`` as ascending keys (KD-4.2 to KD-4.4, ED-9)."""
        frame = self.frame
        ta, _, tb, _ = DOMINOES[n]
        span = frame.k - 1
        r_lo, r_hi = self.max_r - span, self.min_r + span
        c_lo, c_hi = self.max_c - span, self.min_c + span
        row, col, neighbour, terrain = frame.row, frame.col, frame.neighbour, self.terrain
        keys = set()
        # Square A connects: A is open for its terrain, B is any empty in-window neighbour.
        for a in self.open_for[ta]:
            if r_lo <= row[a] <= r_hi and c_lo <= col[a] <= c_hi:
                for o, b in enumerate(neighbour[a]):
                    if b >= 0 and terrain[b] == EMPTY and r_lo <= row[b] <= r_hi and c_lo <= col[b] <= c_hi:
                        keys.add(a * 4 + o)
        # Square B connects: B is open for its terrain, A lies opposite direction o from B.
        for b in self.open_for[tb]:
            if r_lo <= row[b] <= r_hi and c_lo <= col[b] <= c_hi:
                for back, a in enumerate(neighbour[b]):
                    if a >= 0 and terrain[a] == EMPTY and r_lo <= row[a] <= r_hi and c_lo <= col[a] <= c_hi:
                        keys.add(a * 4 + (back + 2) % 4)
        return sorted(keys)

    def place(self, n: int, key: int) -> None:
        """Put domino ``n`` at placement ``key``; the caller has checked it is legal."""
        frame = self.frame
        a, o = divmod(key, 4)
        b = frame.neighbour[a][o]
        ta, ca, tb, cb = DOMINOES[n]
        terrain = self.terrain
        terrain[a], self.crowns[a] = ta, ca
        terrain[b], self.crowns[b] = tb, cb
        self.codes[a], self.codes[b] = cell_code(ta, ca), cell_code(tb, cb)
        for cells in self.open_for:
            cells.discard(a)
            cells.discard(b)
        for cell, t in ((a, ta), (b, tb)):
            opened = self.open_for[t]
            for q in frame.adjacent[cell]:
                if terrain[q] == EMPTY:
                    opened.add(q)
            r, c = frame.row[cell], frame.col[cell]
            if r < self.min_r:
                self.min_r = r
            elif r > self.max_r:
                self.max_r = r
            if c < self.min_c:
                self.min_c = c
            elif c > self.max_c:
                self.max_c = c
        r, c, _ = frame.triple(key)
        self.placed.append([n, r, c, o])
        self._summary = None

    def discard(self, n: int) -> None:
        self.discarded.append(n)

    # -- scoring (KD-7, KD-8, KD-9) ----------------------------------------------------------------------

    def summary(self) -> tuple[int, int, int]:
        """``(base score, largest property in squares, crowns in the kingdom)`` (KD-7.3, KD-8.2, KD-8.3)."""
        if self._summary is None:
            self._summary = self._score()
        return self._summary

    def _score(self) -> tuple[int, int, int]:
        terrain, crowns, adjacent = self.terrain, self.crowns, self.frame.adjacent
        seen = [False] * self.frame.cells
        base = largest = total_crowns = 0
        for start in range(self.frame.cells):
            t = terrain[start]
            if seen[start] or t == EMPTY or t == CASTLE:
                continue
            # Flood fill one property: same terrain, edge to edge; the castle joins nothing (KD-7.1).
            seen[start] = True
            stack, squares, property_crowns = [start], 0, 0
            while stack:
                cell = stack.pop()
                squares += 1
                property_crowns += crowns[cell]
                for q in adjacent[cell]:
                    if not seen[q] and terrain[q] == t:
                        seen[q] = True
                        stack.append(q)
            base += squares * property_crowns
            total_crowns += property_crowns
            largest = max(largest, squares)
        return base, largest, total_crowns

    def bonus(self, options: dict) -> int:
        """The optional end-of-game bonuses this kingdom earns under ``options`` (KD-9.1, KD-9.2)."""
        return bonus_points(self.grid(), self.discarded, self.frame.k, options)

    # -- JSON -------------------------------------------------------------------------------------------

    def grid(self) -> list[list[str]]:
        """The frame as the rules' grid of cell strings (section 11.1)."""
        size, codes = self.frame.size, self.codes
        return [codes[r * size:(r + 1) * size] for r in range(size)]

    def to_json(self, seat: int) -> dict:
        base, largest, total_crowns = self.summary()
        return {"seat": seat, "grid": self.grid(), "placed": [entry[:] for entry in self.placed],
                "discarded": self.discarded[:], "base_score": base, "largest_property": largest,
                "crowns": total_crowns}


# Bonuses are computed from the JSON grid so that the renderer and re-scoring from ``view()`` use the
# very same rule as the engine.

def is_middle_kingdom(grid: list[list[str]], k: int) -> bool:
    """KD-9.1 / ED-7: occupied cells span exactly K x K with the castle in the middle of that span."""
    rows = [r for r, line in enumerate(grid) if any(line)]
    cols = [c for c in range(len(grid)) if any(line[c] for line in grid)]
    centre = k - 1
    return (rows[-1] - rows[0] == k - 1 and cols[-1] - cols[0] == k - 1
            and rows[0] + (k - 1) // 2 == centre and cols[0] + (k - 1) // 2 == centre)


def is_harmony(grid: list[list[str]], discarded: list[int], k: int) -> bool:
    """KD-9.2 / ED-8: every cell of a K x K square filled and no domino discarded.

    A kingdom never leaves its K x K square, so K*K occupied cells fill it.
    """
    return not discarded and sum(1 for line in grid for cell in line if cell) == k * k


def bonus_points(grid: list[list[str]], discarded: list[int], k: int, options: dict) -> int:
    """+10 for Middle Kingdom and +5 for Harmony, each only when its option is on."""
    points = 0
    if options.get("middle_kingdom") and is_middle_kingdom(grid, k):
        points += 10
    if options.get("harmony") and is_harmony(grid, discarded, k):
        points += 5
    return points
