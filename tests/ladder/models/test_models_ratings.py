"""The ratings' models (``ladder.models.ratings``): the database constraints that hold a rating's record, a
seat's one history row, and the pair records' and flags' one row per pair, lower bot first."""

from __future__ import annotations

import pytest
from django.db.models import F
from django.utils import timezone

from ladder.models import PairFlag, PairRecord, Rating
from tests.factories import BotFactory, RatingChangeFactory
from tests.ladder.models.test_models_matches import refused

pytestmark = pytest.mark.django_db


def test_a_rating_is_one_per_bot_and_game_and_its_record_adds_up():
    bot = BotFactory()
    refused(lambda: Rating.objects.create(bot=bot, game=bot.game))
    refused(lambda: Rating.objects.filter(bot=bot).update(games=1))
    Rating.objects.filter(bot=bot).update(games=3, wins=1, draws=1, losses=1)
    assert Rating.objects.get(bot=bot).games == 3


def test_a_seat_has_one_history_row():
    change = RatingChangeFactory()
    refused(lambda: RatingChangeFactory(seat=change.seat))


@pytest.mark.parametrize("model", [PairRecord, PairFlag])
def test_a_pair_is_one_row_with_the_lower_bot_first(model):
    low, high = sorted([BotFactory(), BotFactory()], key=lambda bot: bot.id)
    extra = {"updated_at": timezone.now()} if model is PairRecord else {
        "weight": 4.0, "score": 4.0, "expected": 2.0, "p_value": 0.001, "flagged_at": timezone.now()}

    def pair(first, second):
        return model.objects.create(game=low.game, bot_low=first, bot_high=second, **extra)

    refused(lambda: pair(high, low))
    refused(lambda: pair(low, low))
    pair(low, high)
    refused(lambda: pair(low, high))
    assert model.objects.filter(bot_low__lt=F("bot_high")).count() == 1
