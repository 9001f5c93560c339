"""Reading the continuous ladder (``ladder.selectors.ladder``): why a bot gets no ladder games, in words its
owner can act on (its game's ladder seats bots of different owners, it is inactive, it has no accepted
version, too few bots), and how many ladder games it had in the last hour and day."""

from datetime import timedelta

import pytest
from django.utils import timezone

from ladder.models import Game, LadderEntry, Tournament
from ladder.selectors.ladder import RECENT_STEP_S, bot_ladder_games, bot_ladder_status, ladder_games_recent
from ladder.services.tournaments.ladder import ladder_tournament_get
from tests.factories import BotVersionFactory

pytestmark = pytest.mark.django_db


def test_the_status_of_a_bot_whose_only_opponents_are_its_owners_bots(bot_factory, user_factory):
    ada = user_factory()
    mine = bot_factory(owner=ada)
    assert bot_ladder_status(bot=mine).state == "too_few_bots"
    bot_factory(owner=ada)
    status = bot_ladder_status(bot=mine)
    assert status.state == "own_bots_only"
    assert "its only possible opponents are its owner's other bots" in status.message
    assert "never seats two bots of one owner" in status.message
    bot_factory()
    assert bot_ladder_status(bot=mine).state == "playing"


def test_the_status_in_a_three_player_ladder_counts_owners_not_bots(bot_factory, user_factory):
    game = Game.objects.get(slug="draftosaurus")
    Tournament.objects.filter(pk=ladder_tournament_get(game=game).pk).update(players_per_match=3)
    ada, bob = user_factory(), user_factory()
    mine = bot_factory(owner=ada, game=game)
    bot_factory(owner=bob, game=game)
    bot_factory(owner=bob, game=game)
    status = bot_ladder_status(bot=mine)
    assert status.state == "own_bots_only" and "bots of 3 different owners" in status.message
    bot_factory(game=game)
    assert bot_ladder_status(bot=mine).state == "playing"


def test_the_status_of_an_inactive_bot_and_of_one_without_an_accepted_version(bot_factory, user_factory):
    bots = [bot_factory() for _ in range(3)]
    bots[0].active = False
    assert bot_ladder_status(bot=bots[0]).state == "inactive"
    bots[1].versions.update(validation_status="pending")
    assert bot_ladder_status(bot=bots[1]).state == "no_accepted_version"
    BotVersionFactory(bot=bots[1])
    assert bot_ladder_status(bot=bots[1]).state == "playing"


def test_a_bots_ladder_games_are_those_of_its_entrys_steps_in_the_last_hour_and_day(bot_factory,
                                                                                     django_assert_num_queries):
    bot, newcomer = bot_factory(), bot_factory()
    now = timezone.now()
    step = int(now.timestamp()) // RECENT_STEP_S
    LadderEntry.objects.create(tournament=ladder_tournament_get(game=bot.game), bot=bot, seat_counts=[4, 3],
                               scheduled=7, recent={str(step): 2, str(step - 3): 1, str(step - 12): 4})
    with django_assert_num_queries(1):
        assert bot_ladder_games(bot=bot, now=now) == {"last_hour": 3, "last_day": 7}
    assert bot_ladder_games(bot=bot, now=now + timedelta(days=1, minutes=RECENT_STEP_S // 60)) == {
        "last_hour": 0, "last_day": 0}
    assert bot_ladder_games(bot=newcomer, now=now) == {"last_hour": 0, "last_day": 0}
    assert ladder_games_recent(None, now=now) == {"last_hour": 0, "last_day": 0}
