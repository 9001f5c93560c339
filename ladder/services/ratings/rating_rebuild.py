"""Rebuilding a game's ratings from scratch (:func:`ratings_rebuild`, ``manage.py rebuild_ratings``, and the
collusion screen's verdicts): every step through the online applier's own
(``ladder.services.ratings.rating_applier``, ``ladder.ratings.elo.rate_match``), so the rebuild reproduces the
online ratings exactly, with the game's pair records and its tournaments' standings recomputed from the
results.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from ladder.core import database
from ladder.core.games import game_get
from ladder.core.rated_play import RATED_MATCHES, held_out, rating_matches
from ladder.models import Match, Rating, RatingChange, Seat, Tournament
from ladder.ratings.elo import BotRating
from ladder.services.ratings import pair_records, rating_sql, tournament_records
from ladder.services.ratings.rating_applier import (
    Rated,
    k_factors,
    pending_batch_apply,
    rating_rows_read,
    ratings_apply_pending,
    ratings_replay,
    seats_by_match,
)


def _execute(statements: Iterable[tuple[str, list]]) -> None:
    with database.statement_cursor() as cursor:
        for sql, params in statements:
            cursor.execute(sql, params)


def _history(game_id: int, *, change_id: int, after: bool) -> list[list[Rated]]:
    """The game's applied matches with history rows up to ``change_id`` (``after``: past it), in the order
    they were applied."""
    with connection.cursor() as cursor:
        cursor.execute(rating_sql.history_sql(after=after), [game_id, change_id, Match.Status.FINISHED.value])
        rows = cursor.fetchall()
    return seats_by_match(
        Rated(seat_id=seat_id, match_id=match_id, bot_id=bot_id, place=place,
              forfeited=Seat.outcome_forfeits(outcome), change_id=change,
              stored=(before, after_, delta, rating_before, rating_after))
        for match_id, change, seat_id, bot_id, place, outcome, before, after_, delta, rating_before, rating_after
        in rows
    )


def ratings_rebuild(*, game_slug: str) -> int:
    """Recompute every rating of a game from its finished rated matches, in the order they were applied
    (their first history row), with its pair records and its tournaments' standings
    (``tournament_records``; recordings of its unrated tournaments should be held off meanwhile). Rated
    matches that were never applied (a tournament marked rated afterwards) are applied after the rest,
    by finish time. Seats of unrated matches lose any rating they carry (from before the rule), and
    their history goes. Returns the matches replayed.

    Built aside, then swapped in: the history is read and replayed without a lock (in one repeatable-read
    snapshot), while results keep being recorded and applied (:func:`rebuild_aside`). The
    swap (:func:`rebuild_swap`) is one short transaction under the game's applier lock (results are still
    recorded meanwhile, and applied after it): it replays
    on top what was applied since the snapshot, writes the ratings and only the history rows and seats
    whose values changed, and applies what is pending. So a result recorded during a rebuild is applied
    exactly once, after everything before it. Then :func:`rebuild_sums` recomputes the pair records and
    the standings.
    """
    game = game_get(slug=game_slug)
    replayed = rebuild_swap(rebuild_aside(game_id=game.id))
    rebuild_sums(game_id=game.id)
    return replayed


@dataclasses.dataclass
class RebuildPlan:
    """The ratings rebuilt aside (:func:`rebuild_aside`) from the history up to ``upto``, to be swapped in."""

    game_id: int
    upto: int
    ratings: dict[int, BotRating]
    applied: list[list[Rated]]


def _rated_ids(game_id: int):
    return rating_matches(game_id=game_id)


def _not_held(game_id: int, matches: list[list[Rated]]) -> list[list[Rated]]:
    """``matches`` without those held out of the ratings (``rated_play.held_out``): one query, and none
    while the game has no pair flagged."""
    held = set(Match.objects.filter(held_out(), game_id=game_id).values_list("id", flat=True))
    return [seats for seats in matches if seats[0].match_id not in held] if held else matches


def rebuild_aside(*, game_id: int) -> RebuildPlan:
    """The first half of :func:`ratings_rebuild`: read the game's history (one snapshot, no lock) and replay
    it from the initial ratings."""
    with transaction.atomic():
        if len(connection.atomic_blocks) == 1:
            with connection.cursor() as cursor:
                cursor.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY")
        upto = RatingChange.objects.filter(game_id=game_id).order_by("-id").values_list("id", flat=True).first() or 0
        applied = _not_held(game_id, _history(game_id, change_id=upto, after=False))
        bot_ids = list(Rating.objects.filter(game_id=game_id).values_list("bot_id", flat=True))
    # Matches no longer rated (the snapshot read none of them) lose their history and their seats any
    # rating, before the swap and outside it: the applier never touches them.
    # Rated matches never applied (a tournament marked rated afterwards) join the pending ones, by finish
    # time: the applier applies them, and the swap replays them with the rest.
    with transaction.atomic():
        RatingChange.objects.filter(game_id=game_id).exclude(match__in=_rated_ids(game_id)).delete()
        Seat.objects.filter(match__game_id=game_id).exclude(
            match__in=Match.objects.filter(RATED_MATCHES).exclude(held_out())).exclude(
            rating_before=None, rating_after=None
        ).update(rating_before=None, rating_after=None)
        rated_sql, rated_params = _rated_ids(game_id).query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute(rating_sql.never_rated_insert_sql(rated_sql), rated_params)
    ratings = {bot_id: BotRating() for bot_id in bot_ids}
    ratings.update({seat.bot_id: BotRating() for seats in applied for seat in seats})
    ratings_replay(applied, ratings, k_factors())
    return RebuildPlan(game_id=game_id, upto=upto, ratings=ratings, applied=applied)


def rebuild_swap(plan: RebuildPlan) -> int:
    """The second part of :func:`ratings_rebuild`: one short transaction under the game's applier lock that
    brings the plan up to date and writes it. Returns the matches replayed."""
    game_id, ratings, ks = plan.game_id, plan.ratings, k_factors()
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(rating_sql.apply_lock_sql(), [game_id])
        since = _not_held(game_id, _history(game_id, change_id=plan.upto, after=True))
        for seats in since:
            for seat in seats:
                ratings.setdefault(seat.bot_id, BotRating())
        ratings_replay(since, ratings, ks)
        replayed = [seat for seats in (*plan.applied, *since) for seat in seats]
        now = database.db_datetime(timezone.now())
        stored = rating_rows_read(game_id, sorted(ratings))
        _execute(rating_sql.ratings_update(
            [(stored[bot_id][0], r.elo, r.games, r.wins, r.draws, r.losses) for bot_id, r in ratings.items()
             if dataclasses.astuple(stored[bot_id][1]) != dataclasses.astuple(r)], now))
        _execute(rating_sql.changes_update(
            [(s.change_id, *s.step) for s in replayed if s.stored[:3] != s.step]))
        _execute(rating_sql.seats_update(
            [(s.seat_id, s.step[0], s.step[1]) for s in replayed if s.stored[3:] != s.step[:2]]))
        pending = 0
        while done := pending_batch_apply(game_id, limit=settings.RATING_APPLY_BATCH):
            pending += done
    # A result committed after the last batch above and before the commit found the lock taken, and its
    # recorder left it to the lock's holder: picked up now that the lock is free.
    pending += ratings_apply_pending(game_id=game_id)
    return len(plan.applied) + len(since) + pending


def rebuild_sums(*, game_id: int) -> None:
    """The last part of :func:`ratings_rebuild`: the game's pair records and its tournaments' standings
    recomputed from the results, each in one transaction of INSERT ... SELECT statements (seconds per
    million matches). The pair records under the applier's lock (results are recorded meanwhile and
    applied after), the standings under the recording lock (the game's rated recordings wait: they write
    the standings)."""
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(rating_sql.apply_lock_sql(), [game_id])
        # Summed over every finished rated match: the batches' additions are replaced.
        pair_records.pair_records_rebuild(game_id=game_id, now=timezone.now())
    # Results recorded while this held the applier lock were left to it by their recorders: applied now.
    ratings_apply_pending(game_id=game_id)
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(rating_sql.record_lock_sql(), [game_id])
        # The standings read the same results: recomputed with them, so a history changed by hand is read
        # the same way by every table.
        tournament_records.records_rebuild(
            tournament_ids=list(Tournament.objects.filter(game_id=game_id).values_list("id", flat=True)),
            now=timezone.now())
