"""``ladder.services.ratings.rating_sql``, the rating applier's statements run as they are: pending marks and
the batch read in pending order with each match's seats in seat order, the batch's and the named bots'
rating rows, the history of rated matches up to (or past) a change in the order they were applied, the
never-rated matches marked once, the multi-row writes as one statement of arrays for any number of rows,
and the game's advisory locks held against another session."""

from __future__ import annotations

from datetime import timedelta

import psycopg
import pytest
from django.db import connection
from django.utils import timezone

from ladder.models import Match, PendingRating, Rating, RatingChange, Seat
from ladder.services.ratings import rating_sql
from tests.factories import (
    BotFactory,
    MatchFactory,
    RatedTournamentFactory,
    RatingChangeFactory,
    SeatFactory,
    rated_result,
)

pytestmark = pytest.mark.django_db


def rows(sql: str, params: list) -> list[tuple]:
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if cursor.description else []


def run(statements: list[tuple[str, list]]) -> None:
    with connection.cursor() as cursor:
        for sql, params in statements:
            cursor.execute(sql, params)


def pending_match(bots, *, places=(1, 2)) -> Match:
    """A finished match of ``bots`` with its places, marked pending through the statement."""
    match = MatchFactory(tournament=RatedTournamentFactory(game=bots[0].game))
    for position, (bot, place) in enumerate(zip(bots, places, strict=True)):
        SeatFactory(match=match, position=position, bot=bot, place=place, outcome="ok")
    rows(rating_sql.pending_insert_sql(), [match.pk, match.game_id, match.game_id])
    return match


def test_pending_matches_are_read_in_their_order_seats_in_seat_order_up_to_the_batch_size():
    a, b, c = BotFactory(), BotFactory(), BotFactory()
    first = pending_match([b, a], places=(2, 1))
    second = pending_match([c, a])
    third = pending_match([a, b])
    game = a.game_id
    batch = rows(rating_sql.pending_batch_sql(), [game, 2])
    assert [(row[1], row[3], row[4], row[5]) for row in batch] == [
        (first.pk, b.id, 2, "ok"), (first.pk, a.id, 1, "ok"), (second.pk, c.id, 1, "ok"), (second.pk, a.id, 2, "ok")]
    assert len({row[0] for row in batch}) == 2
    assert {row[1] for row in rows(rating_sql.pending_batch_sql(), [game, 10])} == {first.pk, second.pk, third.pk}
    assert rows(rating_sql.pending_games_sql(), []) == [(game,)]
    ratings = {row[3]: dict(zip(rating_sql.RATING_COLUMNS, row[6:], strict=True)) for row in batch}
    assert {bot: rating["bot_id"] for bot, rating in ratings.items()} == {a.id: a.id, b.id: b.id, c.id: c.id}
    assert ratings[a.id]["id"] == Rating.objects.get(bot=a).id and ratings[a.id]["games"] == 0
    assert rows(rating_sql.pending_exists_sql(), [game]) == [(1,)]
    assert rows(rating_sql.pending_exists_sql(), [game + 1]) == []


def test_many_matches_of_a_game_are_marked_pending_in_one_statement_in_their_order():
    a = BotFactory()
    matches = [MatchFactory(tournament=RatedTournamentFactory(game=a.game)) for _ in range(3)]
    ids = [matches[2].pk, matches[0].pk, matches[1].pk]
    rows(rating_sql.pending_insert_many_sql(), [a.game_id, a.game_id, ids])
    assert list(PendingRating.objects.order_by("id").values_list("match_id", "game_id")) == [
        (match_id, a.game_id) for match_id in ids]


def test_the_named_bots_ratings_are_read():
    a, b, _ = BotFactory(), BotFactory(), BotFactory()
    read = rows(rating_sql.ratings_read_sql(2), [a.game_id, a.id, b.id])
    by_bot = {row[1]: dict(zip(rating_sql.RATING_COLUMNS, row, strict=True)) for row in read}
    assert set(by_bot) == {a.id, b.id}
    assert by_bot[a.id]["id"] == Rating.objects.get(bot=a).id and by_bot[a.id]["games"] == 0


def test_the_writes_set_every_row_in_one_statement_of_arrays():
    bots = [BotFactory() for _ in range(3)]
    ratings = list(Rating.objects.filter(bot__in=bots).order_by("id"))
    statements = rating_sql.ratings_update([(r.id, 1600.0 + i, 3, 2, 0, 1) for i, r in enumerate(ratings)],
                                           timezone.now())
    # Arrays bind one parameter per column however many rows.
    assert len(statements) == 1
    one = rating_sql.ratings_update([(ratings[0].id, 1500.0, 0, 0, 0, 0)], timezone.now())
    assert one[0][0] == statements[0][0]  # the same text for one row as for three: prepared once
    assert rating_sql.ratings_update([], timezone.now()) == []
    run(statements)
    assert [(r.elo, r.games, r.wins, r.losses) for r in Rating.objects.filter(bot__in=bots).order_by("id")] == [
        (1600.0, 3, 2, 1), (1601.0, 3, 2, 1), (1602.0, 3, 2, 1)]


def test_history_rows_are_inserted_in_order_then_changed_and_seats_updated():
    match = pending_match([BotFactory(), BotFactory()])
    seats = list(Seat.objects.filter(match=match).order_by("position"))
    now = timezone.now()
    run(rating_sql.changes_insert([(s.id, match.pk, s.bot_id, match.game_id, 1500.0, 1510.0 - 20 * i, 10.0 - 20 * i,
                                    now) for i, s in enumerate(seats)]))
    changes = list(RatingChange.objects.filter(match=match).order_by("id"))
    assert [c.seat_id for c in changes] == [s.id for s in seats]
    run(rating_sql.changes_update([(changes[0].id, 1500.0, 1505.0, 5.0)]))
    run(rating_sql.seats_update([(seats[0].id, 1500.0, 1505.0)]))
    assert RatingChange.objects.get(pk=changes[0].id).delta == 5.0
    assert RatingChange.objects.get(pk=changes[1].id).delta == -10.0
    assert Seat.objects.values_list("rating_before", "rating_after").get(pk=seats[0].id) == (1500.0, 1505.0)


def test_pending_marks_are_deleted_by_id():
    a, b = BotFactory(), BotFactory()
    keep, drop = pending_match([a, b]), pending_match([b, a])
    run(rating_sql.pending_delete(list(PendingRating.objects.filter(match=drop).values_list("id", flat=True))))
    assert list(PendingRating.objects.values_list("match_id", flat=True)) == [keep.pk]
    assert rating_sql.pending_delete([]) == []


def test_the_history_runs_in_the_order_matches_were_applied_up_to_or_past_a_change():
    a, b = BotFactory(), BotFactory()
    first = rated_result(bots=[a, b], places=[1, 2])
    second = rated_result(bots=[b, a], places=[1, 2])
    changes = list(RatingChange.objects.order_by("id"))
    assert len(changes) == 4
    finished = Match.Status.FINISHED.value
    upto = rows(rating_sql.history_sql(after=False), [a.game_id, changes[1].id, finished])
    past = rows(rating_sql.history_sql(after=True), [a.game_id, changes[1].id, finished])
    assert [(row[0], row[3]) for row in upto] == [(first.pk, a.id), (first.pk, b.id)]
    assert [(row[0], row[3], row[4]) for row in past] == [(second.pk, b.id, 1), (second.pk, a.id, 2)]
    change = changes[2]
    assert past[0][6:9] == (change.before, change.after, change.delta)
    # An unrated match's history (there should be none) is never part of it.
    unrated = MatchFactory(status=finished, finished_at=timezone.now())
    RatingChangeFactory(seat=SeatFactory(match=unrated, position=0, bot=a), before=1.0)
    assert len(rows(rating_sql.history_sql(after=True), [a.game_id, changes[1].id, finished])) == 2


def test_finished_rated_matches_without_history_are_marked_pending_once_by_finish_time():
    a, b = BotFactory(), BotFactory()
    tournament = RatedTournamentFactory(game=a.game)
    late, early = MatchFactory(tournament=tournament), MatchFactory(tournament=tournament)
    now = timezone.now()
    Match.objects.filter(pk=late.pk).update(status="finished", finished_at=now)
    Match.objects.filter(pk=early.pk).update(status="finished", finished_at=now - timedelta(hours=1))
    applied = rated_result(bots=[a, b], places=[1, 2], tournament=tournament)  # has history
    selected = "SELECT id FROM ladder_match WHERE tournament_id = %s"
    rows(rating_sql.never_rated_insert_sql(selected), [tournament.id])
    assert list(PendingRating.objects.order_by("id").values_list("match_id", flat=True)) == [early.pk, late.pk]
    rows(rating_sql.never_rated_insert_sql(selected), [tournament.id])
    assert PendingRating.objects.count() == 2 and not PendingRating.objects.filter(match=applied).exists()


@pytest.fixture
def other_session():
    """A second connection to the test database, as another worker holds one."""
    conf = connection.settings_dict
    other = psycopg.connect(dbname=conf["NAME"], user=conf["USER"] or None, host=conf["HOST"] or None,
                            port=conf["PORT"] or None, password=conf["PASSWORD"] or None, autocommit=False)
    yield other
    other.close()


def test_the_apply_lock_is_held_by_one_transaction_at_a_time(other_session):
    game_id = BotFactory().game_id
    assert rows(rating_sql.try_apply_lock_sql(), [game_id]) == [(True,)]
    assert other_session.execute(rating_sql.try_apply_lock_sql(), [game_id]).fetchone() == (False,)
    assert other_session.execute(rating_sql.try_apply_lock_sql(), [game_id + 1]).fetchone() == (True,)
    other_session.rollback()


def test_recordings_share_the_record_lock_that_the_rebuild_takes_alone(other_session):
    bots = [BotFactory(), BotFactory()]
    pending_match(bots)  # this transaction now holds the game's RECORD lock shared
    game_id = bots[0].game_id
    other_session.execute("SET lock_timeout = '200ms'")
    other_session.execute("SELECT pg_advisory_xact_lock_shared(%s, %s)", [rating_sql.RECORD_LOCK, game_id])
    other_session.rollback()
    other_session.execute("SET lock_timeout = '200ms'")
    with pytest.raises(psycopg.errors.LockNotAvailable):
        other_session.execute(rating_sql.record_lock_sql(), [game_id])
    other_session.rollback()
