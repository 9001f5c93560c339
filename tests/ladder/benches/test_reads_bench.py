"""The reads bench (``ladder.benches.reads``) on tiny histories: its bulk history is what it claims
(finished ladder matches of two different bots, draws and forfeits among them, with the tournament's
stored standings, pair records and ratings agreeing with the seats), and every route it times answers."""

from __future__ import annotations

import pytest

from ladder.benches.leaderboard import _History
from ladder.benches.reads import ROUTES, measure_reads
from ladder.models import Match, PairRecord, Rating, Seat, TournamentStanding
from ladder.selectors.tournaments import tournament_standings
from tests.ladder.services.ratings.test_tournament_records import computed_standings

pytestmark = pytest.mark.django_db


def test_the_bulk_history_is_finished_ladder_matches_with_their_records():
    history = _History(bots=5)
    history.grow_fast_to(400, draws=0.1, forfeits=0.1)
    history.grow_fast_to(1000, draws=0.1, forfeits=0.1)
    matches = Match.objects.filter(tournament=history.tournament, status="finished")
    assert matches.count() == 1000 and history.size == 1000
    assert Seat.objects.filter(match__in=matches).count() == 2000
    # Two different bots in every match; some draws (both first) and some forfeits.
    assert not Match.objects.filter(seats__position=0, seats__bot_id=None).exists()
    assert all(a != b for a, b in zip(Seat.objects.filter(position=0).order_by("match_id").values_list("bot_id", flat=True),
                                      Seat.objects.filter(position=1).order_by("match_id").values_list("bot_id", flat=True),
                                      strict=True))
    assert Seat.objects.filter(outcome="timeout").exists()
    assert Match.objects.filter(seats__place=1).exclude(seats__place=2).exists()  # a draw
    assert sum(PairRecord.objects.values_list("weight", flat=True)) == pytest.approx(1000)
    assert sum(Rating.objects.filter(game=history.game).values_list("games", flat=True)) == 2000
    assert sum(TournamentStanding.objects.values_list("games", flat=True)) == 2000
    assert [{k: v for k, v in line.items() if not k.startswith("rating")}
            for line in tournament_standings(tournament=history.tournament)] == computed_standings(history.tournament)


def test_every_route_is_timed_at_each_size_with_its_ratio():
    history = _History(bots=4)
    figures = measure_reads(history, sizes=(60, 120), repeats=1)
    for name in ROUTES:
        assert figures[f"reads.{name}_ms.60"] > 0 and figures[f"reads.{name}_ms.120"] > 0
        assert figures[f"reads.{name}_ratio"] > 0
    assert figures["reads.bots"] == 4
