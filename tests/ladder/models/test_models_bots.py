"""The bots' models (``ladder.models.bots``): the database constraints that hold a bot's and a version's
invariants whoever writes them."""

from __future__ import annotations

import pytest

from ladder.models import Bot, Game
from tests.factories import BotFactory, BotVersionFactory
from tests.ladder.models.test_models_matches import refused

pytestmark = pytest.mark.django_db


def test_a_bot_name_is_unique_per_game_in_any_case_and_not_empty():
    bot = BotFactory(name="Greedy")
    refused(lambda: BotFactory(name="greedy", game=bot.game))
    refused(lambda: BotFactory(name=""))
    BotFactory(name="greedy", game=Game.objects.get(slug="dice_king"))
    assert Bot.objects.filter(name__iexact="greedy").count() == 2


def test_version_numbers_are_unique_and_positive_and_code_not_empty():
    bot = BotFactory()
    refused(lambda: BotVersionFactory(bot=bot, number=1))
    refused(lambda: BotVersionFactory(bot=bot, number=0))
    refused(lambda: BotVersionFactory(bot=bot, size=0))
