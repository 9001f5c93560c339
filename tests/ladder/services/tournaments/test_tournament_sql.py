"""``ladder.services.tournaments.tournament_sql``, the round robin's finish run as it is against the database:
the hold locks the tournament's row only while none of its matches is queued, and the finish marks a
running round robin finished, returning its creator, only once none of its matches is queued or running;
a ladder is never finished, nor a round robin already finished or cancelled."""

from __future__ import annotations

import uuid

import pytest
from django.db import connection
from django.utils import timezone

from ladder.core import database
from ladder.models import Game, Match, Tournament
from ladder.services.tournaments import tournament_sql
from tests.factories import LadderTournamentFactory, MatchFactory, TournamentFactory

pytestmark = pytest.mark.django_db

QUEUED, RUNNING, FINISHED = Match.Status.QUEUED.value, Match.Status.RUNNING.value, Match.Status.FINISHED.value


def hold(tournament: Tournament) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(tournament_sql.tournament_hold_sql(), [tournament.pk, tournament.pk, QUEUED])
        return cursor.fetchall()


def finish(tournament: Tournament) -> list[tuple]:
    now = database.db_datetime(timezone.now())
    with connection.cursor() as cursor:
        cursor.execute(tournament_sql.tournament_finish_sql(), [
            Tournament.Status.FINISHED.value, now, now, tournament.pk, Tournament.Kind.ROUND_ROBIN.value,
            Tournament.Status.RUNNING.value, tournament.pk, QUEUED, RUNNING])
        return cursor.fetchall()


def done(match: Match) -> None:
    Match.objects.filter(pk=match.pk).update(status=FINISHED, finished_at=timezone.now())


def test_the_hold_locks_the_row_only_while_no_match_is_queued():
    tournament = TournamentFactory()
    match = MatchFactory(tournament=tournament)
    assert hold(tournament) == []
    done(match)
    assert hold(tournament) == [(tournament.pk,)]


def test_the_finish_waits_for_every_queued_and_running_match_and_returns_the_creator():
    tournament = TournamentFactory()
    first, second = MatchFactory(tournament=tournament), MatchFactory(tournament=tournament)
    assert finish(tournament) == []
    done(first)
    Match.objects.filter(pk=second.pk).update(status=RUNNING, attempt_token=uuid.uuid4(),
                                              lease_expires_at=timezone.now())
    assert finish(tournament) == []
    done(second)
    assert finish(tournament) == [(tournament.created_by_id,)]
    stored = Tournament.objects.get(pk=tournament.pk)
    assert stored.status == Tournament.Status.FINISHED and stored.finished_at is not None
    assert finish(tournament) == []


def test_a_ladder_or_a_cancelled_round_robin_is_never_finished():
    ladder = LadderTournamentFactory(game=Game.objects.get(slug="kingdomino"))
    cancelled = TournamentFactory(status=Tournament.Status.CANCELLED)
    assert finish(ladder) == [] and finish(cancelled) == []
    assert Tournament.objects.get(pk=ladder.pk).status == Tournament.Status.RUNNING
    assert Tournament.objects.get(pk=cancelled.pk).status == Tournament.Status.CANCELLED
