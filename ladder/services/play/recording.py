"""Recording played matches, one or many in one transaction.

A worker hands in a played match as a :class:`PackedResult`: the referee's result with its actions and
each seat's log and decisions already compressed (:func:`result_pack`, done by the worker that played it,
before any lock is taken). :func:`results_record` stores any number of them in one transaction, in the
same few statements whatever their number:

1. one round trip tries the applier lock of each rated game among the matches (never waiting for it:
   ``rating_sql.inline_locks_sql``), finishes every match still running under its token and reads
   back their seats and whether their tournaments still have queued matches
   (``match_sql.finish_many_sql``: the ids, tokens, actions and durations travel as arrays, so the
   text, and the prepared statement, is one), and reads the bots' ratings under the locks it took; where
   it took a game's lock with results of the game pending, one more round trip reads those (up to an
   applier's batch: ``rating_applier.InlineRatings.read_pending``);
2. one statement writes every seat's result and what the matches add to their tournaments' standings,
   head to head and tally (``tournament_records``: the rows of matches that share a bot or a pair are
   summed first, as one multi-row upsert touches a row once), and, where it holds their game's applier
   lock, the ratings, history and pair records of the results that were pending and then of its own rated
   matches, in that order (``rating_applier.ratings_inline_parts``); the other rated matches are marked
   pending first (``rating_applier.pending_add_many``, one statement per game); the COMMIT goes in the
   same round trip unless a match has follow-ups;
3. the follow-ups, in match order: a rated deal's next rotation (``rotations``), a round robin that may
   be done (``round_robins``), a comparison's count (``comparisons``; a comparison's matches are recorded
   one per transaction, since its count of a pair looks at whether the pair's other game is finished).

After the commit each game's rating applier applies the rated matches left pending, in order with the
others (and a recording that held the lock looks once for results left pending meanwhile, in the round
trip of its COMMIT: ``rating_applier.PendingLook``). A match
is recorded once: a result whose claim was lost (lease expired and taken over, or already recorded)
changes nothing and is reported False.

Batches come from the workers' group commit (``ladder.services.play.result_group``): when many matches finish
at once, one process records all of them, so that the database sees one transaction where it would have
seen dozens.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import Iterable, Sequence

from django.db import connection, transaction
from django.utils import timezone

from ladder import packed_actions, seat_logs
from ladder.core.database import (
    commit_batched,
    db_datetime,
    execute_combined,
    statement_cursor,
    statements_batched,
)
from ladder.models import Match, Seat, Tournament
from ladder.services.play import match_sql
from ladder.services.ratings import rating_sql, tournament_records
from ladder.services.ratings.rating_applier import (
    InlineRatings,
    PendingLook,
    pending_add_many,
    ratings_apply_after_recording,
    ratings_apply_held,
    ratings_inline_parts,
)
from ladder.services.tournaments.comparisons import comparison_advance
from ladder.services.tournaments.rotations import rotation_release_next
from ladder.services.tournaments.round_robins import tournament_finish_if_done


@dataclasses.dataclass(frozen=True)
class PackedSeat:
    """One seat's result as stored: ``logs`` is its log and decisions packed (``ladder.seat_logs.pack``;
    None for neither)."""

    score: float | None
    place: int | None
    outcome: str
    reason: str
    time_used_ms: int
    logs: bytes | None

    @property
    def forfeited(self) -> bool:
        return Seat.outcome_forfeits(self.outcome)


@dataclasses.dataclass(frozen=True)
class PackedResult:
    """A played match ready to record: the claim (``match_id``, ``token``), the packed actions
    (``ladder.packed_actions.pack``; None for none), the duration and the seats in seat order."""

    match_id: int
    token: str
    actions: bytes | None
    duration_s: float
    seats: tuple[PackedSeat, ...]


def result_pack(*, match_id: int, token: str, result) -> PackedResult:
    """A referee's ``bots.match_result.MatchResult`` as a :class:`PackedResult` (compresses; no database)."""
    return PackedResult(
        match_id=match_id, token=str(token), actions=packed_actions.pack(list(result.actions)),
        duration_s=float(result.duration_s),
        seats=tuple(PackedSeat(score=seat.score, place=seat.place, outcome=seat.outcome, reason=seat.reason or "",
                               time_used_ms=max(0, int(seat.time_used_ms or 0)),
                               logs=seat_logs.pack(seat.log or "", list(seat.decisions)))
                    for seat in result.seats))


@dataclasses.dataclass
class _Finished:
    """A match the batch finished: its row's facts and its seats' ids and bots, in seat order."""

    result: PackedResult
    game_id: int
    tournament_id: int | None
    kind: str | None
    rated: bool
    comparison_id: int | None
    deal: int | None
    others_queued: bool
    seats: list[tuple[int, int, int]] = dataclasses.field(default_factory=list)  # (seat id, bot id, position)
    #: Rated within the recording's transaction (``_write``), not left pending.
    rated_inline: bool = False

    @property
    def may_finish_tournament(self) -> bool:
        return self.kind == Tournament.Kind.ROUND_ROBIN and not self.others_queued

    @property
    def releases_rotation(self) -> bool:
        # A rotation of a rated deal sends the deal's next one (``rotations``) within this transaction.
        return self.rated and self.deal is not None and self.others_queued

    @property
    def has_follow_up(self) -> bool:
        return self.may_finish_tournament or self.comparison_id is not None or self.releases_rotation


def results_record(results: Sequence[PackedResult]) -> dict[int, bool]:
    """Record ``results`` (module docstring) in one transaction; by match id, whether each was recorded
    (False: its claim was lost or it was recorded already, and nothing of it changed). A result whose
    seats do not match its match's is a ``ValueError`` and nothing of the batch is recorded. Unless the
    caller holds a transaction, each recorded rated match is applied to its game's ratings on return."""
    unique = _first_of_each_match(results)
    recorded = {result.match_id: False for result in results}
    if not unique:
        return recorded
    try:
        finished = _record_together(unique)
    except _OnePerTransaction as exc:
        # A comparison counts a pair once both its games are finished (``comparison_advance``): with both
        # in one transaction each match's count would see the pair done. Its matches go one by one.
        alone = [result for result in unique if result.match_id in exc.match_ids]
        together = [result for result in unique if result.match_id not in exc.match_ids]
        for part in [[result] for result in alone] + ([together] if together else []):
            recorded.update(results_record(part))
        return recorded
    recorded.update({match.result.match_id: True for match in finished.matches})
    _ratings_apply_after_commit(finished)
    return recorded


def _ratings_apply_after_commit(batch: _Batch) -> None:
    """After the commit, outside the transaction that held the match rows: the game's one applier (this
    caller, or the one applying now) applies the rated matches left pending in order with the others;
    and where the recording held the applier's lock, what other recordings left pending meanwhile."""
    pending = {match.game_id for match in batch.matches if match.rated and not match.rated_inline}
    seen = batch.look.games() if batch.look is not None else None
    for game_id in sorted(pending | batch.held_games):
        if game_id in pending:
            ratings_apply_after_recording(game_id=game_id)
        else:
            ratings_apply_held(game_id=game_id, pending=None if seen is None else game_id in seen)


class _OnePerTransaction(Exception):
    """Raised inside the batch's transaction (which it rolls back) for matches that must be recorded in
    transactions of their own."""

    def __init__(self, match_ids: set[int]) -> None:
        super().__init__(f"matches {sorted(match_ids)} are recorded one by one")
        self.match_ids = match_ids


@dataclasses.dataclass
class _Batch:
    """What :func:`_record_together` finished: the matches, in match order, and the ratings it applies
    itself."""

    matches: list[_Finished]
    inline: InlineRatings
    #: Which games had results pending after the commit, asked along with it (None: not asked).
    look: PendingLook | None = None

    @property
    def held_games(self) -> set[int]:
        return self.inline.held


def _record_together(unique: list[PackedResult]) -> _Batch:
    """:func:`results_record`'s transaction: the finished matches, the rated ones applied to the ratings
    within it where it took their game's applier lock, the others left pending."""
    now = db_datetime(timezone.now())
    with transaction.atomic():
        finished = _finish(unique, now=now)
        if not finished.matches:
            return finished
        comparisons = {match.result.match_id for match in finished.matches if match.comparison_id is not None}
        if comparisons and len(finished.matches) > 1:
            raise _OnePerTransaction(comparisons)
        follow_up = any(match.has_follow_up for match in finished.matches)
        with connection.cursor() as commit:
            with statements_batched():
                _write(finished, now=now)
                if not follow_up and commit_batched(commit):
                    # Whether results were left pending while it held games' applier locks, asked with
                    # the COMMIT (``_ratings_apply_after_commit``).
                    finished.look = PendingLook(finished.held_games)
                    finished.look.send()
        if follow_up:
            _follow_up(finished.matches)
    return finished


def _first_of_each_match(results: Iterable[PackedResult]) -> list[PackedResult]:
    """The results in match order, one per match (the first given), without those whose token is not one
    this service ever handed out."""
    unique: dict[int, PackedResult] = {}
    for result in results:
        try:
            uuid.UUID(str(result.token))
        except ValueError:
            continue
        unique.setdefault(result.match_id, result)
    return [unique[match_id] for match_id in sorted(unique)]


def _finish(results: list[PackedResult], *, now) -> _Batch:
    """Finish the matches still running under their tokens (locking their rows, in id order); the
    finished ones with their seats. The reads see the database as before the UPDATE, which changes no
    seat and no queued match: a match queued now that is claimed before the commit is recorded later, and
    its recording finishes the tournament if it is the last.

    The same round trip first tries the applier lock of each rated game among the matches
    (``rating_sql.inline_locks_sql``), then reads their bots' ratings under it: the recording applies the
    ratings itself where it took the lock. Where results of the game were pending, a second round trip
    reads them (``InlineRatings.read_pending``), and the recording applies them first."""
    finished_status, running, queued = (Match.Status.FINISHED.value, Match.Status.RUNNING.value,
                                         Match.Status.QUEUED.value)
    by_id = {result.match_id: result for result in results}
    match_ids = [result.match_id for result in results]
    with statement_cursor() as locks, statement_cursor() as cursor, statement_cursor() as ratings:
        with statements_batched():
            locks.execute(rating_sql.inline_locks_sql(), [match_ids])
            cursor.execute(match_sql.finish_many_sql(), match_sql.finish_many_params(
                results, finished=finished_status, running=running, queued=queued, now=now))
            ratings.execute(rating_sql.inline_ratings_sql(), [match_ids])
        lock_rows, rows, rating_rows = locks.fetchall(), cursor.fetchall(), ratings.fetchall()
    inline = InlineRatings.from_rows(lock_rows, rating_rows)
    # Results pending before this recording's: read under the lock it took, to apply them first.
    inline.read_pending()
    matches: dict[int, _Finished] = {}
    for match_id, seat_id, bot_id, game_id, tournament_id, kind, rated, comparison_id, deal, position, queued_left \
            in rows:
        match = matches.get(match_id)
        if match is None:
            match = matches[match_id] = _Finished(
                result=by_id[match_id], game_id=game_id, tournament_id=tournament_id, kind=kind, rated=bool(rated),
                comparison_id=comparison_id, deal=deal, others_queued=bool(queued_left))
        if seat_id is not None:
            match.seats.append((seat_id, bot_id, position))
    for match in matches.values():
        if not match.seats or len(match.seats) != len(match.result.seats):
            raise ValueError(f"match {match.result.match_id} has {len(match.seats)} seats, "
                             f"the result {len(match.result.seats)}")
        match.rated_inline = match.rated and inline.applies(
            match.game_id, [bot_id for _seat, bot_id, _position in match.seats])
    return _Batch([matches[match_id] for match_id in sorted(matches)], inline)


def _write(batch: _Batch, *, now) -> None:
    """Every write of the batch, in the lock order every recording keeps: the games' pending marks (which
    take the game's recording lock shared), the seats, then each tournament's standings by bot, its pairs
    and its tally, and last the ratings the batch applies itself (their rows, history and pair records:
    only under the game's applier lock)."""
    finished = batch.matches
    rated: dict[int, list[int]] = {}
    inline: dict[int, list[list[tuple]]] = {}
    for match in finished:
        if match.rated_inline:
            inline.setdefault(match.game_id, []).append(
                [(seat_id, match.result.match_id, bot_id, seat.place, seat.forfeited)
                 for (seat_id, bot_id, _position), seat in zip(match.seats, match.result.seats, strict=True)])
        elif match.rated:
            rated.setdefault(match.game_id, []).append(match.result.match_id)
    for game_id in sorted(rated):
        pending_add_many(match_ids=rated[game_id], game_id=game_id)
    rating_parts, seat_ratings = [], {}
    for game_id in sorted(inline):
        parts, ratings = ratings_inline_parts(game_id=game_id, matches=inline[game_id],
                                              read=batch.inline.ratings[game_id], now=now,
                                              pending=batch.inline.pending.get(game_id))
        rating_parts += parts
        seat_ratings.update(ratings)
    seat_rows = [(seat.score, seat.place, seat.outcome, seat.reason, seat.time_used_ms, seat.logs,
                  *seat_ratings.get(seat_id, (None, None)), seat_id)
                 for match in finished
                 for (seat_id, _bot, _position), seat in zip(match.seats, match.result.seats, strict=True)]
    records = _tournament_records(finished, now=now)
    parts = [match_sql.seat_results_part(seat_rows)]
    for tournament_id, (standings, head_to_head, count) in sorted(records.items()):
        parts += tournament_records.records_parts(tournament_id=tournament_id, standings=standings,
                                                  head_to_head=head_to_head, matches=count)
    execute_combined(parts + rating_parts)


def _tournament_records(finished: list[_Finished], *, now) -> dict[int, tuple[list, list, int]]:
    """By tournament: the standings and head-to-head rows the batch's matches add, summed per row
    (``tournament_records.rows_merged``), and how many matches it finished."""
    by_tournament: dict[int, tuple[list, list, int]] = {}
    for match in finished:
        if match.tournament_id is None:
            continue
        standings, head_to_head = tournament_records.match_record_rows(
            tournament_id=match.tournament_id, match_id=match.result.match_id, now=now,
            seats=[(position, bot_id, seat.place, seat.score, seat.forfeited)
                   for (_seat_id, bot_id, position), seat in zip(match.seats, match.result.seats, strict=True)])
        earlier = by_tournament.get(match.tournament_id, ([], [], 0))
        by_tournament[match.tournament_id] = (earlier[0] + standings, earlier[1] + head_to_head, earlier[2] + 1)
    return {tournament_id: (tournament_records.standings_merged(standings),
                            tournament_records.head_to_head_merged(head_to_head), count)
            for tournament_id, (standings, head_to_head, count) in by_tournament.items()}


def _follow_up(finished: list[_Finished]) -> None:
    """What the batch's matches set going within the transaction, in match order; a tournament that may
    be done is looked at once, after its last match of the batch."""
    last_of_tournament = {match.tournament_id: match.result.match_id for match in finished
                          if match.may_finish_tournament}
    for match in finished:
        if match.releases_rotation:
            rotation_release_next(tournament_id=match.tournament_id, deal=match.deal)
        if last_of_tournament.get(match.tournament_id) == match.result.match_id:
            tournament_finish_if_done(tournament_id=match.tournament_id)
        if match.comparison_id is not None:
            comparison_advance(comparison_id=match.comparison_id, match_id=match.result.match_id)
