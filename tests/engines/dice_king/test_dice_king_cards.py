"""``engines.dice_king.cards``: the card table turned into :class:`Card` objects and the stacks.

The card data's balance (jokers, effects per stack) is checked in ``test_dice_king_components.py``; here:
how each row becomes a card (parsed condition, joker die split into colour and value), the stacks' order,
and that a row with an unknown effect is refused when the table is built.
"""

from __future__ import annotations

import dataclasses

import pytest

from engines.dice_king import cards
from engines.dice_king.cards import CARD_TABLE, CARDS, CITIZENS, EFFECTS, STACK_CARDS, STACKS, Card
from engines.dice_king.conditions import ConditionError, parse


def test_every_row_becomes_one_card():
    assert len(CARDS) == len(CARD_TABLE) == 60
    for card_id, stack, effect, condition, joker in CARD_TABLE:
        card = CARDS[card_id]
        assert (card.id, card.stack, card.effect) == (card_id, stack, effect)
        assert card.condition == parse(condition) and card.condition.text == condition.replace(" ", "")
        assert card.joker == (joker[0], int(joker[1:]))


def test_card_ids_name_their_stack():
    for card in CARDS.values():
        assert card.id.startswith(f"S{card.stack}-") and card.stack in STACKS and card.effect in EFFECTS


def test_stacks_list_their_cards_in_ascending_id_order():
    assert set(STACK_CARDS) == set(STACKS) == set(CITIZENS)
    for stack, ids in STACK_CARDS.items():
        assert list(ids) == sorted(ids) and all(CARDS[card_id].stack == stack for card_id in ids)
    assert STACK_CARDS[3][0] == "S3-01" and STACK_CARDS[5][-1] == "S5-12"


def test_cards_are_frozen():
    with pytest.raises(dataclasses.FrozenInstanceError):
        CARDS["S1-01"].stack = 2
    assert isinstance(CARDS["S1-01"], Card)


def test_a_row_with_an_unknown_effect_is_refused(monkeypatch):
    monkeypatch.setattr(cards, "CARD_TABLE", (("S9-01", 1, "WIZARD", "SUM(20)", "R1"),))
    with pytest.raises(ValueError, match="S9-01: unknown effect WIZARD"):
        cards._build()


def test_a_row_with_a_bad_condition_is_refused(monkeypatch):
    monkeypatch.setattr(cards, "CARD_TABLE", (("S9-01", 1, "DWARF", "SUM(", "R1"),))
    with pytest.raises(ConditionError):
        cards._build()
