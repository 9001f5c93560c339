"""How long a game's matches take, by its recent finished ones (``ladder.messaging.match_durations``): what
sizes the messages of a send."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from ladder.messaging import match_durations
from ladder.messaging.match_durations import MIN_SAMPLES, match_seconds, match_seconds_forget
from ladder.models import Game, Match
from tests.factories import MatchFactory

pytestmark = pytest.mark.django_db


def _finished(game, count: int, seconds: float, *, players: int = 2, status=Match.Status.FINISHED, ago_s: float = 0):
    at = timezone.now() - timedelta(seconds=ago_s)
    return [MatchFactory(tournament__game=game, players=players, status=status, finished_at=at, duration_s=seconds)
            for _ in range(count)]


def test_the_figure_is_the_mean_of_the_recent_finished_matches_of_the_game_and_player_count():
    kingdomino = Game.objects.get(slug="kingdomino")
    _finished(kingdomino, MIN_SAMPLES - 1, 0.1)
    _finished(kingdomino, 3, 9.0, status=Match.Status.FAILED)
    MatchFactory(tournament__game=kingdomino, players=2)  # queued: no duration
    _finished(kingdomino, MIN_SAMPLES, 1.0, players=3)
    assert match_seconds(game_id=kingdomino.id, players=2) is None  # too few to tell
    assert match_seconds(game_id=kingdomino.id, players=3) == pytest.approx(1.0)
    _finished(kingdomino, 1, 1.0)
    match_seconds_forget()
    assert match_seconds(game_id=kingdomino.id, players=2) == pytest.approx((0.1 * (MIN_SAMPLES - 1) + 1.0) / MIN_SAMPLES)
    assert match_seconds(game_id=Game.objects.get(slug="draftosaurus").id, players=2) is None


def test_only_the_newest_finished_matches_are_read_and_only_once_a_while(monkeypatch):
    kingdomino = Game.objects.get(slug="kingdomino")
    monkeypatch.setattr(match_durations, "RECENT_MATCHES", MIN_SAMPLES)
    _finished(kingdomino, 5, 30.0, ago_s=60)  # older than the newest MIN_SAMPLES: not read
    _finished(kingdomino, MIN_SAMPLES, 0.2)
    with CaptureQueriesContext(connection) as first:
        assert match_seconds(game_id=kingdomino.id, players=2) == pytest.approx(0.2)
    _finished(kingdomino, MIN_SAMPLES, 4.0, ago_s=-1)
    with CaptureQueriesContext(connection) as again:
        assert match_seconds(game_id=kingdomino.id, players=2) == pytest.approx(0.2)  # the figure read before
    assert (len(first), len(again)) == (1, 0)
    monkeypatch.setattr(match_durations, "CACHE_S", 0.0)
    assert match_seconds(game_id=kingdomino.id, players=2) == pytest.approx(4.0)  # read again: the newest


def _rows_read(plan: dict) -> int:
    """The rows every scan of an EXPLAIN (ANALYZE, FORMAT JSON) plan read from its table or index."""
    own = plan["Actual Rows"] + plan.get("Rows Removed by Filter", 0) if "Scan" in plan["Node Type"] else 0
    return own + sum(_rows_read(child) for child in plan.get("Plans", []))


def test_the_read_takes_the_newest_finished_matches_from_the_index_however_long_the_history(monkeypatch):
    from tests.factories import FinishedMatchFactory, TournamentFactory, bulk_insert

    kingdomino = Game.objects.get(slug="kingdomino")
    monkeypatch.setattr(match_durations, "RECENT_MATCHES", 100)
    tournament = TournamentFactory(game=kingdomino)
    start = timezone.now() - timedelta(days=1)
    bulk_insert(Match, [FinishedMatchFactory.build(game=kingdomino, tournament=tournament, index=i,
                                                   finished_at=start + timedelta(seconds=i), duration_s=0.5)
                        for i in range(3000)])
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {Match._meta.db_table}")
    with CaptureQueriesContext(connection) as queries:
        assert match_seconds(game_id=kingdomino.id, players=2) == pytest.approx(0.5)
    (read,) = queries.captured_queries
    with connection.cursor() as cursor:
        cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + read["sql"])
        plan = cursor.fetchone()[0][0]["Plan"]
    assert _rows_read(plan) <= 100  # not the 3,000 finished matches
