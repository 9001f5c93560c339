"""The life of a match on the workers: claim, record, release after a fault, reconcile.

``run_match`` and ``run_matches`` (workers/tasks.py) are made safe to deliver twice, to lose, or to
interrupt by three rules:

1. :func:`match_claim` locks the match row and only takes a queued match (or a running one whose lease
   expired). It marks it running with a fresh attempt token and a lease; a second delivery finds it
   running or done and does nothing. :func:`match_claim_many` does the same for the matches of a
   message in one transaction.
2. The referee plays the match outside any transaction (no Django there), while the worker renews the
   lease (:func:`match_lease_renew`, every ``MATCH_HEARTBEAT_S``): the lease is short, so the match of a
   worker that died is played again within seconds, and a long match that is alive keeps it.
3. :func:`match_record_result` writes the actions, the seats and the tournament's standings
   (``tournament_records``) in one transaction, with a rated match marked pending for its game's rating
   applier (``rating_applier``), which applies it once the transaction committed,
   and only if the match is still running under the same token: a worker whose lease was taken over
   cannot record a stale result, and a result is never recorded twice.

:func:`matches_reconcile` (periodic, every ``RECONCILE_INTERVAL_S``) puts matches whose lease expired
back in the queue, and sends again the messages of queued matches the broker holds none for (neither
waiting nor taken by a worker; ``_queued_without_message``), so a killed worker or a flushed broker
delays matches by seconds and never loses them, and a message a worker has prefetched is never sent twice.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import time
import uuid
from collections.abc import Sequence
from datetime import datetime, timedelta

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from ladder.core.database import (
    commit_batched,
    db_datetime,
    from_db_json,
    implicit_transactions,
    statement_cursor,
    statements_batched,
    transaction_settings,
)
from ladder.messaging.enqueue import (
    broker_match_messages,
    broker_waiting_match_ids,
    matches_enqueue_on_commit,
)
from ladder.models import Match
from ladder.services.play import match_sql
from ladder.services.play.recording import result_pack, results_record
from ladder.services.ratings.rating_applier import ratings_apply_stranded
from ladder.services.tournaments.comparisons import comparison_advance, comparison_decided
from ladder.services.tournaments.rotations import rotation_held, rotation_release_next
from ladder.services.tournaments.round_robins import tournament_finish_if_done

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class ClaimedSeat:
    position: int
    bot_name: str
    bot_version_id: int
    sha256: str


@dataclasses.dataclass(frozen=True)
class ClaimedMatch:
    """What the referee needs to play a claimed match, and the token that proves the claim."""

    match_id: int
    token: str
    game: str
    players: int
    seed: int
    options: dict
    seats: list[ClaimedSeat]
    #: The sandbox limits stored when the match was scheduled ({}: the settings at play time).
    limits: dict = dataclasses.field(default_factory=dict)


def match_claim(*, match_id: int, worker: str = "", now: datetime | None = None) -> ClaimedMatch | None:
    """Take the match for this worker, or None if it is gone, done, or held by another live worker.

    The claim is one conditional UPDATE: the database serialises concurrent claims on the row, and the
    second one finds the match no longer claimable. The match and its seats, immutable once scheduled,
    are read in the same round trip (only the code checksums: workers fetch code bytes they have not
    cached in one more query).
    """
    token = uuid.uuid4()
    at, lease_end = _claim_times(now)
    running, queued = Match.Status.RUNNING.value, Match.Status.QUEUED.value
    claim = (match_sql.claim_sql(), [running, match_sql.db_token(token), lease_end, at, worker[:200], at, match_id,
                                     queued, running, at, queued, running])
    (claimed, _), (_, rows) = _claim_transaction(claim, (match_sql.claimed_match_sql(), [match_id]))
    if not claimed or not rows:
        return None
    return _claimed(match_id, str(token), rows)


def _claim_times(now: datetime | None) -> tuple:
    """A claim's time and its lease's end, as parameters."""
    now = now or timezone.now()
    return db_datetime(now), db_datetime(now + timedelta(seconds=settings.MATCH_LEASE_S))


def _claim_transaction(*statements: tuple[str, list]) -> list[tuple[int, list[tuple]]]:
    """Run ``statements`` (text, parameters) in one transaction of one round trip, with the transaction's
    settings (``database.transaction_settings``: a worker's drops the wait for the WAL flush, workers/app.py;
    the prepared plans made once for any parameters). Outside any transaction, where statements are
    pipelined, that is the pipeline's own implicit transaction (``database.implicit_transactions``: no
    BEGIN or COMMIT sent); else an atomic block, begun and committed with the batch. Returns each one's
    row count and rows (none for a statement that returns none)."""
    with contextlib.ExitStack() as stack:
        implicit = implicit_transactions()
        if not implicit:
            stack.enter_context(transaction.atomic())
        settings_cursor = stack.enter_context(connection.cursor())
        running = [stack.enter_context(statement_cursor()) for _ in statements]
        with statements_batched():
            if implicit:
                transaction_settings(settings_cursor)
            for cursor, (sql, params) in zip(running, statements, strict=True):
                cursor.execute(sql, params)
            if not implicit:
                commit_batched(settings_cursor)
        return [(cursor.rowcount, cursor.fetchall() if cursor.description else []) for cursor in running]


def match_claim_many(*, match_ids: Sequence[int], worker: str = "", now: datetime | None = None) -> list[ClaimedMatch]:
    """Take every match of ``match_ids`` that can be taken, as :func:`match_claim` takes one, each under a
    token of its own; the claimed ones in the order given (a match given twice is claimed once).

    One statement, in a transaction of one round trip, claims them all and reads them back
    (:func:`match_sql.claim_many_sql`: rows locked in id order)."""
    ids = list(dict.fromkeys(int(match_id) for match_id in match_ids))
    if not ids:
        return []
    tokens = {match_id: uuid.uuid4() for match_id in ids}
    at, lease_end = _claim_times(now)
    running, queued = Match.Status.RUNNING.value, Match.Status.QUEUED.value
    claim = (match_sql.claim_many_sql(), [ids, [tokens[match_id] for match_id in ids], queued, running, at, queued,
                                          running, running, lease_end, at, worker[:200], at])
    [(_, rows)] = _claim_transaction(claim)
    by_match: dict[int, list[tuple]] = {}
    for row in rows:
        by_match.setdefault(row[0], []).append(row[1:])
    return [_claimed(match_id, str(tokens[match_id]), by_match[match_id]) for match_id in ids if match_id in by_match]


def _claimed(match_id: int, token: str, rows: list[tuple]) -> ClaimedMatch:
    """A :class:`ClaimedMatch` from the rows of :func:`match_sql.claimed_match_sql` (without the id)."""
    game, players, seed, options, limits = rows[0][:5]
    return ClaimedMatch(
        match_id=match_id,
        token=token,
        game=game,
        players=players,
        seed=seed,
        options=from_db_json(options) or {},  # null: a match without a setup
        limits=from_db_json(limits) or {},
        seats=[
            ClaimedSeat(position=position, bot_name=name, bot_version_id=version_id, sha256=sha256)
            for *_, position, name, version_id, sha256 in rows if position is not None
        ],
    )


def match_leases_renew(*, leases: dict[int, str], now: datetime | None = None, database=None) -> set[int]:
    """Extend the lease of every match of ``leases`` (match id: token) still running under its token to
    ``MATCH_LEASE_S`` from now; the ids renewed (the others' claims are lost or their matches over). One
    UPDATE, outside any transaction, on ``database`` (a Django connection; default: the calling
    thread's)."""
    database = database or connection
    valid: dict[int, uuid.UUID] = {}
    for match_id, token in leases.items():
        try:
            valid[int(match_id)] = uuid.UUID(str(token))
        except ValueError:
            continue
    if not valid:
        return set()
    now = now or timezone.now()
    lease_end = db_datetime(now + timedelta(seconds=settings.MATCH_LEASE_S))
    with database.cursor() as cursor:
        cursor.execute(match_sql.renew_leases_sql(), [lease_end, list(valid), list(valid.values()),
                                                      Match.Status.RUNNING.value])
        return {row[0] for row in cursor.fetchall()}


def match_lease_renew(*, match_id: int, token: str, now: datetime | None = None, database=None) -> bool:
    """Extend the lease of a running match to ``MATCH_LEASE_S`` from now, if it is still held under
    ``token``; False (nothing changed) once the claim is lost or the match is over. One UPDATE, outside
    any transaction, on ``database`` (a Django connection; default: the calling thread's)."""
    try:
        token_value = match_sql.db_token(uuid.UUID(str(token)))
    except ValueError:
        return False
    now = now or timezone.now()
    lease_end = db_datetime(now + timedelta(seconds=settings.MATCH_LEASE_S))
    with (database or connection).cursor() as cursor:
        cursor.execute(match_sql.renew_lease_sql(), [lease_end, match_id, Match.Status.RUNNING.value, token_value])
        return cursor.rowcount == 1


def _locked_if_held(match_id: int, token: str) -> Match | None:
    return (
        Match.objects.select_for_update()
        .filter(id=match_id, status=Match.Status.RUNNING, attempt_token=token)
        .first()
    )


def match_record_result(*, match_id: int, token: str, result) -> bool:
    """Store a played match (a ``bots.referee.MatchResult``) with its seats (their logs and decision records
    too), atomically, and for a rated match its rating changes right after: ``recording.results_record``
    of one result, which says how and in how few statements.
    Only a rated match changes ratings (``ladder.core.rated_play``); an unrated one leaves every
    rating, its history and its seats' ``rating_before``/``rating_after`` alone. A rated one is marked
    pending in the transaction (no rating row is locked there), and after the commit this caller tries to
    become its game's rating applier (``rating_applier.ratings_apply_pending``): when it returns, the
    match is applied, by this caller or by the applier that held the game meanwhile.

    Returns False, changing nothing, unless the match is running under ``token``: the caller lost its
    claim (lease expired and taken over) or the result is already recorded.
    """
    packed = result_pack(match_id=match_id, token=token, result=result)
    return results_record([packed])[match_id]


def match_release_after_fault(*, match_id: int, token: str, reason: str) -> str:
    """After a sandbox fault (our fault, not the bots'): queue the match again, or mark it failed once it
    has had ``MATCH_MAX_ATTEMPTS`` attempts. Returns "requeued", "failed", "dropped" (its comparison has
    decided) or "stale" (claim lost)."""
    with transaction.atomic():
        match = _locked_if_held(match_id, token)
        if match is None:
            return "stale"
        outcome = _give_back(match, reason=reason, now=timezone.now())
    return outcome


def _give_back(match: Match, *, reason: str, now: datetime) -> str:
    """Requeue or fail a locked match that is no longer being played, or drop it ("dropped") when it
    belongs to a comparison that has already decided: nobody would count it. Caller holds the row lock."""
    if match.comparison_id is not None and comparison_decided(comparison_id=match.comparison_id):
        match.delete()
        logger.info("match %s dropped: its comparison decided while it played (%s)", match.id, reason)
        return "dropped"
    match.attempt_token = None
    match.lease_expires_at = None
    match.failure_reason = reason[:2000]
    if match.attempts >= settings.MATCH_MAX_ATTEMPTS:
        match.status = Match.Status.FAILED
        match.finished_at = now
        match.save(update_fields=["status", "finished_at", "attempt_token", "lease_expires_at", "failure_reason",
                                  "updated_at"])
        if match.comparison_id is not None:
            comparison_advance(comparison_id=match.comparison_id)
        else:
            if match.deal is not None and match.tournament.rated:
                # Failed for good: the deal's next rotation plays without it.
                rotation_release_next(tournament_id=match.tournament_id, deal=match.deal)
            tournament_finish_if_done(tournament_id=match.tournament_id)
        logger.warning("match %s failed after %s attempts: %s", match.id, match.attempts, reason)
        return "failed"
    match.status = Match.Status.QUEUED
    match.enqueued_at = now
    match.save(update_fields=["status", "attempt_token", "lease_expires_at", "failure_reason", "enqueued_at",
                              "updated_at"])
    matches_enqueue_on_commit([match.id], stamped=True)
    return "requeued"


@dataclasses.dataclass(frozen=True)
class ReconcileReport:
    expired: int
    failed: int
    #: Messages sent again, for either reason below.
    resent: int
    #: Of those, queued matches sent again because the broker held no message for them.
    lost: int = 0

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


#: Seconds between the two looks at the broker before messages are declared lost: a message a worker
#: has just taken has left the broker a moment before its match is claimed.
LOST_MESSAGE_RECHECK_S = 0.2


def matches_reconcile(*, now: datetime | None = None) -> ReconcileReport:
    """Recover from lost work: running matches past their lease go back to the queue (or fail after too
    many attempts); queued matches get their message again when the broker holds none for them
    (``_queued_without_message``; duplicates are harmless, the claim skips them), and in any case once
    they have waited ``MATCH_REQUEUE_AFTER_S`` unclaimed. Rated results left pending by a worker that died
    after recording them are applied (``rating_applier.ratings_apply_stranded``). A held rotation of a rated deal
    (``rotations.rotation_held``) has no message to lose: it is neither counted nor sent."""
    now = now or timezone.now()
    stranded = ratings_apply_stranded()
    if stranded:
        logger.warning("%d rated results were left pending (a worker died after recording them); applied", stranded)
    # First, so that the matches given back below, whose messages go out as each one commits, are not
    # counted among them.
    lost = _queued_without_message()
    expired = failed = 0
    expired_ids = list(
        Match.objects.filter(status=Match.Status.RUNNING, lease_expires_at__lt=now).values_list("id", flat=True)
    )
    for match_id in expired_ids:
        with transaction.atomic():
            match = (
                Match.objects.select_for_update()
                .filter(id=match_id, status=Match.Status.RUNNING, lease_expires_at__lt=now)
                .first()
            )
            if match is None:
                continue
            outcome = _give_back(match, reason=f"lease expired on worker {match.worker or '?'}", now=now)
            expired += 1
            failed += outcome == "failed"
    stale_before = now - timedelta(seconds=settings.MATCH_REQUEUE_AFTER_S)
    with transaction.atomic():
        stale = list(
            Match.objects.filter(status=Match.Status.QUEUED)
            .filter(~rotation_held())
            .filter(Q(enqueued_at__lt=stale_before) | Q(enqueued_at__isnull=True))
            .exclude(id__in=expired_ids)
            .exclude(id__in=lost)
            .order_by("priority", "id")
            .values_list("id", flat=True)
        )
        resend = [match_id for match_id in lost if match_id not in expired_ids] + stale
        Match.objects.filter(id__in=resend).update(enqueued_at=now)
        matches_enqueue_on_commit(resend, stamped=True)
    if lost:
        logger.warning("the broker lost the messages of up to %d queued matches; sent again", len(lost))
    return ReconcileReport(expired=expired, failed=failed, resent=len(resend), lost=len(lost))


def matches_waiting(*, limit: int) -> list[int]:
    """Up to ``limit`` queued matches, in the order workers should take them (priority, then age): what a
    worker that owes matches time plays instead of an upload check (``workers.time_share``)."""
    return list(Match.objects.filter(status=Match.Status.QUEUED).order_by("priority", "id")
                .values_list("id", flat=True)[:limit])


def _queued_ids() -> list[int]:
    """The queued matches that should have a message on the broker: held rotations have none."""
    return list(Match.objects.filter(status=Match.Status.QUEUED).filter(~rotation_held())
                .order_by("priority", "id").values_list("id", flat=True))


def _queued_without_message() -> list[int]:
    """The queued matches the broker holds no message for, at two looks ``LOST_MESSAGE_RECHECK_S`` apart
    (a message published as its transaction commits, or moving from the queue to a worker, can be missed
    by one look, never by both).

    Where the broker keeps the messages workers have taken and not acknowledged (Redis: prefetched and
    running ones), those matches are not missing, and when the rest outnumber the waiting messages the
    waiting ones are listed to find exactly which matches have none. A message taken more than
    ``MATCH_LEASE_S`` ago whose match is still queued counts as missing: the worker that prefetched it
    may have died (a live one that still holds it then finds the match claimed by whoever took the copy). Elsewhere only the counts can be
    compared, and a shortfall sends every queued match again (a duplicate costs a skipped claim)."""
    first = _missing_at_one_look()
    if not first:
        return []
    time.sleep(LOST_MESSAGE_RECHECK_S)
    seen_missing = set(first)
    return [match_id for match_id in _missing_at_one_look() if match_id in seen_missing]


def _missing_at_one_look() -> list[int]:
    view = broker_match_messages()
    if view is None:
        return []
    queued = _queued_ids()
    if view.reserved is None:
        return queued if len(queued) > view.waiting else []
    unreserved = [match_id for match_id in queued if match_id not in view.reserved]
    if len(unreserved) <= view.waiting:
        return []
    waiting = broker_waiting_match_ids()
    if waiting is None:
        return unreserved
    # Looked at again after the listing: a message taken while the backlog was read is in the hash now.
    again = broker_match_messages()
    reserved_since = (again.reserved or frozenset()) if again is not None else frozenset()
    return [match_id for match_id in unreserved if match_id not in waiting and match_id not in reserved_since]
