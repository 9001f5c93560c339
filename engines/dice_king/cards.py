"""The 60 citizen cards (rules Appendix B, ED-3) and the five effects (DK-1.3).

The real cards are not public. ``CARD_TABLE`` lists each card as ``(card id, stack, effect, condition,
joker die)``, the condition in the grammar of rules section 4 (parsed by :mod:`.conditions`), the joker die
as colour letter plus value. Replacing the cards means editing this table only: the rules code reads
conditions as data and has no code per card.
"""

from __future__ import annotations

from dataclasses import dataclass

from engines.dice_king.conditions import Condition, parse

DWARF = "DWARF"
THIEF_CARD = "THIEF_CARD"
THIEF_GEM = "THIEF_GEM"
TAMER = "TAMER"
BRAWLER = "BRAWLER"
LANDOWNER = "LANDOWNER"
EFFECTS = (DWARF, THIEF_CARD, THIEF_GEM, TAMER, BRAWLER, LANDOWNER)

STACKS = (1, 2, 3, 4, 5)

#: Citizen name of each stack, for display.
CITIZENS = {
    1: "grumpy dwarf",
    2: "arrogant thief",
    3: "dragon tamer",
    4: "crazy brawler",
    5: "rich landowner",
}

CARD_TABLE: tuple[tuple[str, int, str, str, str], ...] = (
    ("S1-01", 1, "DWARF", "TIERS(COLOR(R,4), COLOR(R,5), COLOR(R,6))", "R1"),
    ("S1-02", 1, "DWARF", "TIERS(COLOR(G,4), COLOR(G,5), COLOR(G,6))", "G2"),
    ("S1-03", 1, "DWARF", "TIERS(COLOR(B,4), COLOR(B,5), COLOR(B,6))", "B3"),
    ("S1-04", 1, "DWARF", "TIERS(SUM(26), SUM(28), SUM(30))", "R4"),
    ("S1-05", 1, "DWARF", "TIERS(SUM(25), SUM(28), SUM(31))", "B6"),
    ("S1-06", 1, "DWARF", "TIERS(STRAIGHT(4), STRAIGHT(5), STRAIGHT(6))", "G1"),
    ("S1-07", 1, "DWARF", "TIERS(STRAIGHT(4), STRAIGHT(5), STRAIGHT(6))", "R2"),
    ("S1-08", 1, "DWARF", "TIERS(SETS(3), SETS(4), SETS(5))", "B2"),
    ("S1-09", 1, "DWARF", "TIERS(SETS(3), SETS(3,2), SETS(3,3))", "G3"),
    ("S1-10", 1, "DWARF", "TIERS(SUMC(R,12), SUMC(R,15), SUMC(R,18))", "B4"),
    ("S1-11", 1, "DWARF", "TIERS(SUMC(G,12), SUMC(G,15), SUMC(G,18))", "R5"),
    ("S1-12", 1, "DWARF", "TIERS(SUMC(B,12), SUMC(B,15), SUMC(B,18))", "R6"),
    ("S2-01", 2, "THIEF_CARD", "COLOR(R,4)", "R1"),
    ("S2-02", 2, "THIEF_GEM", "COLOR(G,4)", "G2"),
    ("S2-03", 2, "THIEF_CARD", "COLOR(B,4)", "B3"),
    ("S2-04", 2, "THIEF_GEM", "SETS(3,2)", "G5"),
    ("S2-05", 2, "THIEF_CARD", "STRAIGHT(4)", "B6"),
    ("S2-06", 2, "THIEF_GEM", "ORDER(R>B>G)", "G1"),
    ("S2-07", 2, "THIEF_CARD", "SUM(27)", "R2"),
    ("S2-08", 2, "THIEF_GEM", "SUMC(R,13)", "R3"),
    ("S2-09", 2, "THIEF_CARD", "SUMC(G,13)", "G3"),
    ("S2-10", 2, "THIEF_GEM", "SUMC(B,13)", "B4"),
    ("S2-11", 2, "THIEF_CARD", "SUM(28)", "B5"),
    ("S2-12", 2, "THIEF_GEM", "ALL(COLOR(B,3), STRAIGHT(4))", "R6"),
    ("S3-01", 3, "TAMER", "VALUE(2,3)", "R1"),
    ("S3-02", 3, "TAMER", "VALUE(4,3)", "G2"),
    ("S3-03", 3, "TAMER", "VALUE(6,3)", "R4"),
    ("S3-04", 3, "TAMER", "VALUE(1,3)", "G5"),
    ("S3-05", 3, "TAMER", "SETS(4)", "B6"),
    ("S3-06", 3, "TAMER", "STRAIGHT(5)", "B1"),
    ("S3-07", 3, "TAMER", "SUMC(R,15)", "R2"),
    ("S3-08", 3, "TAMER", "SUMC(G,15)", "R3"),
    ("S3-09", 3, "TAMER", "SUMC(B,15)", "G4"),
    ("S3-10", 3, "TAMER", "SUM(29)", "B4"),
    ("S3-11", 3, "TAMER", "ALL(SETS(2,2), COLOR(G,4))", "B5"),
    ("S3-12", 3, "TAMER", "ALL(SETS(3,2), SUM(24))", "G6"),
    ("S4-01", 4, "BRAWLER", "COLOR(R,5)", "R1"),
    ("S4-02", 4, "BRAWLER", "COLOR(G,5)", "B3"),
    ("S4-03", 4, "BRAWLER", "COLOR(B,5)", "R4"),
    ("S4-04", 4, "BRAWLER", "SUM(30)", "G5"),
    ("S4-05", 4, "BRAWLER", "SUMC(R,17)", "B6"),
    ("S4-06", 4, "BRAWLER", "SUMC(G,17)", "B1"),
    ("S4-07", 4, "BRAWLER", "SUMC(B,17)", "B2"),
    ("S4-08", 4, "BRAWLER", "ALL(COLOR(R,3), SUM(26))", "R3"),
    ("S4-09", 4, "BRAWLER", "ALL(SETS(3), COLOR(G,4))", "G4"),
    ("S4-10", 4, "BRAWLER", "ALL(STRAIGHT(5), COLOR(B,3))", "R5"),
    ("S4-11", 4, "BRAWLER", "ALL(ORDER(R>B>G), SUM(24))", "B5"),
    ("S4-12", 4, "BRAWLER", "ALL(SETS(2,2), COLOR(R,4), SUM(22))", "G6"),
    ("S5-01", 5, "LANDOWNER", "COLOR(R,6)", "G2"),
    ("S5-02", 5, "LANDOWNER", "COLOR(G,6)", "B3"),
    ("S5-03", 5, "LANDOWNER", "COLOR(B,6)", "R4"),
    ("S5-04", 5, "LANDOWNER", "STRAIGHT(6)", "G5"),
    ("S5-05", 5, "LANDOWNER", "STRAIGHT(6)", "G1"),
    ("S5-06", 5, "LANDOWNER", "SETS(4,2)", "B1"),
    ("S5-07", 5, "LANDOWNER", "SETS(3,3)", "B2"),
    ("S5-08", 5, "LANDOWNER", "SETS(5)", "G3"),
    ("S5-09", 5, "LANDOWNER", "SETS(2,2,2)", "G4"),
    ("S5-10", 5, "LANDOWNER", "VALUE(6,4)", "R5"),
    ("S5-11", 5, "LANDOWNER", "SUM(32)", "R6"),
    ("S5-12", 5, "LANDOWNER", "SUMC(G,20)", "G6"),)


@dataclass(frozen=True)
class Card:
    """One citizen card: its id, stack, effect, parsed condition and joker die ``(colour, value)``."""

    id: str
    stack: int
    effect: str
    condition: Condition
    joker: tuple[str, int]


def _build() -> dict[str, Card]:
    cards = {}
    for card_id, stack, effect, condition, joker in CARD_TABLE:
        if effect not in EFFECTS:
            raise ValueError(f"card {card_id}: unknown effect {effect}")
        cards[card_id] = Card(card_id, stack, effect, parse(condition), (joker[0], int(joker[1:])))
    return cards


#: Every card by id.
CARDS: dict[str, Card] = _build()
#: For each stack, its card ids in ascending order (the order ED-15 (1) shuffles).
STACK_CARDS: dict[int, tuple[str, ...]] = {
    stack: tuple(sorted(card.id for card in CARDS.values() if card.stack == stack)) for stack in STACKS
}
