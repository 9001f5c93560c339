"""One player's zoo board: what it holds and which placements its pens accept (DS-6.2, Sections 8-9).

The pen rules here are the ones every seat obeys, the roller included; the die (Section 7) is checked by
the caller with :func:`engines.draftosaurus.board.die_allows`, because it binds only non-rollers.
"""

from __future__ import annotations

from engines.draftosaurus.board import (
    PENS,
    PYRAMID,
    PYRAMID_CELLS,
    PYRAMID_NEIGHBOURS,
    PYRAMID_ROWS,
    RIVER,
    SPECIES_INDEX,
    T_REX,
)


class Zoo:
    """The dinosaurs on one board side: list pens in slot order, the Pyramid by cell, and the River.

    ``pens`` maps every list pen of the side to its dinosaurs (slot order for the Forest, Meadow and Wood,
    placement order otherwise). ``pyramid`` maps the six cells to a species or ``None`` on the winter side
    and is ``None`` in summer.
    """

    __slots__ = ("pens", "pyramid", "river", "side")

    def __init__(self, side: str) -> None:
        self.side = side
        self.pens: dict[str, list[str]] = {pen.id: [] for pen in PENS[side] if pen.id != PYRAMID}
        self.pyramid: dict[str, str | None] | None = (
            {cell: None for cell in PYRAMID_CELLS} if side == "winter" else None
        )
        self.river: list[str] = []

    def copy(self) -> Zoo:
        twin = Zoo.__new__(Zoo)
        twin.side = self.side
        twin.pens = {pen: list(dinos) for pen, dinos in self.pens.items()}
        twin.pyramid = dict(self.pyramid) if self.pyramid is not None else None
        twin.river = list(self.river)
        return twin

    # --- what a pen holds -------------------------------------------------------------------------

    def contents(self, pen: str) -> list[str]:
        """The dinosaurs in ``pen`` (a pen id or ``"river"``), Pyramid cells in cell order."""
        if pen == PYRAMID:
            return [dino for dino in self.pyramid.values() if dino is not None]
        if pen == RIVER:
            return self.river
        return self.pens[pen]

    def occupants(self, pen: str) -> int:
        return len(self.contents(pen))

    def holds_t_rex(self, pen: str) -> bool:
        return T_REX in self.contents(pen)

    def all_dinos(self) -> list[str]:
        """Every dinosaur of the zoo: pens, Pyramid and River ("your zoo", ED-9)."""
        dinos = [dino for pen in self.pens.values() for dino in pen]
        if self.pyramid is not None:
            dinos.extend(dino for dino in self.pyramid.values() if dino is not None)
        dinos.extend(self.river)
        return dinos

    def count(self, species: str) -> int:
        """How many ``species`` the whole zoo holds, River included (ED-9)."""
        total = self.river.count(species)
        for dinos in self.pens.values():
            total += dinos.count(species)
        if self.pyramid is not None:
            total += sum(1 for dino in self.pyramid.values() if dino == species)
        return total

    def size(self) -> int:
        return len(self.all_dinos())

    def t_rex_count(self) -> int:
        """T-Rexes in pens and River: the DS-10.2 tie-break count."""
        return self.count(T_REX)

    # --- pen rules (DS-8.x, DS-9.x) -------------------------------------------------------------

    def accepts(self, pen: str, species: str) -> bool:
        """Whether the list pen ``pen`` takes one more ``species`` under its own rules (not the die)."""
        dinos = self.pens[pen]
        count = len(dinos)
        if pen == "forest_of_sameness":
            return count < 6 and (count == 0 or dinos[0] == species)
        if pen == "meadow_of_differences":
            return species not in dinos  # six species, so a seventh can never fit
        if pen == "prairie_of_love":
            return count < 6
        if pen == "woody_trio":
            return count < 3
        if pen == "well_ordered_wood":
            if count == 0:
                return True
            if count == 1:
                return species != dinos[0]
            return count < 6 and species == dinos[count - 2]
        if pen == "lovers_bridge_left" or pen == "lovers_bridge_right":
            return True
        # king_of_the_jungle, solitary_island, lookout, quarantine_zone hold one dinosaur.
        return count == 0

    def pyramid_cells_for(self, species: str) -> list[str]:
        """The free Pyramid cells of the lowest unfilled row where ``species`` touches no equal species.

        In cell order (B1, B2, B3, M1, M2, T), as ED-14 lists them; empty when the Pyramid is full.
        """
        pyramid = self.pyramid
        for row in PYRAMID_ROWS:
            free = [cell for cell in row if pyramid[cell] is None]
            if free:
                return [
                    cell for cell in free
                    if all(pyramid[other] != species for other in PYRAMID_NEIGHBOURS[cell])
                ]
        return []

    # --- changes ----------------------------------------------------------------------------------

    def place(self, species: str, to: str, cell: str | None = None) -> None:
        """Put ``species`` into ``to`` (a pen, ``"pyramid"`` with ``cell``, or ``"river"``); no checks."""
        if to == RIVER:
            self.river.append(species)
        elif to == PYRAMID:
            self.pyramid[cell] = species
        else:
            self.pens[to].append(species)

    # --- encoding ---------------------------------------------------------------------------------

    def to_json(self) -> dict:
        """``{"pens": {...}, "river": [...]}`` as Section 13 encodes a zoo (board order of pens)."""
        pens = {}
        for pen in PENS[self.side]:
            if pen.id == PYRAMID:
                pens[PYRAMID] = dict(self.pyramid)
            else:
                pens[pen.id] = list(self.pens[pen.id])
        return {"pens": pens, "river": list(self.river)}

    @classmethod
    def from_json(cls, side: str, data: dict) -> Zoo:
        """The zoo a Section 13 encoding describes (used by tests and for re-scoring a view)."""
        zoo = cls(side)
        for pen, dinos in data["pens"].items():
            if pen == PYRAMID:
                zoo.pyramid.update(dinos)
            else:
                zoo.pens[pen] = list(dinos)
        zoo.river = list(data.get("river", []))
        return zoo


def canonical_hand(dinos) -> list[str]:
    """A hand as a list in canonical species order (hands are multisets, ED-7)."""
    return sorted(dinos, key=SPECIES_INDEX.__getitem__)
