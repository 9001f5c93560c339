"""Scoring of zoos by the printed tables (Sections 8-10).

Scores are a function of all zoos together, because King of the Jungle compares with every other zoo
and the Lookout looks at the zoo on the right. During play the same function gives the provisional
score of DS-10.4 (a dinosaur still in the Quarantine Zone scores nothing there).
"""

from __future__ import annotations

from collections import Counter

from engines.draftosaurus.board import (
    DIFFERENCES_POINTS,
    PENS,
    PYRAMID,
    PYRAMID_CELL_POINTS,
    SAMENESS_POINTS,
)
from engines.draftosaurus.zoo import Zoo


def pen_scores(zoos: list[Zoo], seat: int) -> dict[str, int]:
    """Points per pen of ``zoos[seat]`` plus ``"river"`` and ``"t_rex_bonus"``; they sum to its score."""
    zoo = zoos[seat]
    pens = zoo.pens
    points: dict[str, int] = {}
    if zoo.side == "summer":
        points["forest_of_sameness"] = SAMENESS_POINTS[len(pens["forest_of_sameness"])]
        points["meadow_of_differences"] = DIFFERENCES_POINTS[len(pens["meadow_of_differences"])]
        pairs = sum(count // 2 for count in Counter(pens["prairie_of_love"]).values())
        points["prairie_of_love"] = 5 * pairs
        points["woody_trio"] = 7 if len(pens["woody_trio"]) == 3 else 0
        points["king_of_the_jungle"] = _king_points(zoos, seat)
        island = pens["solitary_island"]
        points["solitary_island"] = 7 if island and zoo.count(island[0]) == 1 else 0
    else:
        points["well_ordered_wood"] = SAMENESS_POINTS[len(pens["well_ordered_wood"])]
        left = Counter(pens["lovers_bridge_left"])
        right = Counter(pens["lovers_bridge_right"])
        pairs = sum(min(count, right[species]) for species, count in left.items())
        # The bridge is one score over two pens; it is booked on the left half.
        points["lovers_bridge_left"] = 6 * pairs
        points["lovers_bridge_right"] = 0
        points[PYRAMID] = sum(
            PYRAMID_CELL_POINTS[cell] for cell, dino in zoo.pyramid.items() if dino is not None
        )
        lookout = pens["lookout"]
        right_neighbour = zoos[(seat - 1) % len(zoos)]
        points["lookout"] = 2 * right_neighbour.count(lookout[0]) if lookout else 0
        points["quarantine_zone"] = 0
    points["river"] = len(zoo.river)
    points["t_rex_bonus"] = sum(1 for pen in PENS[zoo.side] if zoo.holds_t_rex(pen.id))
    return points


def _king_points(zoos: list[Zoo], seat: int) -> int:
    king = zoos[seat].pens["king_of_the_jungle"]
    if not king:
        return 0
    species = king[0]
    mine = zoos[seat].count(species)
    if all(mine >= other.count(species) for index, other in enumerate(zoos) if index != seat):
        return 7
    return 0


def zoo_score(zoos: list[Zoo], seat: int) -> int:
    """The total score of ``zoos[seat]`` (DS-10.1 steps 2-5)."""
    return sum(pen_scores(zoos, seat).values())


def all_scores(zoos: list[Zoo]) -> list[int]:
    return [zoo_score(zoos, seat) for seat in range(len(zoos))]

