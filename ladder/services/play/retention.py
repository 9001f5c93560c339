"""Retention: the logs and decision records of old unrated matches are dropped, their results kept.

A seat's log and decisions (``Seat.logs``, :mod:`ladder.seat_logs`) are most of a match's bytes and are
read only by whoever looks at that match's page soon after it was played. Of an unrated match (a round
robin not marked rated, or a version comparison's) nothing else reads them: its score, place, outcome,
reason, time, the match's actions (its replay) and every standing stay as they are. Rated matches keep
their logs: they are the ladder's record.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

from django.db import transaction
from django.db.models import Q, Sum
from django.db.models.functions import Length
from django.utils import timezone

from ladder.core.errors import ServiceError
from ladder.models import Match, Seat

#: Seats cleared per transaction: short transactions, no long lock on a big history.
BATCH_SEATS = 5000


@dataclasses.dataclass(frozen=True)
class PruneReport:
    """What a prune freed (or, dry, would free)."""

    #: Matches that had a seat with logs.
    matches: int
    #: Seat rows whose logs were dropped.
    seats: int
    #: Bytes of the values dropped (as stored: compressed). PostgreSQL reuses the space after VACUUM
    #: (autovacuum does it) and gives it back to the system only after ``VACUUM FULL``.
    bytes: int
    dry_run: bool

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def _prunable_seats(before: datetime):
    """Seats with logs of the unrated matches that ended before ``before``."""
    old = Match.objects.filter(finished_at__lt=before, status__in=[Match.Status.FINISHED, Match.Status.FAILED])
    unrated = Q(tournament__isnull=True) | Q(tournament__rated=False)
    return Seat.objects.filter(logs__isnull=False, match__in=old.filter(unrated).values("id"))


def seat_logs_prune(*, older_than_days: float, dry_run: bool = False, now: datetime | None = None) -> PruneReport:
    """Drop the logs and decisions (``Seat.logs``) of unrated matches that ended more than
    ``older_than_days`` days ago, keeping their results; with ``dry_run`` only count them. ServiceError
    for a negative or non-finite number of days."""
    if not (0 <= older_than_days < float("inf")):
        raise ServiceError(f"--older-than must be a number of days of at least 0, not {older_than_days}")
    try:
        before = (now or timezone.now()) - timedelta(days=older_than_days)
    except OverflowError:
        raise ServiceError(f"--older-than {older_than_days} days reaches before the calendar") from None
    seats = _prunable_seats(before)
    if dry_run:
        totals = seats.aggregate(bytes=Sum(Length("logs")))
        return PruneReport(matches=seats.values("match_id").distinct().count(), seats=seats.count(),
                           bytes=totals["bytes"] or 0, dry_run=True)
    matches: set[int] = set()
    cleared = freed = 0
    while True:
        with transaction.atomic():
            batch = list(seats.order_by("id").values_list("id", "match_id", Length("logs"))[:BATCH_SEATS])
            if not batch:
                break
            Seat.objects.filter(id__in=[seat_id for seat_id, _, _ in batch]).update(logs=None)
        matches.update(match_id for _, match_id, _ in batch)
        cleared += len(batch)
        freed += sum(size or 0 for _, _, size in batch)
    return PruneReport(matches=len(matches), seats=cleared, bytes=freed, dry_run=False)
