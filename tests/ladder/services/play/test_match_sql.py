"""``ladder.services.play.match_sql``, the worker's hot-path statements run as they are against the database:
a claim takes a queued (or lease-expired) match once and never a held rotation of a rated deal; only the
claim's token renews or finishes it; the reads give the match and its seats in seat order (NULLs for a
match without seats) and whether its tournament has queued matches; the seats' results write what they
are given."""

from __future__ import annotations

import uuid
from datetime import timedelta
from types import SimpleNamespace

import pytest
from django.db import connection, transaction
from django.utils import timezone

from ladder.core import database
from ladder.models import Match, Seat
from ladder.services.play import match_sql
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
    at, lease_end = database.db_datetime(now), database.db_datetime(now + timedelta(seconds=lease_s))
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
    later = database.db_datetime(timezone.now() + timedelta(hours=1))
    assert execute(match_sql.renew_lease_sql(), [later, seated.pk, RUNNING, match_sql.db_token(uuid.uuid4())])[0] == 0
    assert execute(match_sql.renew_lease_sql(), [later, seated.pk, RUNNING, match_sql.db_token(token)])[0] == 1
    seated.refresh_from_db()
    assert seated.lease_expires_at > timezone.now() + timedelta(minutes=59)


def test_the_claimed_match_is_read_with_its_seats_in_seat_order(seated):
    _, rows = execute(match_sql.claimed_match_sql(), [seated.pk])
    assert [row[5:7] for row in rows] == [(0, "beta"), (1, "alpha")]
    game, players, seed, options, limits = rows[0][:5]
    assert (game, players, seed) == ("kingdomino", 2, seated.seed)
    assert database.from_db_json(options) == seated.options
    seats = {seat.position: seat for seat in Seat.objects.filter(match=seated).select_related("bot_version")}
    assert [(row[7], row[8]) for row in rows] == [(seats[p].bot_version_id, seats[p].bot_version.sha256)
                                                  for p in (0, 1)]


def test_a_match_without_seats_reads_one_row_with_nulls():
    match = MatchFactory()
    _, rows = execute(match_sql.claimed_match_sql(), [match.pk])
    assert len(rows) == 1 and rows[0][5:] == (None, None, None, None)
    assert execute(match_sql.claimed_match_sql(), [match.pk + 10_000])[1] == []


def finish_many(results: list[tuple[Match, uuid.UUID]]) -> list[tuple]:
    now = database.db_datetime(timezone.now())
    packed = [SimpleNamespace(match_id=match.pk, token=str(token), actions=b"", duration_s=1.5)
              for match, token in results]
    return execute(match_sql.finish_many_sql(), match_sql.finish_many_params(
        packed, finished=FINISHED, running=RUNNING, queued=QUEUED, now=now))[1]


def test_only_the_claims_token_finishes_the_match(seated):
    token = uuid.uuid4()
    claim(seated, token=token)
    assert finish_many([(seated, uuid.uuid4())]) == []
    assert [row[0] for row in finish_many([(seated, token)])] == [seated.pk, seated.pk]
    seated.refresh_from_db()
    assert (seated.status, seated.attempt_token, seated.lease_expires_at, seated.duration_s) == (FINISHED, None,
                                                                                                 None, 1.5)


def test_finishing_many_with_the_reads_returns_their_seats_and_whether_matches_are_still_queued(seated):
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
    by_match = {row[0]: (row[3], row[4], row[5], row[6], row[7], row[8], row[10]) for row in rows}
    tournament = seated.tournament
    assert by_match[seated.pk] == (seated.game_id, tournament.id, tournament.kind, tournament.rated, None, None,
                                   True)
    assert by_match[other.pk][6] is False  # its tournament has nothing else queued
    seated.refresh_from_db()
    assert (seated.status, seated.attempt_token, seated.duration_s) == (FINISHED, None, 1.5)
    assert finish_many([(seated, token)]) == []  # finished once


@pytest.mark.django_db(transaction=True)
def test_finishing_many_looks_for_queued_matches_once_per_tournament_by_its_index_whatever_the_statistics():
    """A tournament whose statistics were taken while 3,000 of its matches were queued, all finished since:
    finishing 50 of its matches under the server's generic plan (a prepared statement's) looks for queued
    matches once for the tournament, never once per seat (it scanned the 3,050 rows 100 times: half a
    second a batch of 200, the recording's slowest part)."""
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


def test_whether_a_tournament_has_matches_queued_is_read_as_it_was_before_the_finish():
    """The match finished is not counted as queued, only the tournament's other matches are; and the
    reads see the database as before the statement's own UPDATE."""
    first = MatchFactory()
    second = MatchFactory(tournament=first.tournament)
    SeatFactory(match=first, position=0)
    SeatFactory(match=second, position=0)
    tokens = {first.pk: uuid.uuid4(), second.pk: uuid.uuid4()}
    claim(first, token=tokens[first.pk])
    assert [row[10] for row in finish_many([(first, tokens[first.pk])])] == [True]  # second still queued
    claim(second, token=tokens[second.pk])
    assert [row[10] for row in finish_many([(second, tokens[second.pk])])] == [False]


def result_rows(seats) -> list[tuple]:
    return [(10 + i, i + 1, "ok", "", 5 * i, b"log", 1500.0, 1500.0 + i, seat.id) for i, seat in enumerate(seats)]


def recorded(match) -> list[tuple]:
    return list(Seat.objects.filter(match=match).order_by("position")
                .values_list("score", "place", "outcome", "time_used_ms", "rating_after"))


def test_seat_results_are_written_in_one_statement(seated):
    seats = list(Seat.objects.filter(match=seated).order_by("position"))
    database.execute_combined([match_sql.seat_results_part(result_rows(seats)[::-1])])
    assert recorded(seated) == [(10, 1, "ok", 0, 1500.0), (11, 2, "ok", 5, 1501.0)]
    logs = list(Seat.objects.filter(match=seated).order_by("position").values_list("logs", flat=True))
    assert [bytes(log) for log in logs] == [b"log", b"log"]


def test_the_match_table_leaves_room_on_its_pages_for_lease_renewals():
    """Renewals change no indexed column: with room on the page they are heap-only tuples, which write no
    index entry (about 110 bytes of WAL a row renewed here, against 270 with full pages)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT reloptions FROM pg_class WHERE oid = %s::regclass", [Match._meta.db_table])
        assert "fillfactor=80" in (cursor.fetchone()[0] or [])
