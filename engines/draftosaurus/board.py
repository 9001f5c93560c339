"""The printed components of Draftosaurus as data: species, die faces, both zoo sides, bag sizes.

Everything here is read from the rules specification (``docs/rules/draftosaurus.md``, Sections 1, 2,
5, 7, 8 and 9); the rules code only looks things up. Orders matter: ``SPECIES`` is the canonical species
order (DS-1.2), ``FACES`` the die's face order used by the roll formula (ED-1), and each side's
``order`` the board order of destinations used by ``legal_actions()`` (ED-14).
"""

from __future__ import annotations

from dataclasses import dataclass

T_REX = "t_rex"
SPECIES = ("t_rex", "triceratops", "stegosaurus", "spinosaurus", "parasaurolophus", "brachiosaurus")
SPECIES_INDEX = {species: index for index, species in enumerate(SPECIES)}

FACES = ("woodlands", "grasslands", "restrooms", "food_court", "empty_pen", "no_t_rex")

RIVER = "river"
WOODLANDS = "woodlands"
GRASSLANDS = "grasslands"
#: Sides of the River, named after the die faces that select them (DS-5.2, Section 7).
FOOD_COURT = "food_court"  # left of the River
RESTROOMS = "restrooms"  # right of the River

PYRAMID = "pyramid"
PYRAMID_CELLS = ("B1", "B2", "B3", "M1", "M2", "T")
PYRAMID_ROWS = (("B1", "B2", "B3"), ("M1", "M2"), ("T",))
PYRAMID_CELL_POINTS = {"B1": 2, "B2": 2, "B3": 2, "M1": 4, "M2": 4, "T": 7}
#: The nine touching pairs of DS-9.4, as each cell's neighbours.
PYRAMID_NEIGHBOURS = {
    "B1": ("B2", "M1"),
    "B2": ("B1", "B3", "M1", "M2"),
    "B3": ("B2", "M2"),
    "M1": ("M2", "B1", "B2", "T"),
    "M2": ("M1", "B2", "B3", "T"),
    "T": ("M1", "M2"),
}

#: Score by count 1-6 for the Forest of Sameness and the Well-Ordered Wood (index = count).
SAMENESS_POINTS = (0, 2, 4, 8, 12, 18, 24)
#: Score by count 1-6 for the Meadow of Differences.
DIFFERENCES_POINTS = (0, 1, 3, 6, 10, 15, 21)

UNLIMITED = 99  # the River and the Lovers' Bridge halves (ED-10): more than a zoo can ever hold


@dataclass(frozen=True)
class Pen:
    """One pen of a side: where it lies (for the die) and how many dinosaurs it holds at most."""

    id: str
    area: str
    side: str
    capacity: int


SUMMER_PENS = (
    Pen("forest_of_sameness", WOODLANDS, FOOD_COURT, 6),
    Pen("meadow_of_differences", GRASSLANDS, RESTROOMS, 6),
    Pen("prairie_of_love", GRASSLANDS, FOOD_COURT, 6),
    Pen("woody_trio", WOODLANDS, FOOD_COURT, 3),
    Pen("king_of_the_jungle", WOODLANDS, RESTROOMS, 1),
    Pen("solitary_island", GRASSLANDS, RESTROOMS, 1),
)

WINTER_PENS = (
    Pen("well_ordered_wood", WOODLANDS, FOOD_COURT, 6),
    Pen("lovers_bridge_left", WOODLANDS, FOOD_COURT, UNLIMITED),
    Pen("lovers_bridge_right", GRASSLANDS, RESTROOMS, UNLIMITED),
    Pen(PYRAMID, GRASSLANDS, RESTROOMS, 6),
    Pen("lookout", WOODLANDS, RESTROOMS, 1),
    Pen("quarantine_zone", GRASSLANDS, FOOD_COURT, 1),
)

SIDES = ("summer", "winter")
PENS = {"summer": SUMMER_PENS, "winter": WINTER_PENS}
PEN_BY_ID = {pen.id: pen for pens in PENS.values() for pen in pens}
#: Board order of destinations per side (ED-14): the pens as printed in the rules' table, then the River.
BOARD_ORDER = {side: tuple(pen.id for pen in pens) + (RIVER,) for side, pens in PENS.items()}

QUARANTINE = "quarantine_zone"


@dataclass(frozen=True)
class Setup:
    """Bag and game length for one player count (DS-2.1, DS-4.1)."""

    per_species: int
    rounds: int
    turns_per_round: int
    hand_size: int = 6


SETUPS = {
    2: Setup(per_species=8, rounds=4, turns_per_round=3),
    3: Setup(per_species=6, rounds=2, turns_per_round=6),
    4: Setup(per_species=8, rounds=2, turns_per_round=6),
    5: Setup(per_species=10, rounds=2, turns_per_round=6),
}


def die_allows(face: str, pen: Pen, zoo) -> bool:
    """Whether the rolled ``face`` lets a non-roller place into ``pen`` of ``zoo`` (Section 7, DS-6.3).

    ``zoo`` answers ``occupants(pen_id)`` and ``holds_t_rex(pen_id)`` as it stood before this turn's
    placements (DS-7.2); the Pyramid is judged as a whole and each Lovers' Bridge half alone.
    """
    if face == WOODLANDS or face == GRASSLANDS:
        return pen.area == face
    if face == FOOD_COURT or face == RESTROOMS:
        return pen.side == face
    if face == "empty_pen":
        return zoo.occupants(pen.id) == 0
    return not zoo.holds_t_rex(pen.id)  # "no_t_rex"
