"""Reading games (``ladder.selectors.games``): the games bots can play in the order installed, and their
counts of active bots and of finished public matches (summed from the tournaments' tallies, a version
comparison's matches left out) in three queries."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

import engines
from ladder.models import Game
from ladder.selectors.games import games_available, games_with_counts
from ladder.services.tournaments.comparisons import comparison_create
from ladder.services.uploads.bots import bot_set_active
from tests.factories import BotFactory, BotVersionFactory, TournamentFactory, finished_match

pytestmark = pytest.mark.django_db


def counts() -> dict[str, tuple[int, int]]:
    return {game.slug: (game.bot_count, game.finished_count) for game in games_with_counts()}


def test_the_available_games_are_the_installed_engines_in_order():
    games = list(games_available())
    assert sorted(game.slug for game in games) == sorted(engines.names())
    assert [game.id for game in games] == sorted(game.id for game in games)


def test_a_game_no_longer_installed_is_not_available():
    Game.objects.filter(slug="dice_king").update(available=False)
    assert "dice_king" not in {game.slug for game in games_available()}
    assert "dice_king" not in counts()


def test_a_game_without_bots_or_matches_counts_zero():
    assert set(counts().values()) == {(0, 0)}


def test_counts_of_active_bots_and_finished_public_matches():
    dice_king = Game.objects.get(slug="dice_king")
    a, b = BotFactory(), BotFactory()
    BotFactory(game=dice_king)
    retired = BotFactory()
    bot_set_active(bot=retired, active=False)
    tournament = TournamentFactory(bots=[a, b])
    finished_match(bots=[a, b], tournament=tournament)
    finished_match(bots=[b, a], tournament=tournament)
    table = counts()
    assert table["kingdomino"] == (2, 2)
    assert table["dice_king"] == (1, 0)


def test_a_version_comparisons_matches_are_not_counted():
    bot = BotFactory()
    BotVersionFactory(bot=bot)
    comparison = comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=2)
    comparison.matches.update(status="finished", started_at=timezone.now(), finished_at=timezone.now())
    assert counts()["kingdomino"] == (1, 0)


def test_the_counts_take_three_queries_however_many_games():
    with CaptureQueriesContext(connection) as queries:
        games_with_counts()
    assert len(queries) == 3
