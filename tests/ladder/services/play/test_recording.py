"""Recording many matches in one transaction (``ladder.services.play.recording.results_record``): the same
rows as recording them one at a time, each match once, and nothing of a batch whose result is wrong."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.match_result import MatchResult, SeatResult
from ladder.benches.recording import RecordingField, recording_statements
from ladder.core import database
from ladder.models import Match, Rating, RatingChange, Seat, Tournament, TournamentTally
from ladder.services.play import match_sql
from ladder.services.play.matches import match_claim
from ladder.services.play.recording import result_pack, results_record
from ladder.services.ratings.rating_rebuild import ratings_rebuild
from ladder.services.ratings.tournament_records import records_rebuild
from tests.factories import BotFactory, MatchFactory, RatedTournamentFactory, SeatFactory, TournamentFactory
from tests.ladder.services.ratings.test_tournament_records import (
    _match_plans,
    _rows,
    assert_stored_equal_computed,
)

pytestmark = pytest.mark.django_db


def _played(match, bots, places, outcomes) -> MatchResult:
    return MatchResult(
        game=match.game.slug, players=len(bots), seed=match.seed, options=match.options, actions=[],
        seats=[SeatResult(bot=bot.name, score=10 - place, place=place, outcome=outcome,
                          reason="" if outcome == "ok" else "timeout on move 1", time_used_ms=3, log=f"seat {i}")
               for i, (bot, place, outcome) in enumerate(zip(bots, places, outcomes, strict=True))],
        duration_s=0.25)


def claimed(tournament, bots, places, outcomes=None):
    """A match of ``tournament`` seating ``bots``, claimed, with its result packed as a worker packs it."""
    match = MatchFactory(tournament=tournament, players=len(bots))
    for position, bot in enumerate(bots):
        SeatFactory(match=match, position=position, bot=bot)
    claim = match_claim(match_id=match.pk, worker="tests")
    result = _played(match, bots, places, outcomes or ["ok"] * len(bots))
    return result_pack(match_id=match.pk, token=claim.token, result=result)


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture,
                                                                  HealthCheck.too_slow])
@given(plans=st.lists(_match_plans(4), min_size=1, max_size=9), batch=st.integers(1, 9), rated=st.booleans())
def test_batches_record_the_rows_one_match_at_a_time_would(plans, batch, rated):
    bots = [BotFactory() for _ in range(4)]
    tournament = (RatedTournamentFactory if rated else TournamentFactory)(bots=bots)
    packed = [claimed(tournament, [bots[i] for i in seats], places, outcomes)
              for seats, places, outcomes, _scores, _retried in plans]
    for start in range(0, len(packed), batch):
        chunk = packed[start:start + batch]
        assert results_record(chunk) == {result.match_id: True for result in chunk}
    assert_stored_equal_computed(tournament)
    assert TournamentTally.objects.get(tournament=tournament).finished == len(plans)
    before = _rows(tournament)
    records_rebuild(tournament_ids=[tournament.id], now=timezone.now())
    assert _rows(tournament) == before
    stored = {seat.match_id: seat for seat in Seat.objects.filter(match__tournament=tournament, position=0)}
    assert [stored[result.match_id].logs for result in packed] == [result.seats[0].logs for result in packed]


def test_a_rated_batch_applies_its_matches_in_order_as_the_rebuild_replays_them():
    bots = [BotFactory() for _ in range(5)]
    tournament = RatedTournamentFactory(bots=bots)
    pairs = [(0, 1), (1, 2), (0, 1), (2, 3), (3, 4), (0, 4), (1, 0), (4, 2)]
    packed = [claimed(tournament, [bots[a], bots[b]], [1, 2]) for a, b in pairs]
    assert all(results_record(packed[:5]).values()) and all(results_record(packed[5:]).values())
    changes = list(RatingChange.objects.order_by("id").values_list("bot_id", "before", "after", "match_id"))
    assert [match_id for *_, match_id in changes[::2]] == [result.match_id for result in packed]
    last: dict[int, float] = {}
    for bot_id, before, after, _ in changes:  # the chain of each bot's ratings is unbroken
        assert before == pytest.approx(last.get(bot_id, before))
        last[bot_id] = after
    ratings = dict(Rating.objects.filter(bot__in=bots).values_list("bot_id", "elo"))
    ratings_rebuild(game_slug=tournament.game.slug)
    assert dict(Rating.objects.filter(bot__in=bots).values_list("bot_id", "elo")) == pytest.approx(ratings)
    assert ratings == pytest.approx(last)


def test_a_stale_or_repeated_result_in_a_batch_changes_nothing_of_its_match():
    bots = [BotFactory() for _ in range(3)]
    tournament = TournamentFactory(bots=bots)
    fresh = claimed(tournament, bots[:2], [1, 2])
    taken_over = claimed(tournament, bots[1:], [2, 1])
    Match.objects.filter(pk=taken_over.match_id).update(attempt_token=None, status="queued")
    bogus = result_pack(match_id=fresh.match_id, token="not a token", result=_played(
        Match.objects.get(pk=fresh.match_id), bots[:2], [2, 1], ["ok", "ok"]))
    assert results_record([fresh, taken_over, fresh, bogus]) == {fresh.match_id: True, taken_over.match_id: False}
    assert Match.objects.get(pk=taken_over.match_id).status == "queued"
    assert not Seat.objects.filter(match_id=taken_over.match_id).exclude(place=None).exists()
    assert list(Seat.objects.filter(match_id=fresh.match_id).order_by("position").values_list("place", flat=True)) \
        == [1, 2]
    assert results_record([fresh]) == {fresh.match_id: False}  # recorded once
    assert TournamentTally.objects.get(tournament=tournament).finished == 1


def test_a_result_whose_seats_do_not_fit_its_match_records_nothing_of_the_batch():
    bots = [BotFactory() for _ in range(3)]
    tournament = TournamentFactory(bots=bots)
    good = claimed(tournament, bots[:2], [1, 2])
    wrong = claimed(tournament, bots[:2], [1, 2])
    three = claimed(tournament, bots, [1, 2, 3])
    wrong = result_pack(match_id=wrong.match_id, token=wrong.token, result=_played(
        Match.objects.get(pk=wrong.match_id), bots, [1, 2, 3], ["ok"] * 3))
    with pytest.raises(ValueError, match="seats"):
        results_record([good, wrong, three])
    assert Match.objects.filter(tournament=tournament, status="running").count() == 3
    assert results_record([good, three]) == {good.match_id: True, three.match_id: True}


def test_the_last_matches_of_a_round_robin_in_one_batch_finish_it():
    bots = [BotFactory() for _ in range(3)]
    tournament = TournamentFactory(bots=bots, kind=Tournament.Kind.ROUND_ROBIN, status=Tournament.Status.RUNNING)
    packed = [claimed(tournament, [bots[a], bots[b]], [1, 2]) for a, b in ((0, 1), (1, 2), (0, 2))]
    assert all(results_record(packed).values())
    tournament.refresh_from_db()
    assert tournament.status == Tournament.Status.FINISHED


def test_a_batch_takes_the_same_statements_for_one_match_as_for_twenty():
    bots = [BotFactory() for _ in range(6)]
    tournament = RatedTournamentFactory(bots=bots, kind=Tournament.Kind.LADDER)
    counts = []
    for size in (1, 20, 1):
        packed = [claimed(tournament, [bots[i % 6], bots[(i + 1) % 6]], [1, 2]) for i in range(size)]
        with CaptureQueriesContext(connection) as queries:
            assert all(results_record(packed).values())
        recording, applying = recording_statements(queries.captured_queries)
        counts.append((len(recording), len(applying)))
    assert counts[0] == counts[1] == counts[2]
    assert counts[0][0] <= 5  # the plans' setting, finish with the reads, the pending marks, the writes


def _rows_read(plan: dict, table: str) -> int:
    """Rows of ``table`` an EXPLAIN ANALYZE plan node and those under it read (kept or filtered out)."""
    own = 0
    if plan.get("Relation Name") == table:
        own = (plan.get("Actual Rows", 0) + plan.get("Rows Removed by Filter", 0)) * plan.get("Actual Loops", 1)
    return own + sum(_rows_read(child, table) for child in plan.get("Plans", []))


def test_a_recording_reads_as_many_matches_however_many_of_its_tournament_are_queued():
    """Whether a tournament has matches left is one look at its queue, not a count of it: a recording
    of the ladder's tournament, thousands of matches queued, reads as few match rows as a lone match."""
    field = RecordingField(game_slug="kingdomino", bots=4, players=2)
    read = {}
    for queued in (0, 3000):
        scheduled = field.schedule(1 + queued)
        with connection.cursor() as cursor:
            cursor.execute(f"ANALYZE {Match._meta.db_table}")
        claim = match_claim(match_id=scheduled[0].match_id, worker="tests")
        packed = result_pack(match_id=claim.match_id, token=claim.token, result=field.result_for(0))
        params = match_sql.finish_many_params([packed], finished=Match.Status.FINISHED.value,
                                              running=Match.Status.RUNNING.value, queued=Match.Status.QUEUED.value,
                                              now=timezone.now())
        with connection.cursor() as cursor:
            cursor.execute("SAVEPOINT explained")
            cursor.execute("EXPLAIN (ANALYZE, FORMAT JSON) " + match_sql.finish_many_sql(), params)
            plan = cursor.fetchone()[0]
            cursor.execute("ROLLBACK TO SAVEPOINT explained")
        plan = database.from_db_json(plan)
        read[queued] = _rows_read(plan[0]["Plan"], Match._meta.db_table)
        Match.objects.filter(id__in=[s.match_id for s in scheduled]).delete()
    # The match finished, and at most one queued match found (none where none is queued).
    assert read[0] <= 3 and read[3000] <= 3, read


@pytest.mark.django_db(transaction=True)  # each recording its own transaction, as a worker's: SET LOCAL ends there
def test_the_recording_plans_its_finishing_statement_once_not_at_every_run():
    """The finishing UPDATE's rows arrive as arrays, and the server, left to itself, planned it anew at
    every recording (a plan for the values looked cheaper than one for any values); the recording's
    transaction asks for generic plans (``database.transaction_settings``), so the prepared statement is
    planned once and run from that plan."""
    if not database.prepares_statements():
        pytest.skip("nothing is prepared behind a pooler in transaction mode (DATABASE_POOLER)")
    bots = [BotFactory() for _ in range(4)]
    tournament = RatedTournamentFactory(bots=bots, kind=Tournament.Kind.LADDER)
    for size in (3, 5, 2, 4, 3, 6, 2, 5):
        packed = [claimed(tournament, [bots[i % 4], bots[(i + 1) % 4]], [1, 2]) for i in range(size)]
        assert all(results_record(packed).values())
    with connection.cursor() as cursor:
        cursor.execute("SELECT generic_plans, custom_plans FROM pg_prepared_statements "
                       "WHERE statement LIKE %s", ["%finished AS (UPDATE%"])
        [(generic, custom)] = cursor.fetchall()
    assert custom == 0 and generic >= 5, (generic, custom)


@pytest.mark.django_db(transaction=True)  # committed recordings, as a worker's: their old versions are pruned
def test_a_recorded_seat_stays_on_the_page_it_was_scheduled_on():
    """A seat grows about two and a half times when its result is recorded; the seat table's pages keep room
    for that (its fillfactor, migration 0019), so the update is a heap-only tuple on the same page and
    writes no index entry. Seen from outside: every seat keeps the page (ctid block) it was inserted on."""
    bots = [BotFactory() for _ in range(4)]
    tournament = RatedTournamentFactory(bots=bots, kind=Tournament.Kind.LADDER)
    packed = [claimed(tournament, [bots[i % 4], bots[(i + 1) % 4]], [1, 2]) for i in range(60)]
    match_ids = [result.match_id for result in packed]

    def blocks() -> dict[int, int]:
        with connection.cursor() as cursor:
            cursor.execute("SELECT id, (ctid::text::point)[0]::int FROM ladder_seat WHERE match_id = ANY(%s)",
                           [match_ids])
            return dict(cursor.fetchall())

    before = blocks()
    for start in range(0, len(packed), 8):
        assert all(results_record(packed[start:start + 8]).values())
    assert len(before) == 120 and Seat.objects.filter(match_id__in=match_ids, logs__isnull=False).count() == 120
    assert blocks() == before
