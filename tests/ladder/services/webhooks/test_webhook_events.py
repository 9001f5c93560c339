"""``ladder.services.webhooks.events``: each of the four events is written for the owner of the object it
is about and nobody else, only to that owner's webhooks subscribed to it, with the ``data`` that
docs/webhooks.md shows (the comparison's infinite Elo bounds as null)."""

from __future__ import annotations

import json

import pytest
from django.utils import timezone

from ladder.models import BotVersion, Comparison, WebhookDelivery
from ladder.services.webhooks.events import (
    bot_deactivated,
    bot_validated,
    comparison_finished,
    tournament_finished,
)
from ladder.services.webhooks.subscriptions import EVENTS, webhook_create
from tests.factories import BotFactory, BotVersionFactory, TournamentFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    user = UserFactory()
    webhook_create(owner=user, url="http://127.0.0.1:9/all", events=list(EVENTS))
    return user


def bodies(user) -> list[dict]:
    return [json.loads(body) for body in WebhookDelivery.objects.filter(webhook__owner=user).order_by("id")
            .values_list("body", flat=True)]


def test_bot_validated_tells_the_bots_owner_the_version_its_status_and_message(owner):
    bot = BotFactory(owner=owner)
    version = BotVersionFactory(bot=bot, validation_status=BotVersion.Validation.REJECTED,
                                validation_message="syntax error in bot.py, line 1")
    assert bot_validated(version=version) == 1
    [body] = bodies(owner)
    assert body["event"] == "bot.validated"
    assert body["data"] == {"bot": {"id": bot.id, "name": bot.name, "game": "kingdomino"}, "version": 2,
                            "status": "rejected", "message": "syntax error in bot.py, line 1"}
    assert set(body) == {"event", "id", "created_at", "data"}


def test_bot_deactivated_tells_the_owner_that_the_bot_is_inactive(owner):
    bot = BotFactory(owner=owner)
    assert bot_deactivated(bot=bot) == 1
    assert bodies(owner)[0]["data"] == {"bot": {"id": bot.id, "name": bot.name, "game": "kingdomino"},
                                        "active": False}


def comparison_of(bot, **fields) -> Comparison:
    """A done comparison as the service hands it to the event (not saved: the event reads only its fields)."""
    return Comparison(id=4242, bot=bot, baseline=bot.versions.get(number=1), candidate=BotVersionFactory(bot=bot),
                      elo0=0, elo1=10, alpha=0.05, beta=0.05, max_games=100, created_by=bot.owner, **fields)


def test_comparison_finished_counts_the_games_from_the_pairs_and_gives_the_elo_interval(owner):
    bot = BotFactory(owner=owner)
    comparison = comparison_of(bot, status="done", verdict="better", pairs=[1, 2, 3, 4, 5],
                               llr_history=[0.5, 1.25, 3.1])
    assert comparison_finished(comparison=comparison, elo=(12.345, -1.0, float("inf"))) == 1
    data = bodies(owner)[0]["data"]
    assert data == {
        "comparison": comparison.id, "bot": {"id": bot.id, "name": bot.name, "game": "kingdomino"},
        "baseline": 1, "candidate": 2, "verdict": "better", "games": 30, "pairs": [1, 2, 3, 4, 5], "llr": 3.1,
        "elo": {"estimate": 12.35, "low": -1.0, "high": None}, "url": f"/api/comparisons/{comparison.id}/",
    }


def test_a_comparison_without_pairs_or_history_reports_zeros(owner):
    comparison = comparison_of(BotFactory(owner=owner), status="done", verdict="inconclusive")
    comparison_finished(comparison=comparison, elo=(float("nan"), float("-inf"), float("inf")))
    data = bodies(owner)[0]["data"]
    assert (data["games"], data["pairs"], data["llr"]) == (0, [0, 0, 0, 0, 0], 0.0)
    assert data["elo"] == {"estimate": None, "low": None, "high": None}


def test_tournament_finished_tells_its_creator_with_the_standings_link(owner):
    finished_at = timezone.now()
    tournament = TournamentFactory(created_by=owner, status="finished", finished_at=finished_at)
    assert tournament_finished(tournament=tournament) == 1
    data = bodies(owner)[0]["data"]
    assert data == {"tournament": tournament.id, "name": tournament.name, "game": "kingdomino", "rated": False,
                    "status": "finished", "finished_at": data["finished_at"],
                    "standings_url": f"/api/tournaments/{tournament.id}/standings/"}
    assert data["finished_at"].startswith(finished_at.strftime("%Y-%m-%dT%H:%M:%S"))


def test_each_event_reaches_only_the_owners_webhooks_subscribed_to_it(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    owner, stranger = UserFactory(), UserFactory()
    webhook_create(owner=owner, url="http://127.0.0.1:9/validated", events=["bot.validated"])
    webhook_create(owner=stranger, url="http://127.0.0.1:9/all", events=list(EVENTS))
    bot = BotFactory(owner=owner)
    assert bot_deactivated(bot=bot) == 0
    assert bot_validated(version=bot.versions.get()) == 1
    assert [body["event"] for body in bodies(owner)] == ["bot.validated"]
    assert bodies(stranger) == []


def test_a_tournament_without_a_creator_tells_nobody(owner):
    assert tournament_finished(tournament=TournamentFactory(created_by=None)) == 0
    assert WebhookDelivery.objects.count() == 0
