"""Ladder matches wait in their own queue, which workers take last: a tournament scheduled behind seconds
of queued ladder work is not queued behind it."""

import random

import pytest

from ladder.messaging.enqueue import broker_match_messages, broker_queue_length
from ladder.models import Match
from ladder.services.play.matches import matches_reconcile
from ladder.services.tournaments.ladder import ladder_tick
from ladder.services.tournaments.round_robins import tournament_create
from tests.conftest import broker_queue_purge

pytestmark = pytest.mark.django_db


def test_ladder_messages_go_to_the_ladder_queue_and_tournament_ones_to_the_match_queue(
        bot_factory, settings, private_queue, django_capture_on_commit_callbacks):
    bots = [bot_factory() for _ in range(4)]
    with django_capture_on_commit_callbacks(execute=True):
        assert ladder_tick(matches_per_game=5, rng=random.Random(0)) == {"kingdomino": 5}
    assert (broker_queue_length(settings.LADDER_QUEUE), broker_queue_length(private_queue)) == (5, 0)
    with django_capture_on_commit_callbacks(execute=True):
        tournament_create(created_by=None, game_slug="kingdomino", name="cup", bot_ids=[b.id for b in bots[:2]],
                          players_per_match=2)
    assert (broker_queue_length(settings.LADDER_QUEUE), broker_queue_length(private_queue)) == (5, 1)
    assert broker_match_messages().waiting == 6


def test_the_reconciler_counts_both_queues(bot_factory, settings, private_queue,
                                          django_capture_on_commit_callbacks):
    [bot_factory() for _ in range(4)]
    with django_capture_on_commit_callbacks(execute=True):
        ladder_tick(matches_per_game=3, rng=random.Random(0))
    assert matches_reconcile().lost == 0
    broker_queue_purge(settings.LADDER_QUEUE)
    with django_capture_on_commit_callbacks(execute=True):
        report = matches_reconcile()
    assert (report.lost, report.resent) == (3, 3)
    assert broker_queue_length(settings.LADDER_QUEUE) == 3
    assert Match.objects.filter(status="queued").count() == 3
