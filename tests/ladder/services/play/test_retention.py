"""``ladder.services.play.retention.seat_logs_prune``: the logs of unrated matches (round robins not rated,
version comparisons) that finished or failed before the cut-off go, in batches, and nothing else does
(rated matches, recent ones, running ones, results and replays); a dry run counts the same without
changing anything; a negative, infinite, undefined or calendar-overflowing age is refused."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ladder.core.errors import ServiceError
from ladder.models import Match, Seat
from ladder.services.play import retention
from ladder.services.play.retention import PruneReport, seat_logs_prune
from ladder.services.tournaments.comparisons import comparison_create
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    MatchFactory,
    RatedTournamentFactory,
    SeatFactory,
    TournamentFactory,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]


def with_logs(match: Match, *, seats: int = 2) -> Match:
    for position in range(seats):
        seat = SeatFactory(match=match, position=position, score=position, place=position + 1, outcome="ok")
        seat.log, seat.decisions = f"seat {position} thinking\n" * 50, [{"step": 0, "ms": 1, "log": "x\n"}]
        seat.save()
    return match


def ended(tournament, *, days_ago: float, status: str = "finished") -> Match:
    at = timezone.now() - timedelta(days=days_ago)
    return with_logs(MatchFactory(tournament=tournament, status=status, started_at=at, finished_at=at,
                                  actions=[{"x": 1}]))


def has_logs(match: Match) -> list[bool]:
    return [logs is not None for logs in Seat.objects.filter(match=match).order_by("position")
            .values_list("logs", flat=True)]


@pytest.fixture
def history():
    unrated, rated = TournamentFactory(), RatedTournamentFactory()
    return {
        "old": ended(unrated, days_ago=40),
        "old_failed": ended(unrated, days_ago=40, status="failed"),
        "recent": ended(unrated, days_ago=5),
        "rated": ended(rated, days_ago=400),
        "queued": with_logs(MatchFactory(tournament=unrated)),
    }


def test_the_logs_of_old_unrated_matches_go_and_everything_else_stays(history):
    before = {name: list(Seat.objects.filter(match=m).order_by("position").values_list("score", "place", "outcome"))
              for name, m in history.items()}
    report = seat_logs_prune(older_than_days=30)
    assert (report.matches, report.seats, report.dry_run) == (2, 4, False) and report.bytes > 0
    assert has_logs(history["old"]) == has_logs(history["old_failed"]) == [False, False]
    for name in ("recent", "rated", "queued"):
        assert has_logs(history[name]) == [True, True], name
    for name, match in history.items():
        assert list(Seat.objects.filter(match=match).order_by("position")
                    .values_list("score", "place", "outcome")) == before[name]
    assert Match.objects.get(pk=history["old"].pk).actions == [{"x": 1}]
    assert seat_logs_prune(older_than_days=30) == PruneReport(matches=0, seats=0, bytes=0, dry_run=False)


def test_a_dry_run_counts_what_a_prune_frees_and_changes_nothing(history):
    dry = seat_logs_prune(older_than_days=30, dry_run=True)
    assert dry.dry_run and (dry.matches, dry.seats) == (2, 4)
    assert has_logs(history["old"]) == [True, True]
    done = seat_logs_prune(older_than_days=30)
    assert (done.matches, done.seats, done.bytes) == (dry.matches, dry.seats, dry.bytes)
    assert done.to_json() == {"matches": 2, "seats": 4, "bytes": dry.bytes, "dry_run": False}


def test_zero_days_prunes_every_ended_unrated_match_and_now_sets_the_cut_off(history):
    assert seat_logs_prune(older_than_days=10, now=timezone.now() - timedelta(days=31)).seats == 0
    assert seat_logs_prune(older_than_days=0).matches == 3  # old, old_failed, recent; never the queued one
    assert has_logs(history["queued"]) == [True, True]


def test_many_seats_are_cleared_in_batches(history, monkeypatch):
    monkeypatch.setattr(retention, "BATCH_SEATS", 1)
    report = seat_logs_prune(older_than_days=30)
    assert (report.matches, report.seats) == (2, 4)


def test_a_version_comparisons_matches_are_unrated():
    bot = BotFactory()
    BotVersionFactory(bot=bot)
    comparison = comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=2, max_games=10)
    match = comparison.matches.order_by("index").first()
    seat = match.seats.first()
    seat.log = "a comparison's log\n"
    seat.save()
    at = timezone.now() - timedelta(days=60)
    Match.objects.filter(pk=match.pk).update(status="finished", started_at=at, finished_at=at)
    assert seat_logs_prune(older_than_days=30).seats == 1
    assert Seat.objects.get(pk=seat.pk).logs is None


@pytest.mark.parametrize("days", [-1, -0.001, float("inf"), float("nan")])
def test_an_age_that_is_not_a_finite_number_of_days_is_refused(days):
    with pytest.raises(ServiceError) as caught:
        seat_logs_prune(older_than_days=days)
    assert "at least 0" in caught.value.message


def test_an_age_before_the_calendar_is_refused():
    with pytest.raises(ServiceError) as caught:
        seat_logs_prune(older_than_days=1e9)
    assert "before the calendar" in caught.value.message
