"""Reading tournaments (``ladder.selectors.tournaments``): one tournament or 404, the lists with their match
counts, progress with its estimated finish, standings read from the stored records with every entered bot
listed, the crosstable, a duplicate round robin's deals, and the page that puts them together."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ladder.core.errors import ServiceError
from ladder.models import Match, Tournament
from ladder.selectors import tournaments as reads
from tests.factories import BotFactory, MatchFactory, TournamentFactory, finished_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def cup():
    """a beats b, a draws c (by places), c waits for nothing more, d is entered and has not played; one match
    still queued, one failed."""
    a, b, c, d = (BotFactory(name=name) for name in "abcd")
    tournament = TournamentFactory(bots=[a, b, c, d])
    # The queued match first: a tournament whose last match is recorded finishes.
    MatchFactory(tournament=tournament)
    MatchFactory(tournament=tournament, status="failed", finished_at=timezone.now())
    finished_match(bots=[a, b], tournament=tournament, places=[1, 2])
    finished_match(bots=[a, c], tournament=tournament, places=[1, 1])
    return {"tournament": tournament, "bots": {bot.name: bot for bot in (a, b, c, d)}}


def test_a_tournament_is_read_or_404(cup):
    assert reads.tournament_get(tournament_id=cup["tournament"].id) == cup["tournament"]
    with pytest.raises(ServiceError, match="no tournament with id") as refusal:
        reads.tournament_get(tournament_id=10**12)
    assert refusal.value.status == 404


def test_the_lists_carry_match_counts(cup):
    TournamentFactory(status="finished", finished_at=timezone.now())
    [listed] = [t for t in reads.tournaments_listed() if t.id == cup["tournament"].id]
    assert (listed.finished, listed.failed, listed.queued, listed.running) == (2, 1, 1, 0)
    assert (listed.done, listed.total, listed.percent) == (3, 4, 75)
    running = reads.tournaments_running()
    assert cup["tournament"].id in [t.id for t in running]
    assert all(t.status == "running" for t in running)
    assert len(reads.tournaments_listed(limit=1)) == 1
    assert reads.percent_done(0, 0) == 0 and reads.percent_done(1, 3) == 33


def test_progress_estimates_the_finish_from_the_pace_so_far(cup):
    tournament = cup["tournament"]
    now = timezone.now()
    start = now - timedelta(minutes=30)
    Match.objects.filter(tournament=tournament, status="finished").update(started_at=start)
    progress = reads.tournament_progress(tournament=tournament, now=now)
    assert (progress.total, progress.queued, progress.running, progress.finished, progress.failed) == (4, 1, 0, 2, 1)
    assert progress.started_at == start
    # Three done in 30 minutes: the one left takes 10 more.
    assert progress.estimated_finish == now + timedelta(minutes=10)
    assert progress.to_json()["total"] == 4
    tournament.refresh_from_db()
    summary = reads.tournament_progress_summary(tournament=tournament)
    assert summary | {"estimated_finish": None} == {"status": "running", "total": 4, "finished": 2, "failed": 1,
                                                    "running": 0, "queued": 1, "percent": 75,
                                                    "estimated_finish": None}


def test_progress_of_a_tournament_without_matches_has_no_estimate():
    progress = reads.tournament_progress(tournament=TournamentFactory())
    assert progress.total == 0 and progress.started_at is None and progress.estimated_finish is None


def test_standings_list_every_entered_bot_those_waiting_last(cup):
    bots = cup["bots"]
    lines = reads.tournament_standings(tournament=cup["tournament"])
    assert [(line["bot"], line["rank"], line["games"], line["points"]) for line in lines] == [
        ("a", 1, 2, 1.5), ("c", 2, 1, 0.5), ("b", 3, 1, 0.0), ("d", 4, 0, 0.0)]
    assert [line["bot_id"] for line in lines] == [bots[name].id for name in "acbd"]
    assert lines[0]["rating"] > lines[1]["rating"] > lines[2]["rating"]
    for line in lines:
        assert line["rating_low"] < line["rating"] < line["rating_high"] and line["rating_stderr"] > 0
    # The waiting bot's interval is the widest: it has no result at all.
    assert lines[3]["rating_stderr"] == max(line["rating_stderr"] for line in lines)


def test_the_crosstable_lists_who_met_in_standings_order(cup):
    bots = cup["bots"]
    table = reads.tournament_crosstable(tournament=cup["tournament"])
    assert [bot["name"] for bot in table["bots"]] == ["a", "c", "b"]
    row_a = table["rows"][0]
    assert row_a["bot"] == "a" and [r["opponent_id"] for r in row_a["results"]] == [bots["c"].id, bots["b"].id]
    assert row_a["results"][0] | {"opponent_id": 0} == {"opponent_id": 0, "wins": 0, "draws": 1, "losses": 0,
                                                        "games": 1, "score": 0.5}
    assert [r["opponent_id"] for r in table["rows"][2]["results"]] == [bots["a"].id]


def test_a_duplicate_round_robins_deals():
    a, b = BotFactory(name="a"), BotFactory(name="b")
    tournament = TournamentFactory(bots=[a, b], duplicate=True)
    finished_match(bots=[a, b], tournament=tournament, deal=0, seed=9, places=[1, 2])
    finished_match(bots=[b, a], tournament=tournament, deal=0, seed=9, places=[1, 2])
    finished_match(bots=[a, b], tournament=tournament, deal=1, seed=10, places=[1, 1])
    deals = reads.tournament_deals(tournament=tournament)
    assert deals == [
        {"deal": 0, "games": 2, "rotations": 2, "complete": True,
         "bots": [{"bot_id": a.id, "bot": "a", "points": 1.0}, {"bot_id": b.id, "bot": "b", "points": 1.0}]},
        {"deal": 1, "games": 1, "rotations": 2, "complete": False,
         "bots": [{"bot_id": a.id, "bot": "a", "points": 0.5}, {"bot_id": b.id, "bot": "b", "points": 0.5}]},
    ]


def test_a_tournament_that_is_not_duplicate_has_no_deals(cup, django_assert_num_queries):
    with django_assert_num_queries(0):
        assert reads.tournament_deals(tournament=cup["tournament"]) == []


def test_the_page_cuts_the_crosstable_to_the_best(cup, monkeypatch):
    page = reads.tournament_page_data(tournament_id=cup["tournament"].id)
    assert [bot["name"] for bot in page["crosstable_bots"]] == ["a", "c", "b"] and not page["crosstable_cut"]
    assert [row["cells"][i] is None for i, row in enumerate(page["crosstable"])] == [True] * 3
    assert page["crosstable"][0]["cells"][1].draws == 1 and page["crosstable"][1]["cells"][2] is None
    assert page["progress"]["total"] == 4 and len(page["standings"]) == 4 and page["deals"] == []
    assert {match.id for match in page["recent"]} <= set(
        Match.objects.filter(tournament=cup["tournament"]).values_list("id", flat=True))
    monkeypatch.setattr(reads, "CROSSTABLE_BOTS", 2)
    page = reads.tournament_page_data(tournament_id=cup["tournament"].id)
    assert [bot["name"] for bot in page["crosstable_bots"]] == ["a", "c"] and page["crosstable_cut"]
    with pytest.raises(ServiceError):
        reads.tournament_page_data(tournament_id=10**12)
    assert Tournament.objects.filter(pk=cup["tournament"].pk).exists()
