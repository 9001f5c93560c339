"""The six coloured dice (rules Appendix C, ED-4).

The colouring of the real dice is not public. ``FACES[die][value - 1]`` is the colour letter (``R``, ``G``
or ``B``) of the face showing ``value`` on die ``die`` (ids 0-5 are Appendix C's D1-D6). Replacing the
dice means editing ``FACES`` only.
"""

from __future__ import annotations

COLOURS: tuple[str, ...] = ("R", "G", "B")
COLOUR_NAMES = {"R": "red", "G": "green", "B": "blue"}

FACES: tuple[str, ...] = (
    "RGRBBG",  # D1
    "RGGBRB",  # D2
    "BRRGBG",  # D3
    "BRBGGR",  # D4
    "GBGRRB",  # D5
    "GBBRGR",  # D6
)

DICE_COUNT = len(FACES)


def colour(die: int, value: int) -> str:
    """The colour of die ``die`` when it shows ``value``."""
    return FACES[die][value - 1]
