"""Scoring by largest area, other fields, dragon-fire majority and gems (DK-8.4, DK-9.2, DK-9.3)."""

from __future__ import annotations

from collections.abc import Sequence

from engines.dice_king.board import FIELD_COUNT, NEIGHBOURS

POINTS_LARGEST_AREA_FIELD = 3
POINTS_OTHER_FIELD = 1
POINTS_FIRE_MAJORITY = 4
POINTS_GOLD = 3
POINTS_WHITE = 2


def areas(owner: Sequence[int], seat: int) -> list[list[int]]:
    """The seat's areas (maximal groups of its own adjacent fields), each ascending, largest first."""
    seen = [False] * FIELD_COUNT
    found = []
    for start in range(FIELD_COUNT):
        if owner[start] != seat or seen[start]:
            continue
        seen[start] = True
        group, stack = [], [start]
        while stack:
            here = stack.pop()
            group.append(here)
            for there in NEIGHBOURS[here]:
                if owner[there] == seat and not seen[there]:
                    seen[there] = True
                    stack.append(there)
        found.append(sorted(group))
    found.sort(key=lambda group: (-len(group), group[0]))
    return found


def field_points(owner: Sequence[int], seat: int) -> int:
    """3 points per field of the largest area (only one area counts if tied), 1 per other own field."""
    owned = sum(1 for holder in owner if holder == seat)
    if not owned:
        return 0
    largest = len(areas(owner, seat)[0])
    return POINTS_LARGEST_AREA_FIELD * largest + POINTS_OTHER_FIELD * (owned - largest)


def seat_scores(owner: Sequence[int], fires: Sequence[int], gold: Sequence[int],
                white: Sequence[int]) -> list[int]:
    """Every seat's DK-9.2 total; the fire majority needs at least one fire and is shared on a tie."""
    most_fires = max(fires)
    totals = []
    for seat in range(len(fires)):
        total = field_points(owner, seat) + POINTS_GOLD * gold[seat] + POINTS_WHITE * white[seat]
        if most_fires > 0 and fires[seat] == most_fires:
            total += POINTS_FIRE_MAJORITY
        totals.append(total)
    return totals
