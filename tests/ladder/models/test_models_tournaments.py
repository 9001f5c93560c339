"""The tournaments' models (``ladder.models.tournaments``): the database constraints that hold a tournament's,
a version comparison's and the stored standings' invariants whoever writes them."""

from __future__ import annotations

import pytest
from django.utils import timezone

from ladder.models import Comparison, Game, Tournament, TournamentStanding
from tests.factories import BotFactory, BotVersionFactory, RatedTournamentFactory, TournamentFactory
from tests.ladder.models.test_models_matches import refused

pytestmark = pytest.mark.django_db


def test_a_tournaments_seed_goes_with_unrated_and_a_finished_one_has_a_time():
    refused(lambda: RatedTournamentFactory(seed=5))
    refused(lambda: TournamentFactory(seed=None))
    refused(lambda: TournamentFactory(status="finished", finished_at=None))
    assert TournamentFactory(status="finished", finished_at=timezone.now()).pk


def test_one_ladder_per_game_and_a_ladder_is_rated():
    ladder = Tournament.objects.create(game=BotFactory().game, name="ladder", kind="ladder", players_per_match=2,
                                       rated=True)
    refused(lambda: Tournament.objects.create(game=ladder.game, name="again", kind="ladder", players_per_match=2,
                                              rated=True))
    other = Game.objects.get(slug="dice_king")
    refused(lambda: Tournament.objects.create(game=other, name="unrated", kind="ladder", players_per_match=2,
                                              seed=1))
    assert Tournament.objects.create(game=other, name="ladder", kind="ladder", players_per_match=2, rated=True).pk


def test_a_comparison_compares_two_versions_and_has_a_verdict_once_done():
    bot = BotFactory()
    baseline, candidate = bot.versions.get(), BotVersionFactory(bot=bot)

    def comparison(**fields):
        return Comparison.objects.create(**{"bot": bot, "baseline": baseline, "candidate": candidate, "elo0": 0.0,
                                            "elo1": 5.0, "alpha": 0.05, "beta": 0.05, "max_games": 100, **fields})

    refused(lambda: comparison(candidate=baseline))
    refused(lambda: comparison(elo0=5.0))
    refused(lambda: comparison(max_games=1))
    refused(lambda: comparison(status="done"))
    refused(lambda: comparison(verdict="better"))
    assert comparison(status="done", verdict="better", finished_at=timezone.now()).pk


def test_a_standing_counts_no_more_forfeits_than_games():
    tournament, bot = TournamentFactory(), BotFactory()

    def standing(**fields):
        return TournamentStanding.objects.create(**{"tournament": tournament, "bot": bot, "first_match_id": 1,
                                                    "first_position": 0, "updated_at": timezone.now(), **fields})

    refused(lambda: standing(games=1, forfeits=2))
    assert standing(games=2, forfeits=2).pk
    refused(lambda: standing(games=3))
