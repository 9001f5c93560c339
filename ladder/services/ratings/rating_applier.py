"""Applying Elo to recorded matches online, by the game's one applier (:func:`ratings_apply_pending`). Every
step goes through ``ladder.ratings.elo.rate_match``, as the rebuild's
(``ladder.services.ratings.rating_rebuild``), which so reproduces the online ratings exactly. Only rated
matches move ratings (``ladder.core.rated_play``). The applier keeps the game's pair records too
(``ladder.services.ratings.pair_records``), which the leaderboard's confidence fit reads.

There is no per-bot lock. A recording that takes the game's applier lock (never waited for) applies its
rated matches itself, in the transaction that stores them, after any results pending before them
(:class:`InlineRatings`, :func:`ratings_inline_parts`); one that does not marks them pending
(:func:`pending_add_many`, ``PendingRating`` rows, in that transaction), and after the commit tries to
become the game's applier. One applier per game at a time (an advisory lock, ``rating_sql.APPLY_LOCK``)
takes the pending matches in their order and applies them in batches of up to ``RATING_APPLY_BATCH``: the
lock tried and the batch's seats and ratings read in one round trip, the exact sequential Elo in Python,
then the ratings, the history, the seats' ``rating_before``/``rating_after``, the pair records and the
pending rows' removal, in one statement of data-modifying WITH queries (``database.execute_combined``),
sent with the COMMIT in a second round trip, and with them the look for results left pending meanwhile
(:class:`PendingLook`). The history rows are inserted in the order of application, so their ids are the
order the rebuild replays.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
from collections.abc import Iterable

from django.conf import settings
from django.db import OperationalError, connection, transaction
from django.utils import timezone

from ladder.core import database
from ladder.models import Rating, Seat
from ladder.ratings.elo import BotRating, KFactors, RatedSeat, rate_match
from ladder.services.ratings import pair_records, rating_sql

logger = logging.getLogger(__name__)


def k_factors() -> KFactors:
    """The K factors of the settings (``RATING_K``, ``RATING_PROVISIONAL_K``, ``RATING_PROVISIONAL_GAMES``)."""
    return KFactors(k=settings.RATING_K, provisional_k=settings.RATING_PROVISIONAL_K,
                    provisional_games=settings.RATING_PROVISIONAL_GAMES)


def pending_add(*, match_id: int, game_id: int) -> None:
    """Mark a recorded rated match pending, inside the recording's transaction (and its batch: reads
    nothing back). The statement also takes the game's recording lock shared, which only the rebuild's
    standings rebuild (``rating_rebuild.rebuild_sums``) ever waits for."""
    with database.statement_cursor() as cursor:
        cursor.execute(rating_sql.pending_insert_sql(), [match_id, game_id, game_id])


def pending_add_many(*, match_ids: list[int], game_id: int) -> None:
    """:func:`pending_add` for many matches of one game, in one statement."""
    with database.statement_cursor() as cursor:
        cursor.execute(rating_sql.pending_insert_many_sql(), [game_id, game_id, list(match_ids)])


def ratings_apply_pending(*, game_id: int) -> int:
    """Apply the game's pending matches, if this caller becomes the game's applier; returns how many it
    applied (0 when another applier holds the game: that one applies them).

    Call it after the commit that made a match pending. It loops, a batch per transaction, until it finds
    nothing pending once the lock is released: a result committed while this applier held the lock, whose
    own recorder therefore failed to take it, is always picked up here.
    """
    applied = 0
    batch = settings.RATING_APPLY_BATCH
    while True:
        look = PendingLook([game_id])
        with transaction.atomic():
            done = pending_batch_apply(game_id, limit=batch, commit=True, try_lock=True, look=look)
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
            batches = [cursors.enter_context(database.statement_cursor()) for _ in games]
            with database.statements_batched():
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
    results if any (:meth:`InlineRatings.read_pending`), as parts for ``database.execute_combined``, and
    each of the recording's seats' ``(rating_before, rating_after)`` by seat id (the recording writes
    them with the seat's result). ``matches``: each match's seats in seat order, as ``(seat id, match id,
    bot id, place, forfeited)``; ``read``: the rating rows of every bot of both (:class:`InlineRatings`),
    read under the game's ``APPLY`` lock. The same step as the applier's (:func:`pending_batch_apply`): the
    ratings, the history in order of application, the pending seats' ratings, the pair records, and the
    pending rows' removal."""
    rated = [[Rated(seat_id=seat_id, match_id=match_id, bot_id=bot_id, place=place, forfeited=forfeited)
              for seat_id, match_id, bot_id, place, forfeited in seats] for seats in matches]
    before = pending.matches if pending is not None else []
    ratings = {bot_id: dataclasses.replace(rating) for bot_id, (_id, rating) in read.items()}
    ratings_replay([*before, *rated], ratings, k_factors())
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
    (:meth:`send`, inside ``database.statements_batched`` after ``database.commit_batched``): the server
    runs it once the commit is done, so it sees what a look of its own after the commit would see, one
    round trip earlier. :meth:`games` reads the answer after the batch."""

    def __init__(self, game_ids: Iterable[int]) -> None:
        self.game_ids = sorted(game_ids)
        self._cursor = None

    def send(self) -> None:
        if self.game_ids:
            self._cursor = database.statement_cursor()
            self._cursor.execute(rating_sql.pending_games_among_sql(), [self.game_ids])

    def games(self) -> set[int] | None:
        """The games with results pending; None where it was not sent (no game, or no COMMIT went with the
        batch: the caller looks itself)."""
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
    with database.statement_cursor() as cursor:
        cursor.execute(rating_sql.pending_exists_sql(), [game_id])
        return cursor.fetchone() is not None


@dataclasses.dataclass
class Rated:
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


def seats_by_match(rows: Iterable[Rated]) -> list[list[Rated]]:
    """Consecutive seats of one match grouped (rows come in match order)."""
    matches: list[list[Rated]] = []
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
    matches: list[list[Rated]]
    read: dict[int, tuple[int, BotRating]]

    @classmethod
    def from_rows(cls, rows: list[tuple]) -> PendingBatch:
        seats = [Rated(seat_id=seat_id, match_id=match_id, bot_id=bot_id, place=place, forfeited=_forfeits(outcome))
                 for _pending, match_id, seat_id, bot_id, place, outcome, *_rating in rows]
        read = {bot_id: (rating_id, BotRating(elo, games, wins, draws, losses))
                for *_seat, rating_id, bot_id, elo, games, wins, draws, losses in rows if rating_id is not None}
        return cls(ids=list(dict.fromkeys(row[0] for row in rows)), matches=seats_by_match(seats), read=read)

    @property
    def complete(self) -> bool:
        return all(seat.bot_id in self.read for seats in self.matches for seat in seats)

    @property
    def seats(self) -> list[Rated]:
        return [seat for seats in self.matches for seat in seats]


def ratings_replay(matches: list[list[Rated]], ratings: dict[int, BotRating], ks: KFactors) -> None:
    """The one sequential step over ``matches`` in order: ``ratings`` move, each seat gets its step."""
    for seats in matches:
        changes = rate_match(ratings, [RatedSeat(s.bot_id, s.place or len(seats), s.forfeited) for s in seats], ks)
        for seat, change in zip(seats, changes, strict=True):
            seat.step = tuple(change)


def rating_rows_read(game_id: int, bot_ids: list[int]) -> dict[int, tuple[int, BotRating]]:
    """The bots' rating rows, ``{bot id: (rating id, BotRating)}``; a missing row (deleted by hand: every
    bot gets one when it is created) is created first."""
    def read() -> dict[int, tuple[int, BotRating]]:
        with database.statement_cursor() as cursor:
            cursor.execute(rating_sql.ratings_read_sql(len(bot_ids)), [game_id, *bot_ids])
            return {bot_id: (rating_id, BotRating(elo, games, wins, draws, losses))
                    for rating_id, bot_id, elo, games, wins, draws, losses in cursor.fetchall()}

    rows = read()
    if len(rows) < len(bot_ids):
        Rating.objects.bulk_create([Rating(bot_id=bot_id, game_id=game_id) for bot_id in set(bot_ids) - set(rows)],
                                   ignore_conflicts=True)
        rows = read()
    return rows


def pending_batch_apply(game_id: int, *, limit: int, commit: bool = False, try_lock: bool = False,
                        look: PendingLook | None = None) -> int | None:
    """Apply the game's first ``limit`` pending matches inside the caller's transaction; returns how many
    it applied. ``try_lock``: first try to take the game's applier lock (in the same round trip as the
    reads), and return None, changing nothing, if another applier holds it; otherwise the caller holds it.
    ``commit``: the transaction is the caller's own, ended with the batch's writes
    (:func:`database.commit_batched`), and ``look`` (if given) sent after the COMMIT where it went with
    them."""
    with database.statement_cursor() as lock, database.statement_cursor() as batch:
        with database.statements_batched():
            if try_lock:
                lock.execute(rating_sql.try_apply_lock_sql(), [game_id])
            batch.execute(rating_sql.pending_batch_sql(), [game_id, limit])
        if try_lock and not lock.fetchone()[0]:
            return None
        rows = batch.fetchall()
    if not rows:
        return 0
    pending = PendingBatch.from_rows(rows)
    pending_ids, matches, seats, read = pending.ids, pending.matches, pending.seats, pending.read
    if not pending.complete:
        read = rating_rows_read(game_id, sorted({seat.bot_id for seat in seats}))
    ratings = {bot_id: rating for bot_id, (_id, rating) in read.items()}
    ratings_replay(matches, ratings, k_factors())
    now = database.db_datetime(timezone.now())
    pairs = [row for match in matches for row in _pair_rows(game_id, match, now)]
    writes = [
        *rating_sql.ratings_update(
            [(read[bot_id][0], r.elo, r.games, r.wins, r.draws, r.losses) for bot_id, r in ratings.items()], now),
        *rating_sql.changes_insert([(s.seat_id, s.match_id, s.bot_id, game_id, *s.step, now) for s in seats]),
        *rating_sql.seats_update([(s.seat_id, s.step[0], s.step[1]) for s in seats]),
    ]
    with database.statements_batched(), connection.cursor() as end:
        # One statement for the batch's writes, in this order (the locks they take too), as a recording's
        # own (``recording._write``): each statement of its own cost the applier's process as much as the
        # server's work on its rows.
        database.execute_combined(writes + pair_records.pair_records_parts(pairs)
                                  + rating_sql.pending_delete(pending_ids))
        if commit and database.commit_batched(end) and look is not None:
            look.send()
    return len(pending_ids)


def _pair_rows(game_id: int, seats: list[Rated], now) -> list[tuple]:
    return pair_records.pair_rows(game_id=game_id, bot_ids=[s.bot_id for s in seats],
                                  places=[s.place or len(seats) for s in seats],
                                  forfeited=[s.forfeited for s in seats], now=now)
