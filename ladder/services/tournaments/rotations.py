"""The seat rotations of a rated duplicate deal, played one after another, never two at once.

The rotations of a deal share its seed, and so every draw and die of the game. Two of them running at
the same time (on one machine, where a bot might reach another through something the sandbox cannot
close, such as its think time measured against the machine's load) could pass the deal from one to the
other: the bot of a later rotation would then know the game in advance. So in a *rated* duplicate round
robin a deal's rotations run in sequence:

- when the tournament is scheduled, only the first rotation of each deal is sent to the workers; every
  later one waits *held*: queued, with no message (:func:`first_rotations`);
- the transaction that records a rotation (or fails it for good) sends the deal's next one
  (:func:`rotation_release_next`), so at any moment at most one rotation of a deal is queued with a
  message or running;
- a worker's claim refuses a held rotation whatever message it got (``match_sql.claim_sql``), and the
  reconciler neither sends held rotations again nor counts them against what the broker holds
  (:func:`rotation_held`): it still recovers the lost message of a rotation that was released.

Deals still run side by side: a tournament of many deals keeps every worker busy. An unrated duplicate
round robin plays its rotations at the same time: its seeds derive from the tournament's public seed, so
there is nothing to pass.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Exists, OuterRef

from ladder.messaging.enqueue import matches_enqueue_on_commit
from ladder.models import Match, Tournament

#: The statuses of a rotation that keep the next one of its deal held.
OPEN_STATUSES = (Match.Status.QUEUED, Match.Status.RUNNING)


def rotations_in_sequence(tournament: Tournament) -> bool:
    """Whether the rotations of each deal of ``tournament`` are played one after another: a rated
    duplicate round robin's."""
    return tournament.rated and tournament.duplicate


def rotation_held() -> Exists:
    """On Match querysets: the match is a rotation of a rated deal with an earlier rotation still queued
    or running. Filter queued matches with ``~rotation_held()`` for those that may be sent and claimed."""
    return Exists(
        Match.objects.filter(
            tournament_id=OuterRef("tournament_id"), tournament__rated=True, deal=OuterRef("deal"),
            index__lt=OuterRef("index"), status__in=OPEN_STATUSES,
        )
    )


def first_rotations(match_ids: Sequence[int], deals: Sequence[int]) -> list[int]:
    """Of matches scheduled in rotation order (``match_ids[i]`` a rotation of ``deals[i]``), the first
    rotation of each deal: the ones to send at once when rotations run in sequence."""
    seen: set[int] = set()
    first = []
    for match_id, deal in zip(match_ids, deals, strict=True):
        if deal not in seen:
            seen.add(deal)
            first.append(match_id)
    return first


def rotation_release_next(*, tournament_id: int, deal: int) -> int | None:
    """Send the next held rotation of ``deal`` once the current transaction commits; its id, or None when
    the deal has none left. Call it in the transaction that records a rotation of a rated deal (or fails
    it for good), after that write: the next rotation is the deal's first one still queued."""
    next_id = (
        Match.objects.filter(tournament_id=tournament_id, deal=deal, status=Match.Status.QUEUED)
        .order_by("index").values_list("id", flat=True).first()
    )
    if next_id is not None:
        matches_enqueue_on_commit([next_id])
    return next_id
