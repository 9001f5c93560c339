"""What recording a result costs the database: its statements and the bytes a match keeps on disk.

A worker records every match it plays (``ladder.services.play.matches.match_record_result``); at thousands of
results a second for one game, each statement and each byte of every match counts. The matches here are
rated ladder matches scheduled as the ladder's tick schedules them, recorded with results of the shape the
referee hands over (``ladder.benches.recording``: the actions of matches the engine played, a decision record
per decision of each seat).
"""

from __future__ import annotations

import pytest
from django.conf import settings
from django.db import connection
from django.test.utils import CaptureQueriesContext

from ladder.benches.protocol_trace import protocol_traced
from ladder.benches.recording import (
    RecordingField,
    _commits_as_a_worker,
    recording_statements,
    storage_per_match,
)
from ladder.models import Match, PairRecord, RatingChange, Seat, TournamentStanding, TournamentTally
from ladder.services.play import match_sql
from ladder.services.play.matches import match_claim, match_claim_many, match_record_result

pytestmark = pytest.mark.django_db


def _recorded_statements(field: RecordingField) -> tuple[list[str], list[str]]:
    match = field.schedule(1)[0]
    claim = match_claim(match_id=match.match_id, worker="tests")
    with CaptureQueriesContext(connection) as queries:
        assert match_record_result(match_id=match.match_id, token=claim.token, result=field.result_for(0)) is True
    return recording_statements(queries.captured_queries)


def test_a_rated_two_player_match_is_recorded_in_few_statements():
    """Counted: every statement of the transaction that records the result (Django's log of the
    connection), COMMIT excluded (the BEGIN is implicit, never sent). Whatever the number of seats, five,
    sent in two round trips: the transaction's settings (``database.transaction_settings``), the
    game's applier lock tried, the UPDATE that finishes the match with the reads it needs, the bots'
    ratings read under that lock, and one that writes the seats' results and
    ratings, the tournament's standings, head to head and tally, the ratings, their history and the pair
    records. After the commit, one read, sent in the COMMIT's round trip: whether another recording left
    results pending meanwhile. Six at
    most in all; it was fifteen (one per seat, per standing, per pair), then twelve (three, and nine of
    the applier after the commit)."""
    for game_slug, players in (("kingdomino", 2), ("draftosaurus", 5)):
        field = RecordingField(game_slug=game_slug, bots=players + 2, players=players)
        recording, after = _recorded_statements(field)
        assert len(recording) <= 5, recording
        assert len(recording) + len(after) <= 6, (recording, after)
        assert RatingChange.objects.filter(game=field.game).count() == players, "applied once recorded"


@pytest.mark.django_db(transaction=True)  # outside any transaction, as a worker claims and records
def test_a_workers_claim_of_a_message_is_one_round_trip_of_two_statements():
    """What the wire carries (libpq's trace of the protocol): a worker claims the matches of a message in
    one round trip of two statements, the transaction's settings and the claim, in the pipeline's own
    implicit transaction: no BEGIN or COMMIT sent. It was five: BEGIN, each setting on its own, the claim,
    COMMIT."""
    field = RecordingField(game_slug="kingdomino", bots=6, players=2)
    scheduled = field.schedule(4)
    with _commits_as_a_worker(), protocol_traced() as trace:
        claims = match_claim_many(match_ids=[match.match_id for match in scheduled], worker="tests")
    assert len(claims) == 4
    assert (trace.round_trips, trace.statements) == (1, 2), trace.lines
    assert not trace.parsed("BEGIN") and not trace.parsed("COMMIT")


@pytest.mark.django_db(transaction=True)
def test_a_rated_recording_holding_the_applier_lock_takes_two_round_trips_its_look_after_the_commit_included():
    """A worker's recording of a rated ladder match that takes its game's applier lock: two round trips
    in all, the look for results left pending meanwhile sent with the COMMIT (it was a third); eight
    statements: BEGIN, the settings, the lock, the finish and the ratings' read, then the writes, the COMMIT
    and the look (it was nine: each setting on its own)."""
    field = RecordingField(game_slug="kingdomino", bots=4, players=2)
    match = field.schedule(2)[0]
    claim = match_claim(match_id=match.match_id, worker="tests")
    with _commits_as_a_worker(), protocol_traced() as trace:
        assert match_record_result(match_id=match.match_id, token=claim.token, result=field.result_for(0))
    assert RatingChange.objects.filter(match_id=match.match_id).count() == 2, "applied in the recording"
    assert (trace.round_trips, trace.statements) == (2, 8), "\n".join(trace.lines)


def test_what_the_few_statements_write_is_all_there():
    field = RecordingField(game_slug="draftosaurus", bots=6, players=5)
    scheduled = field.schedule(2)
    field.record(scheduled)
    result = field.result_for(1)
    match = Match.objects.get(id=scheduled[1].match_id)
    assert match.status == "finished" and match.actions == result.actions
    seats = list(match.seats.order_by("position"))
    assert [(s.score, s.place, s.outcome, s.time_used_ms, s.decisions) for s in seats] == [
        (r.score, r.place, r.outcome, r.time_used_ms, r.decisions) for r in result.seats]
    assert all(s.rating_after is not None for s in seats)
    assert RatingChange.objects.filter(match=match).count() == 5
    assert TournamentTally.objects.get(tournament=field.tournament).finished == 2
    assert sum(TournamentStanding.objects.filter(tournament=field.tournament).values_list("games", flat=True)) == 10
    assert PairRecord.objects.filter(game=field.game).exists()
    assert Seat.objects.filter(match_id__in=[m.match_id for m in scheduled], outcome="").count() == 0
def test_the_message_recorder_claims_and_records_a_message_of_matches_at_a_time(settings):
    """What ``recording.recorded_per_s_by_message`` times: the path of a worker's ``run_matches`` messages,
    one claim and one recording for every ``MATCHES_PER_MESSAGE`` matches."""
    settings.MATCHES_PER_MESSAGE = 3
    field = RecordingField(game_slug="kingdomino", bots=6, players=2)
    scheduled = field.schedule(7)
    texts = []

    def remember(execute, sql, params, many, context):
        texts.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(remember):
        field.record_by_message(scheduled)
    # 3 + 3 + 1 matches: three claims, three recordings.
    assert texts.count(match_sql.claim_many_sql()) == 3 and texts.count(match_sql.finish_many_sql()) == 3
    assert Match.objects.filter(id__in=[m.match_id for m in scheduled], status="finished").count() == 7
    assert RatingChange.objects.filter(match_id__in=[m.match_id for m in scheduled]).count() == 14


@pytest.mark.django_db(transaction=True)
def test_a_two_player_kingdomino_match_keeps_at_most_2600_bytes_on_disk():
    """Heap, indexes and TOAST of every table the recording writes, over 500 matches scheduled in rounds
    of 50 and recorded, the growing tables left unvacuumed meanwhile (``storage_per_match``). It was 5.2 kB
    (a finished match's row written three times, each version in twelve indexes; the actions as JSON)."""
    field = RecordingField(game_slug="kingdomino", bots=20, players=2)
    stored, _wal = storage_per_match(field, matches=500)
    assert stored <= 2600


@pytest.mark.django_db(transaction=True)
def test_the_recording_bench_gives_every_figure_it_documents():
    from ladder.benches.recording import measure_recording

    figures = measure_recording(matches=30, processes=2, bots=6, other_matches=30)
    assert figures["recording.recorded_per_s"] > 0 and figures["recording.bare_insert_per_s"] > 0
    assert figures["recording.ratio"] == pytest.approx(
        figures["recording.recorded_per_s"] / figures["recording.bare_insert_per_s"], rel=0.01)
    assert 1 <= figures["recording.statements_per_match"]
    assert figures["recording.recorded_per_s_unprepared"] > 0
    assert figures["recording.recorded_per_s_batched"] > 0
    assert figures["recording.batched_ratio"] == pytest.approx(
        figures["recording.recorded_per_s_batched"] / figures["recording.bare_insert_per_s"], rel=0.01)
    assert figures["recording.recorded_per_s_by_message"] > 0
    assert figures["recording.by_message_ratio"] == pytest.approx(
        figures["recording.recorded_per_s_by_message"] / figures["recording.bare_insert_per_s"], rel=0.01)
    assert figures["recording.prepared_speedup"] == pytest.approx(
        figures["recording.recorded_per_s"] / figures["recording.recorded_per_s_unprepared"], rel=0.01)
    from ladder.services.play.result_group import group_available

    if group_available():
        assert figures["recording.recorded_per_s_grouped"] > 0
        assert figures["recording.grouped_ratio"] == pytest.approx(
            figures["recording.recorded_per_s_grouped"] / figures["recording.bare_insert_per_s"], rel=0.01)
    else:
        assert figures["recording.recorded_per_s_grouped"] is None
    assert figures["recording.statements_per_match"] <= 5 and figures["recording.rows_per_match"] >= 5
    assert figures["recording.statements_per_match"] + figures["recording.rating_statements_per_match"] <= 6
    assert figures["recording.bytes_per_match"] > 0 and figures["recording.wal_bytes_per_match"] > 0
    assert figures["recording.bytes_per_match.draftosaurus_5p"] > 0
    assert figures["recording.round_trips_per_match"] >= 2 and figures["recording.claim_round_trips_per_message"] >= 1
    assert figures["recording.wire_statements_per_match"] > figures["recording.statements_per_match"]


def test_the_hot_statements_are_prepared_once_per_connection_and_reused():
    """A worker's connection claims and records thousands of matches with the same few statements: from
    the second use on, the server runs them prepared (parsed and planned once), while Django's own queries
    are never prepared. Behind a pooler in transaction mode nothing is (settings.DATABASE_POOLER)."""
    field = RecordingField(game_slug="kingdomino", bots=6, players=2)
    field.record(field.schedule(4))
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        prepared = [statement for (statement,) in cursor.fetchall()]
    if settings.DATABASE_POOLER == "transaction":
        assert prepared == []  # a prepared statement lives in one server connection, which the pooler swaps
        return
    assert as_sent(match_sql.claim_sql()) in prepared, prepared
    assert as_sent(match_sql.claimed_match_sql()) in prepared, prepared
    assert not any("auth_user" in text or "django_" in text for text in prepared), prepared


def as_sent(sql: str) -> str:
    """``sql``'s text as psycopg sends it to the server: each ``%s`` numbered ``$1``, ``$2``, ..."""
    parts = sql.split("%s")
    return parts[0] + "".join(f"${number}{part}" for number, part in enumerate(parts[1:], start=1))
