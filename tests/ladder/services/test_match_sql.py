"""``ladder.services.match_sql``, the worker's hot-path statements run as they are against the database:
a claim takes a queued (or lease-expired) match once and never a held rotation of a rated deal; only the
claim's token renews or finishes it; the reads give the match and its seats in seat order (NULLs for a
match without seats) and whether its tournament has queued matches; the seats' results and combined
statements write what they are given; batched statements commit with the last one only in the
outermost transaction, and their errors surface as Django's."""

from __future__ import annotations

import uuid
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from ladder.models import Match, MatchSetup, Seat
from ladder.services import match_sql
from tests.factories import BotFactory, MatchFactory, RatedTournamentFactory, SeatFactory, UserFactory

pytestmark = pytest.mark.django_db

QUEUED, RUNNING, FINISHED = Match.Status.QUEUED.value, Match.Status.RUNNING.value, Match.Status.FINISHED.value


def execute(sql: str, params: list) -> tuple[int, list[tuple]]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.rowcount, (cursor.fetchall() if cursor.description else [])


def match_rows_read_so_far() -> int:
    """Match rows this transaction has read so far, by scans and index fetches (PostgreSQL's statistics)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0) "
                       "FROM pg_stat_xact_user_tables WHERE relname = %s", [Match._meta.db_table])
        return cursor.fetchone()[0]


def claim(match: Match, *, token: uuid.UUID | None = None, lease_s: float = 60, now=None) -> int:
    now = now or timezone.now()
    at, lease_end = match_sql.db_datetime(now), match_sql.db_datetime(now + timedelta(seconds=lease_s))
    count, _ = execute(match_sql.claim_sql(), [RUNNING, match_sql.db_token(token or uuid.uuid4()), lease_end, at,
                                               "w1", at, match.pk, QUEUED, RUNNING, at, QUEUED, RUNNING])
    return count


@pytest.fixture
def seated():
    """A queued match with two seats, in the order (b, a)."""
    match = MatchFactory()
    a, b = BotFactory(name="alpha"), BotFactory(name="beta")
    SeatFactory(match=match, position=1, bot=a)
    SeatFactory(match=match, position=0, bot=b)
    return match


def test_a_claim_takes_a_queued_match_once(seated):
    token = uuid.uuid4()
    assert claim(seated, token=token) == 1
    seated.refresh_from_db()
    assert (seated.status, seated.attempts, seated.attempt_token, seated.worker) == (RUNNING, 1, token, "w1")
    assert claim(seated) == 0


def test_a_running_match_whose_lease_expired_is_claimed_again(seated):
    start = timezone.now()
    assert claim(seated, now=start, lease_s=10) == 1
    assert claim(seated, now=start + timedelta(seconds=5)) == 0
    assert claim(seated, now=start + timedelta(seconds=11)) == 1
    seated.refresh_from_db()
    assert seated.attempts == 2


def test_a_later_rotation_of_a_rated_deal_waits_for_the_earlier_one():
    tournament = RatedTournamentFactory(created_by=UserFactory(is_staff=True))
    first = MatchFactory(tournament=tournament, index=0, deal=0)
    second = MatchFactory(tournament=tournament, index=1, deal=0)
    other_deal = MatchFactory(tournament=tournament, index=2, deal=1)
    assert claim(second) == 0
    assert claim(other_deal) == 1
    assert claim(first) == 1
    assert claim(second) == 0  # the first is running
    Match.objects.filter(pk=first.pk).update(status=FINISHED, finished_at=timezone.now(), attempt_token=None,
                                             lease_expires_at=None)
    assert claim(second) == 1


@pytest.mark.django_db(transaction=True)
def test_a_claim_looks_for_its_deals_earlier_rotations_only():
    """A rated duplicate tournament of 2,000 matches (1,000 deals of two rotations), its statistics
    taken: claiming a held second rotation, or a free first one, reads the few matches of its deal, not
    the tournament's matches one by one (it read all 2,000 per claim: 1.6 ms a claim at 4,680)."""
    if connection.vendor != "postgresql":
        pytest.skip("rows read are PostgreSQL's statistics")
    tournament = RatedTournamentFactory(bots=[BotFactory()])
    now = timezone.now()
    Match.objects.bulk_create([Match(game=tournament.game, tournament=tournament, index=i, deal=i // 2, players=2,
                                     seed=i, status=QUEUED, enqueued_at=now) for i in range(2000)])
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {connection.ops.quote_name(Match._meta.db_table)}")
    held = Match.objects.get(tournament=tournament, index=1501)
    free = Match.objects.get(tournament=tournament, index=1500)

    with transaction.atomic():
        before = match_rows_read_so_far()
        assert claim(held) == 0 and claim(free) == 1
        read = match_rows_read_so_far() - before
    assert read <= 20, f"{read} match rows read"


def test_an_unrated_deals_rotations_are_claimed_at_once():
    first = MatchFactory(index=0, deal=0)
    second = MatchFactory(tournament=first.tournament, index=1, deal=0)
    assert claim(second) == 1 and claim(first) == 1


def test_only_the_claims_token_renews_the_lease(seated):
    token = uuid.uuid4()
    claim(seated, token=token)
    later = match_sql.db_datetime(timezone.now() + timedelta(hours=1))
    assert execute(match_sql.renew_lease_sql(), [later, seated.pk, RUNNING, match_sql.db_token(uuid.uuid4())])[0] == 0
    assert execute(match_sql.renew_lease_sql(), [later, seated.pk, RUNNING, match_sql.db_token(token)])[0] == 1
    seated.refresh_from_db()
    assert seated.lease_expires_at > timezone.now() + timedelta(minutes=59)


def test_the_claimed_match_is_read_with_its_seats_in_seat_order(seated):
    _, rows = execute(match_sql.claimed_match_sql(), [seated.pk])
    assert [row[5:7] for row in rows] == [(0, "beta"), (1, "alpha")]
    game, players, seed, options, limits = rows[0][:5]
    assert (game, players, seed) == ("kingdomino", 2, seated.seed)
    assert match_sql.from_db_json(options) == seated.options
    seats = {seat.position: seat for seat in Seat.objects.filter(match=seated).select_related("bot_version")}
    assert [(row[7], row[8]) for row in rows] == [(seats[p].bot_version_id, seats[p].bot_version.sha256)
                                                  for p in (0, 1)]


def test_a_match_without_seats_reads_one_row_with_nulls():
    match = MatchFactory()
    _, rows = execute(match_sql.claimed_match_sql(), [match.pk])
    assert len(rows) == 1 and rows[0][5:] == (None, None, None, None)
    assert execute(match_sql.claimed_match_sql(), [match.pk + 10_000])[1] == []


def finish_params(match: Match, token: uuid.UUID) -> list:
    now = match_sql.db_datetime(timezone.now())
    return [b"", FINISHED, now, 1.5, now, match.pk, RUNNING, match_sql.db_token(token)]


def test_only_the_claims_token_finishes_the_match(seated):
    token = uuid.uuid4()
    claim(seated, token=token)
    assert execute(match_sql.finish_sql(), finish_params(seated, uuid.uuid4()))[0] == 0
    assert execute(match_sql.finish_sql(), finish_params(seated, token))[0] == 1
    seated.refresh_from_db()
    assert (seated.status, seated.attempt_token, seated.lease_expires_at, seated.duration_s) == (FINISHED, None,
                                                                                                 None, 1.5)


def finish_many(results: list[tuple[Match, uuid.UUID]]) -> list[tuple]:
    now = match_sql.db_datetime(timezone.now())
    packed = [SimpleNamespace(match_id=match.pk, token=str(token), actions=b"", duration_s=1.5)
              for match, token in results]
    return execute(match_sql.finish_many_sql(), match_sql.finish_many_params(
        packed, finished=FINISHED, running=RUNNING, queued=QUEUED, now=now))[1]


def test_finishing_many_with_the_reads_returns_their_seats_and_whether_matches_are_still_queued(seated):
    if not match_sql.combined():
        pytest.skip("the combined statement is PostgreSQL's")
    MatchFactory(tournament=seated.tournament)  # still queued
    other = MatchFactory()
    SeatFactory(match=other, position=0)
    SeatFactory(match=other, position=1)
    token, other_token = uuid.uuid4(), uuid.uuid4()
    claim(seated, token=token)
    claim(other, token=other_token)
    assert finish_many([(seated, uuid.uuid4()), (other, uuid.uuid4())]) == []
    rows = finish_many([(other, other_token), (seated, token)])
    expected = [(match.pk, s.id, s.bot_id, s.position) for match in sorted((seated, other), key=lambda m: m.pk)
                for s in Seat.objects.filter(match=match).order_by("position")]
    assert [(row[0], row[1], row[2], row[9]) for row in rows] == expected
    by_match = {row[0]: (row[3], row[4], row[6], row[10]) for row in rows}
    assert by_match[seated.pk] == (seated.game_id, seated.tournament_id, False, True)
    assert by_match[other.pk][3] is False  # its tournament has nothing else queued
    # The same as the separate reads give.
    assert [row[1:10] for row in rows if row[0] == seated.pk] == execute(match_sql.seats_sql(), [seated.pk])[1]
    assert execute(match_sql.queued_left_sql(), [QUEUED, seated.pk])[1] == [(True,)]
    seated.refresh_from_db()
    assert (seated.status, seated.attempt_token, seated.duration_s) == (FINISHED, None, 1.5)
    assert finish_many([(seated, token)]) == []  # finished once


@pytest.mark.django_db(transaction=True)
def test_finishing_many_looks_for_queued_matches_once_per_tournament_by_its_index_whatever_the_statistics():
    """A tournament whose statistics were taken while 3,000 of its matches were queued, all finished since:
    finishing 50 of its matches under the server's generic plan (a prepared statement's) looks for queued
    matches once for the tournament, never once per seat (it scanned the 3,050 rows 100 times: half a
    second a batch of 200, the recording's slowest part)."""
    if not match_sql.combined():
        pytest.skip("the combined statement is PostgreSQL's")
    tournament = RatedTournamentFactory(bots=[BotFactory()])
    now = timezone.now()
    Match.objects.bulk_create([Match(game=tournament.game, tournament=tournament, index=i, players=2, seed=i,
                                     status=QUEUED, enqueued_at=now) for i in range(3000)])
    playing = [MatchFactory(tournament=tournament, index=5000 + i) for i in range(50)]
    for match in playing:
        SeatFactory(match=match, position=0)
        SeatFactory(match=match, position=1)
    tokens = {match.pk: uuid.uuid4() for match in playing}
    for match in playing:
        claim(match, token=tokens[match.pk])
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {connection.ops.quote_name(Match._meta.db_table)}")
    Match.objects.filter(tournament=tournament, status=QUEUED).update(status=FINISHED, finished_at=now)

    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute("SET LOCAL plan_cache_mode = force_generic_plan")
        before = match_rows_read_so_far()
        rows = finish_many([(match, tokens[match.pk]) for match in playing])
        read = match_rows_read_so_far() - before
    assert len(rows) == 100 and not any(row[10] for row in rows)
    assert read <= 3050 + 2 * len(playing), f"{read} match rows read"


def test_whether_a_tournament_has_matches_queued():
    match = MatchFactory()
    assert execute(match_sql.queued_left_sql(), [QUEUED, match.pk])[1] == [(True,)]
    Match.objects.filter(pk=match.pk).update(status=FINISHED, finished_at=timezone.now())
    assert execute(match_sql.queued_left_sql(), [QUEUED, match.pk])[1] == [(False,)]


def result_rows(seats) -> list[tuple]:
    return [(10 + i, i + 1, "ok", "", 5 * i, b"log", 1500.0, 1500.0 + i, seat.id) for i, seat in enumerate(seats)]


def recorded(match) -> list[tuple]:
    return list(Seat.objects.filter(match=match).order_by("position")
                .values_list("score", "place", "outcome", "time_used_ms", "rating_after"))


def test_seat_results_are_written_one_by_one_or_in_one_statement(seated):
    seats = list(Seat.objects.filter(match=seated).order_by("position"))
    match_sql.execute_many(match_sql.seat_result_sql(), result_rows(seats))
    assert recorded(seated) == [(10, 1, "ok", 0, 1500.0), (11, 2, "ok", 5, 1501.0)]
    if match_sql.combined():
        other = MatchFactory()
        SeatFactory(match=other, position=0)
        SeatFactory(match=other, position=1)
        seats = list(Seat.objects.filter(match=other).order_by("position"))
        match_sql.execute_combined([match_sql.seat_results_part(result_rows(seats)[::-1])])
        assert recorded(other) == [(10, 1, "ok", 0, 1500.0), (11, 2, "ok", 5, 1501.0)]
    match_sql.execute_combined([])  # nothing to run


def test_json_parameters_and_columns_round_trip():
    assert match_sql.from_db_json('{"a": [1, 2]}') == {"a": [1, 2]}
    assert match_sql.from_db_json(b"[3]") == [3]
    assert match_sql.from_db_json({"already": "decoded"}) == {"already": "decoded"}
    # Values as stored, whatever their size (orjson, for one, reads integers past 64 bits as floats).
    assert match_sql.from_db_json('{"big": 123456789012345678901234567890}') == {"big": 123456789012345678901234567890}
    assert match_sql.from_db_json('{"x": 1.5, "s": "\\u00e9"}') == {"x": 1.5, "s": "\u00e9"}
    match = MatchFactory()
    execute(f"UPDATE {connection.ops.quote_name(MatchSetup._meta.db_table)} SET options = %s WHERE id = %s",
            [match_sql.db_json(MatchSetup, "options", {"x": 1}), match.setup_id])
    match = Match.objects.select_related("setup").get(pk=match.pk)
    assert match.options == {"x": 1}


def test_no_commit_with_the_batch_inside_an_enclosing_transaction(seated):
    with transaction.atomic(), match_sql.statements_batched(), connection.cursor() as cursor:
        assert claim(seated) in (1, -1)  # pipelined statements may not know their count yet
        assert match_sql.commit_batched(cursor) is False  # the test's own transaction encloses this one
    seated.refresh_from_db()
    assert seated.status == RUNNING


@pytest.mark.django_db(transaction=True)
def test_the_outermost_transaction_commits_with_its_batch_and_errors_surface_as_djangos():
    match = MatchFactory()
    with transaction.atomic(), connection.cursor() as cursor:
        with match_sql.statements_batched():
            claim(match)
            committed = match_sql.commit_batched(cursor)
    assert committed == (connection.vendor == "postgresql" and match_sql._pipelines_supported())
    match.refresh_from_db()
    assert match.status == RUNNING
    seat = SeatFactory(match=match, position=0)
    with pytest.raises(IntegrityError), transaction.atomic():
        with match_sql.statements_batched():
            match_sql.execute_many(match_sql.seat_result_sql(), [(1, 1, "ok", "", 0, b"", None, None, seat.id)])
            execute(f"UPDATE {connection.ops.quote_name(Seat._meta.db_table)} SET match_id = NULL WHERE id = %s",
                    [seat.id])
    seat.refresh_from_db()
    assert seat.score is None  # the batch rolled back as a whole
    # The transaction the batch began (its BEGIN sent with it) is over, and the connection is as Django
    # leaves it after any atomic block: in autocommit, ready for the next transaction.
    assert connection.get_autocommit() and not connection.in_atomic_block
    with transaction.atomic():
        seat.score = 2
        seat.save(update_fields=["score"])
    seat.refresh_from_db()
    assert seat.score == 2


def test_rows_inserted_as_arrays_hold_what_bulk_create_writes():
    if not match_sql.arrays_supported():
        pytest.skip("rows travel as arrays on PostgreSQL only")
    template = MatchFactory()
    now = timezone.now()

    def unsaved(index: int) -> Match:
        return Match(game_id=template.game_id, tournament=template.tournament, index=index, players=2, deal=7,
                     seed=2**40 + index, options={"variant": "x", "n": [1, 2]}, rules_version=3,
                     limits={"move_ms": 250}, reserved_s=1.5, priority=4, enqueued_at=now)

    inserted = dict(match_sql.insert_rows(Match, [unsaved(100), unsaved(101)], returning=("index", "id")))
    (created,) = Match.objects.bulk_create([unsaved(102)])
    bot = BotFactory(game=template.game)
    version = bot.versions.get()
    match_sql.insert_rows(Seat, [Seat(match_id=inserted[100], position=0, bot=bot, bot_version=version)])
    Seat.objects.bulk_create([Seat(match_id=created.id, position=0, bot=bot, bot_version=version)])
    skip = {"id", "index", "seed", "created_at", "updated_at"}
    fields = [field.attname for field in Match._meta.concrete_fields if field.attname not in skip]
    rows = {match.index: match for match in Match.objects.filter(id__in=[*inserted.values(), created.id])}
    assert set(rows) == {100, 101, 102} and rows[101].seed == 2**40 + 101
    for index in (100, 101):
        assert {name: getattr(rows[index], name) for name in fields} == {name: getattr(rows[102], name) for name in fields}
        assert rows[index].created_at >= now and rows[index].updated_at >= now
    seat_fields = [field.attname for field in Seat._meta.concrete_fields if field.attname not in {"id", "match_id"}]
    ours, theirs = Seat.objects.get(match_id=inserted[100]), Seat.objects.get(match_id=created.id)
    assert {name: getattr(ours, name) for name in seat_fields} == {name: getattr(theirs, name) for name in seat_fields}
    assert match_sql.insert_rows(Seat, []) == []


def test_the_match_table_leaves_room_on_its_pages_for_lease_renewals():
    """Renewals change no indexed column: with room on the page they are heap-only tuples, which write no
    index entry (about 110 bytes of WAL a row renewed here, against 270 with full pages)."""
    if connection.vendor != "postgresql":
        pytest.skip("a storage parameter of PostgreSQL")
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE oid = %s::regclass", [Match._meta.db_table])
        assert "fillfactor=80" in (cursor.fetchone()[0] or [])
