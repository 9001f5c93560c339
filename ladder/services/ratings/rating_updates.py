"""Applying Elo to recorded matches: online, by the game's one applier (:func:`ratings_apply_pending`), and
from scratch (:func:`ratings_rebuild`, ``manage.py rebuild_ratings``). Both take every step through
``ladder.ratings.elo.rate_match``, so the rebuild reproduces the online ratings exactly. Only rated matches
move ratings (``ladder.core.rated_play``). The same two paths keep the game's pair records
(``ladder.services.ratings.pair_records``), which the leaderboard's confidence fit reads.

The online path has no per-bot lock. A recording that takes the game's applier lock (never waited for)
applies its rated matches itself, in the transaction that stores them, after any results pending before
them (:class:`InlineRatings`, :func:`ratings_inline_parts`); one that does not marks them pending
(:func:`pending_add`, a ``PendingRating`` row, in that transaction), and after the commit tries to become
the game's applier. One applier per game at a time (an advisory lock,
``rating_sql.APPLY_LOCK``) takes the pending matches in their order and applies them in batches of up to
``RATING_APPLY_BATCH``: the lock tried and the batch's seats and ratings read in one round trip, the exact
sequential Elo in Python, then the ratings, the history, the seats' ``rating_before``/``rating_after``, the
pair records and the pending rows' removal, in one statement of data-modifying WITH queries on PostgreSQL
(``match_sql.execute_combined``; one multi-row statement each elsewhere), sent with the COMMIT in a second
round trip, and with them the look for results left pending meanwhile (:class:`PendingLook`).
The history rows are inserted in the order of application, so their ids are the order
``ratings_rebuild`` replays.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Iterable

from django.conf import settings
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from ladder.core.games import game_get
from ladder.core.rated_play import RATED_MATCHES, held_out, rating_matches
from ladder.models import Match, Rating, RatingChange, Seat, Tournament
from ladder.ratings.elo import BotRating, KFactors, RatedSeat, rate_match
from ladder.services import match_sql
from ladder.services.ratings import pair_records, rating_sql, tournament_records

logger = logging.getLogger(__name__)


def k_factors() -> KFactors:
    """The K factors of the settings (``RATING_K``, ``RATING_PROVISIONAL_K``, ``RATING_PROVISIONAL_GAMES``)."""
    return KFactors(k=settings.RATING_K, provisional_k=settings.RATING_PROVISIONAL_K,
                    provisional_games=settings.RATING_PROVISIONAL_GAMES)


def pending_add(*, match_id: int, game_id: int) -> None:
    """Mark a recorded rated match pending, inside the recording's transaction (and its batch: reads
    nothing back). On PostgreSQL the statement also takes the game's recording lock shared, which only
    the rebuild's standings rebuild (:func:`rebuild_sums`) ever waits for."""
    with match_sql.statement_cursor() as cursor:
        cursor.execute(rating_sql.pending_insert_sql(), rating_sql.pending_insert_params(match_id, game_id))


def pending_add_many(*, match_ids: list[int], game_id: int) -> None:
    """:func:`pending_add` for many matches of one game: one statement where advisory locks exist."""
    if not rating_sql.has_advisory_locks():
        for match_id in match_ids:
            pending_add(match_id=match_id, game_id=game_id)
        return
    with match_sql.statement_cursor() as cursor:
        cursor.execute(rating_sql.pending_insert_many_sql(), [game_id, game_id, list(match_ids)])


def ratings_apply_pending(*, game_id: int) -> int:
    """Apply the game's pending matches, if this caller becomes the game's applier; returns how many it
    applied (0 when another applier holds the game: that one applies them).

    Call it after the commit that made a match pending. It loops, a batch per transaction, until it finds
    nothing pending once the lock is released: a result committed while this applier held the lock, whose
    own recorder therefore failed to take it, is always picked up here. Where there are no advisory locks
    (SQLite, which has one writer at a time anyway) it simply applies what is pending.
    """
    applied = 0
    batch = settings.RATING_APPLY_BATCH
    while True:
        look = PendingLook([game_id])
        with transaction.atomic():
            done = _apply_batch(game_id, limit=batch, commit=True, try_lock=True, look=look)
        if done is None:
            return applied
        applied += done
        if done < batch:
            pending = look.games()
            if not (game_id in pending if pending is not None else _pending_exists(game_id)):
                return applied


def ratings_apply_after_recording(*, game_id: int) -> None:
    """:func:`ratings_apply_pending` for the recorder, once its result is committed. A database that
    fails it now (a lost connection, a timeout) leaves the matches pending for the next applier or the
    reconciler's :func:`ratings_apply_stranded`: the result itself is already stored."""
    try:
        ratings_apply_pending(game_id=game_id)
    except OperationalError:
        logger.exception("ratings of game %s left pending", game_id)


def ratings_apply_stranded() -> int:
    """The safety net (the reconciler calls it): apply every game's pending matches, such as those left
    by a worker that died between its recording's commit and their application. Returns how many."""
    with connection.cursor() as cursor:
        cursor.execute(rating_sql.pending_games_sql())
        games = [game_id for (game_id,) in cursor.fetchall()]
    return sum(ratings_apply_pending(game_id=game_id) for game_id in games)


@dataclasses.dataclass
class InlineRatings:
    """The games whose rated matches a recording applies in its own transaction (``recording``): those
    whose ``APPLY`` lock it took, with their bots' rating rows read under that lock, and, where results
    of the game were pending, those results (:meth:`read_pending`), which it applies first; and ``held``,
    every game whose lock it took (after its commit, :func:`ratings_apply_held` looks for results left
    to it meanwhile)."""

    ratings: dict[int, dict[int, tuple[int, BotRating]]]
    held: set[int]
    #: Games whose lock it took with results pending, with the rating rows read for its own matches.
    behind: dict[int, dict[int, tuple[int, BotRating]]] = dataclasses.field(default_factory=dict)
    #: By game: the pending results it applies before its own (:meth:`read_pending`).
    pending: dict[int, PendingBatch] = dataclasses.field(default_factory=dict)

    @classmethod
    def from_rows(cls, lock_rows: Iterable[tuple], rating_rows: Iterable[tuple]) -> InlineRatings:
        """From ``rating_sql.inline_locks_sql``'s and ``inline_ratings_sql``'s rows."""
        lock_rows = list(lock_rows)
        held = {game_id for game_id, _shared, locked, _pending in lock_rows if locked}
        behind = {game_id for game_id, _shared, locked, pending in lock_rows if locked and pending}
        ratings: dict[int, dict[int, tuple[int, BotRating]]] = {game_id: {} for game_id in held}
        for game_id, rating_id, bot_id, elo, games, wins, draws, losses in rating_rows:
            if game_id in ratings:
                ratings[game_id][bot_id] = (rating_id, BotRating(elo, games, wins, draws, losses))
        # Not applied inline where results are pending, unless :meth:`read_pending` takes them.
        return cls(ratings={game_id: read for game_id, read in ratings.items() if game_id not in behind},
                   held=held, behind={game_id: ratings[game_id] for game_id in behind})

    def read_pending(self) -> None:
        """Where the recording took a game's lock with results pending: read them (one round trip for
        every such game, under the lock the recording holds), to apply them first, in their order. A game
        with more pending than one applier's batch (``RATING_APPLY_BATCH``), or a pending seat whose bot
        has no rating row, is left to the applier, the recording's own matches of it behind them."""
        if not self.behind:
            return
        limit = settings.RATING_APPLY_BATCH
        games = sorted(self.behind)
        with contextlib.ExitStack() as cursors:
            batches = [cursors.enter_context(match_sql.statement_cursor()) for _ in games]
            with match_sql.statements_batched():
                for game_id, cursor in zip(games, batches, strict=True):
                    cursor.execute(rating_sql.pending_batch_sql(), [game_id, limit + 1])
            read = {game_id: PendingBatch.from_rows(cursor.fetchall())
                    for game_id, cursor in zip(games, batches, strict=True)}
        for game_id, batch in read.items():
            if len(batch.ids) <= limit and batch.complete:
                self.pending[game_id] = batch
                # Read under the lock as the recording's own: the same values where both read a bot.
                self.ratings[game_id] = {**batch.read, **self.behind[game_id]}

    def applies(self, game_id: int, bot_ids: Iterable[int]) -> bool:
        """Whether a rated match of ``game_id`` seating ``bot_ids`` is applied inline (every bot's rating
        row was read: a row deleted by hand sends the match to the applier, which recreates it)."""
        read = self.ratings.get(game_id)
        return read is not None and all(bot_id in read for bot_id in bot_ids)


def ratings_inline_parts(*, game_id: int, matches: list[list[tuple[int, int, int, int | None, bool]]],
                         read: dict[int, tuple[int, BotRating]], now,
                         pending: PendingBatch | None = None) -> tuple[list[tuple[str, list]], dict]:
    """The rating writes of ``matches`` of ``game_id`` applied in their order, after the ``pending``
    results if any (:meth:`InlineRatings.read_pending`), as parts for ``match_sql.execute_combined``, and
    each of the recording's seats' ``(rating_before, rating_after)`` by seat id (the recording writes
    them with the seat's result). ``matches``: each match's seats in seat order, as ``(seat id, match id,
    bot id, place, forfeited)``; ``read``: the rating rows of every bot of both (:class:`InlineRatings`),
    read under the game's ``APPLY`` lock. The same step as the applier's (:func:`_apply_batch`): the
    ratings, the history in order of application, the pending seats' ratings, the pair records, and the
    pending rows' removal."""
    rated = [[_Rated(seat_id=seat_id, match_id=match_id, bot_id=bot_id, place=place, forfeited=forfeited)
              for seat_id, match_id, bot_id, place, forfeited in seats] for seats in matches]
    before = pending.matches if pending is not None else []
    ratings = {bot_id: dataclasses.replace(rating) for bot_id, (_id, rating) in read.items()}
    _replay([*before, *rated], ratings, k_factors())
    left = [seat for match in before for seat in match]
    seats = [seat for match in rated for seat in match]
    moved = {seat.bot_id for seat in [*left, *seats]}
    parts = [
        *rating_sql.ratings_update([(read[bot_id][0], r.elo, r.games, r.wins, r.draws, r.losses)
                                    for bot_id, r in sorted(ratings.items()) if bot_id in moved], now),
        *rating_sql.changes_insert([(s.seat_id, s.match_id, s.bot_id, game_id, *s.step, now) for s in [*left, *seats]]),
        *rating_sql.seats_update([(s.seat_id, s.step[0], s.step[1]) for s in left]),
        *pair_records.pair_records_parts([row for match in [*before, *rated] for row in _pair_rows(game_id, match, now)]),
        *rating_sql.pending_delete(pending.ids if pending is not None else []),
    ]
    return parts, {seat.seat_id: (seat.step[0], seat.step[1]) for seat in seats}


class PendingLook:
    """Which of ``game_ids`` have results pending, asked right after a COMMIT, in the same round trip
    (:meth:`send`, inside ``match_sql.statements_batched`` after ``match_sql.commit_batched``): the server
    runs it once the commit is done, so it sees what a look of its own after the commit would see, one
    round trip earlier. :meth:`games` reads the answer after the batch."""

    def __init__(self, game_ids: Iterable[int]) -> None:
        self.game_ids = sorted(game_ids)
        self._cursor = None

    def send(self) -> None:
        if self.game_ids and rating_sql.has_advisory_locks():
            self._cursor = match_sql.statement_cursor()
            self._cursor.execute(rating_sql.pending_games_among_sql(), [self.game_ids])

    def games(self) -> set[int] | None:
        """The games with results pending; None where it was not sent (the caller looks itself)."""
        if self._cursor is None:
            return None
        with self._cursor as cursor:
            return {game_id for (game_id,) in cursor.fetchall()}


def ratings_apply_held(*, game_id: int, pending: bool | None = None) -> None:
    """After the commit of a recording that held the game's ``APPLY`` lock: results another recorder left
    pending meanwhile (its applier found the lock taken) are applied now. ``pending``: whether there are
    any, where the recording asked along with its commit (:class:`PendingLook`); else one read."""
    try:
        if pending if pending is not None else _pending_exists(game_id):
            ratings_apply_pending(game_id=game_id)
    except OperationalError:
        logger.exception("ratings of game %s left pending", game_id)


def _pending_exists(game_id: int) -> bool:
    with match_sql.statement_cursor() as cursor:
        cursor.execute(rating_sql.pending_exists_sql(), [game_id])
        return cursor.fetchone() is not None


@dataclasses.dataclass
class _Rated:
    """One rated seat as the applier and the rebuild carry it."""

    seat_id: int
    match_id: int
    bot_id: int
    place: int
    forfeited: bool
    #: Its history row (the rebuild's), with what it and the seat store now.
    change_id: int | None = None
    stored: tuple = ()
    #: What the step made of it: (before, after, delta).
    step: tuple = ()


def _forfeits(outcome: str) -> bool:
    return Seat.outcome_forfeits(outcome)


def _by_match(rows: Iterable[_Rated]) -> list[list[_Rated]]:
    """Consecutive seats of one match grouped (rows come in match order)."""
    matches: list[list[_Rated]] = []
    for seat in rows:
        if matches and matches[-1][0].match_id == seat.match_id:
            matches[-1].append(seat)
        else:
            matches.append([seat])
    return matches


@dataclasses.dataclass
class PendingBatch:
    """A game's first pending matches, read under its applier lock (``rating_sql.pending_batch_sql``'s
    rows): their pending ids and seats (by match, in pending order), and the rating rows of their bots
    (``{bot id: (rating id, BotRating)}``); ``complete`` unless a bot's row is missing."""

    ids: list[int]
    matches: list[list[_Rated]]
    read: dict[int, tuple[int, BotRating]]

    @classmethod
    def from_rows(cls, rows: list[tuple]) -> PendingBatch:
        seats = [_Rated(seat_id=seat_id, match_id=match_id, bot_id=bot_id, place=place, forfeited=_forfeits(outcome))
                 for _pending, match_id, seat_id, bot_id, place, outcome, *_rating in rows]
        read = {bot_id: (rating_id, BotRating(elo, games, wins, draws, losses))
                for *_seat, rating_id, bot_id, elo, games, wins, draws, losses in rows if rating_id is not None}
        return cls(ids=list(dict.fromkeys(row[0] for row in rows)), matches=_by_match(seats), read=read)

    @property
    def complete(self) -> bool:
        return all(seat.bot_id in self.read for seats in self.matches for seat in seats)

    @property
    def seats(self) -> list[_Rated]:
        return [seat for seats in self.matches for seat in seats]


def _replay(matches: list[list[_Rated]], ratings: dict[int, BotRating], ks: KFactors) -> None:
    """The one sequential step over ``matches`` in order: ``ratings`` move, each seat gets its step."""
    for seats in matches:
        changes = rate_match(ratings, [RatedSeat(s.bot_id, s.place or len(seats), s.forfeited) for s in seats], ks)
        for seat, change in zip(seats, changes, strict=True):
            seat.step = tuple(change)


def _ratings_read(game_id: int, bot_ids: list[int]) -> dict[int, tuple[int, BotRating]]:
    """The bots' rating rows, ``{bot id: (rating id, BotRating)}``; a missing row (deleted by hand: every
    bot gets one when it is created) is created first."""
    def read() -> dict[int, tuple[int, BotRating]]:
        with match_sql.statement_cursor() as cursor:
            cursor.execute(rating_sql.ratings_read_sql(len(bot_ids)), [game_id, *bot_ids])
            return {bot_id: (rating_id, BotRating(elo, games, wins, draws, losses))
                    for rating_id, bot_id, elo, games, wins, draws, losses in cursor.fetchall()}

    rows = read()
    if len(rows) < len(bot_ids):
        Rating.objects.bulk_create([Rating(bot_id=bot_id, game_id=game_id) for bot_id in set(bot_ids) - set(rows)],
                                   ignore_conflicts=True)
        rows = read()
    return rows


def _execute(statements: Iterable[tuple[str, list]]) -> None:
    with match_sql.statement_cursor() as cursor:
        for sql, params in statements:
            cursor.execute(sql, params)


def _apply_batch(game_id: int, *, limit: int, commit: bool = False, try_lock: bool = False,
                 look: PendingLook | None = None) -> int | None:
    """Apply the game's first ``limit`` pending matches inside the caller's transaction; returns how many
    it applied. ``try_lock``: first try to take the game's applier lock (in the same round trip as the
    reads), and return None, changing nothing, if another applier holds it; otherwise the caller holds it.
    ``commit``: the transaction is the caller's own, ended with the batch's writes
    (:func:`match_sql.commit_batched`), and ``look`` (if given) sent after the COMMIT where it went with
    them."""
    with match_sql.statement_cursor() as lock, match_sql.statement_cursor() as batch:
        with match_sql.statements_batched():
            if try_lock and rating_sql.has_advisory_locks():
                lock.execute(rating_sql.try_apply_lock_sql(), [game_id])
            batch.execute(rating_sql.pending_batch_sql(), [game_id, limit])
        if try_lock and rating_sql.has_advisory_locks() and not lock.fetchone()[0]:
            return None
        rows = batch.fetchall()
    if not rows:
        return 0
    pending = PendingBatch.from_rows(rows)
    pending_ids, matches, seats, read = pending.ids, pending.matches, pending.seats, pending.read
    if not pending.complete:
        read = _ratings_read(game_id, sorted({seat.bot_id for seat in seats}))
    ratings = {bot_id: rating for bot_id, (_id, rating) in read.items()}
    _replay(matches, ratings, k_factors())
    now = match_sql.db_datetime(timezone.now())
    pairs = [row for match in matches for row in _pair_rows(game_id, match, now)]
    writes = [
        *rating_sql.ratings_update(
            [(read[bot_id][0], r.elo, r.games, r.wins, r.draws, r.losses) for bot_id, r in ratings.items()], now),
        *rating_sql.changes_insert([(s.seat_id, s.match_id, s.bot_id, game_id, *s.step, now) for s in seats]),
        *rating_sql.seats_update([(s.seat_id, s.step[0], s.step[1]) for s in seats]),
    ]
    with match_sql.statements_batched(), connection.cursor() as end:
        if match_sql.combined():
            # One statement for the batch's writes, in this order (the locks they take too), as a
            # recording's own (``recording._write``): each statement of its own cost the applier's
            # process as much as the server's work on its rows.
            match_sql.execute_combined(writes + pair_records.pair_records_parts(pairs)
                                       + rating_sql.pending_delete(pending_ids))
        else:
            _execute(writes)
            pair_records.pair_records_write(pairs)
            _execute(rating_sql.pending_delete(pending_ids))
        if commit and match_sql.commit_batched(end) and look is not None:
            look.send()
    return len(pending_ids)


def _pair_rows(game_id: int, seats: list[_Rated], now) -> list[tuple]:
    return pair_records.pair_rows(game_id=game_id, bot_ids=[s.bot_id for s in seats],
                                  places=[s.place or len(seats) for s in seats],
                                  forfeited=[s.forfeited for s in seats], now=now)


def _history(game_id: int, *, change_id: int, after: bool) -> list[list[_Rated]]:
    """The game's applied matches with history rows up to ``change_id`` (``after``: past it), in the order
    they were applied."""
    with connection.cursor() as cursor:
        cursor.execute(rating_sql.history_sql(after=after), [game_id, change_id, Match.Status.FINISHED.value])
        rows = cursor.fetchall()
    return _by_match(
        _Rated(seat_id=seat_id, match_id=match_id, bot_id=bot_id, place=place, forfeited=_forfeits(outcome),
               change_id=change, stored=(before, after_, delta, rating_before, rating_after))
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

    Built aside, then swapped in: the history is read and replayed without a lock (on PostgreSQL in one
    repeatable-read snapshot), while results keep being recorded and applied (:func:`rebuild_aside`). The
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
    applied: list[list[_Rated]]


def _rated_ids(game_id: int):
    return rating_matches(game_id=game_id)


def _not_held(game_id: int, matches: list[list[_Rated]]) -> list[list[_Rated]]:
    """``matches`` without those held out of the ratings (``rated_play.held_out``): one query, and none
    while the game has no pair flagged."""
    held = set(Match.objects.filter(held_out(), game_id=game_id).values_list("id", flat=True))
    return [seats for seats in matches if seats[0].match_id not in held] if held else matches


def rebuild_aside(*, game_id: int) -> RebuildPlan:
    """The first half of :func:`ratings_rebuild`: read the game's history (one snapshot, no lock) and replay
    it from the initial ratings."""
    with transaction.atomic():
        if rating_sql.has_advisory_locks() and len(connection.atomic_blocks) == 1:
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
    _replay(applied, ratings, k_factors())
    return RebuildPlan(game_id=game_id, upto=upto, ratings=ratings, applied=applied)


def rebuild_swap(plan: RebuildPlan) -> int:
    """The second part of :func:`ratings_rebuild`: one short transaction under the game's applier lock that
    brings the plan up to date and writes it. Returns the matches replayed."""
    game_id, ratings, ks = plan.game_id, plan.ratings, k_factors()
    with transaction.atomic():
        if rating_sql.has_advisory_locks():
            with connection.cursor() as cursor:
                cursor.execute(rating_sql.apply_lock_sql(), [game_id])
        since = _not_held(game_id, _history(game_id, change_id=plan.upto, after=True))
        for seats in since:
            for seat in seats:
                ratings.setdefault(seat.bot_id, BotRating())
        _replay(since, ratings, ks)
        replayed = [seat for seats in (*plan.applied, *since) for seat in seats]
        now = match_sql.db_datetime(timezone.now())
        stored = _ratings_read(game_id, sorted(ratings))
        _execute(rating_sql.ratings_update(
            [(stored[bot_id][0], r.elo, r.games, r.wins, r.draws, r.losses) for bot_id, r in ratings.items()
             if dataclasses.astuple(stored[bot_id][1]) != dataclasses.astuple(r)], now))
        _execute(rating_sql.changes_update(
            [(s.change_id, *s.step) for s in replayed if s.stored[:3] != s.step]))
        _execute(rating_sql.seats_update(
            [(s.seat_id, s.step[0], s.step[1]) for s in replayed if s.stored[3:] != s.step[:2]]))
        pending = 0
        while done := _apply_batch(game_id, limit=settings.RATING_APPLY_BATCH):
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
        if rating_sql.has_advisory_locks():
            with connection.cursor() as cursor:
                cursor.execute(rating_sql.apply_lock_sql(), [game_id])
        # Summed over every finished rated match: the batches' additions are replaced.
        pair_records.pair_records_rebuild(game_id=game_id, now=timezone.now())
    # Results recorded while this held the applier lock were left to it by their recorders: applied now.
    ratings_apply_pending(game_id=game_id)
    with transaction.atomic():
        if rating_sql.has_advisory_locks():
            with connection.cursor() as cursor:
                cursor.execute(rating_sql.record_lock_sql(), [game_id])
        # The standings read the same results: recomputed with them, so a history changed by hand is read
        # the same way by every table.
        tournament_records.records_rebuild(
            tournament_ids=list(Tournament.objects.filter(game_id=game_id).values_list("id", flat=True)),
            now=timezone.now())
