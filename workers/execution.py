"""Playing matches on this worker: claim them, fetch the code, run the referee, record or release.

:func:`match_execute` plays the one match of a ``run_match`` message; :func:`matches_execute` the few of a
``run_matches`` message (``ladder.messaging.enqueue``), claimed in one transaction, played one after the
other, and recorded together: one claim and about one recording per message rather than per match.
"""

from __future__ import annotations

import dataclasses
import logging
import socket
import time
from collections.abc import Callable, Sequence

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from ladder.core.limits import sandbox_limits
from ladder.services.play.matches import (
    ClaimedMatch,
    match_claim,
    match_claim_many,
    match_release_after_fault,
)
from ladder.services.play.recording import PackedResult, result_pack
from ladder.services.play.result_group import result_record, results_record_guarded
from workers.code_bytes import code_bytes_cache
from workers.heartbeat import lease_heartbeat

logger = logging.getLogger(__name__)


def match_execute(*, match_id: int, worker: str | None = None) -> str:
    """Play match ``match_id`` if it can be claimed. Returns "recorded", "skipped" (not claimable: done,
    gone or held by another worker), "stale" (claim lost before recording), "requeued", "failed" or
    "dropped" (after a sandbox fault; dropped when its comparison has decided meanwhile). Bot faults are results, not faults: the referee records them as forfeits."""
    claim = match_claim(match_id=match_id, worker=worker or socket.gethostname())
    if claim is None:
        return "skipped"
    try:
        # The lease is renewed while the match is played, however long it lasts.
        with lease_heartbeat.holding(match_id=match_id, token=claim.token):
            result = _play(claim)
    except SoftTimeLimitExceeded:
        return match_release_after_fault(match_id=match_id, token=claim.token,
                                         reason="the match exceeded the worker's time limit")
    except Exception as exc:  # noqa: BLE001 - _fault_reason tells ours from the rest
        return match_release_after_fault(match_id=match_id, token=claim.token, reason=_fault_reason(claim, exc))
    packed = result_pack(match_id=match_id, token=claim.token, result=result)
    if result_record(game=claim.game, result=packed).recorded:
        return "recorded"
    return "stale"


def _play(claim: ClaimedMatch):
    """Fetch the code of ``claim``'s seats and play it (inside a heartbeat's holding block: the code is
    fetched on the connection it shares)."""
    from bots.referee import BotSpec, play_match

    with lease_heartbeat.database():  # the heartbeat shares this thread's connection
        code = code_bytes_cache.get_many([seat.sha256 for seat in claim.seats])
    return play_match(
        claim.game,
        [BotSpec(name=seat.bot_name, code=code[seat.sha256]) for seat in claim.seats],
        seed=claim.seed,
        options=claim.options,
        # The limits stored when the match was scheduled, so that every attempt plays under the same.
        limits=sandbox_limits(game=claim.game, overrides=claim.limits),
        allow_unsafe=settings.BOTS_ALLOW_UNSAFE,
    )


def _fault_reason(claim: ClaimedMatch, exc: Exception) -> str:
    """The reason a match that could not be played is given back with. A sandbox fault is the machine's; any
    other error an engine or referee bug, ours too: retried like a sandbox fault, then the match fails
    with the error as its reason instead of killing the worker or looping forever."""
    from bots.referee import SandboxFault

    if isinstance(exc, SandboxFault):
        return f"sandbox fault: {exc}"
    logger.error("match %s could not be played", claim.match_id, exc_info=exc)
    return f"{type(exc).__name__}: {exc}"


@dataclasses.dataclass
class _Unrecorded:
    """Results played and not yet recorded, with when the first of them was packed."""

    results: list[PackedResult] = dataclasses.field(default_factory=list)
    since: float = 0.0

    def add(self, result: PackedResult) -> None:
        if not self.results:
            self.since = time.monotonic()
        self.results.append(result)

    def due(self) -> bool:
        return bool(self.results) and time.monotonic() - self.since >= settings.RESULTS_HOLD_S


def matches_execute(*, match_ids: Sequence[int], worker: str | None = None,
                    played: Callable[[int, float], None] | None = None) -> dict[int, str]:
    """Play the matches of ``match_ids`` that can be claimed, claimed together (``match_claim_many``);
    by match id, each one's outcome as :func:`match_execute` gives it.

    Every claimed match's lease is renewed until its result is recorded or it is given back, whether it is
    being played or waits its turn. Results are recorded together (one transaction, one bad result
    costing only itself): when the last match is played, or before the next one is begun once the first of
    them has waited ``RESULTS_HOLD_S``. A match that cannot be played is given back alone and the others
    are played; past the task's soft time limit, what was played is recorded and the rest given back.
    ``played(match_id, seconds)`` is told of each match played or given back after a try."""
    outcomes = {int(match_id): "skipped" for match_id in match_ids}
    claims = match_claim_many(match_ids=list(outcomes), worker=worker or socket.gethostname())
    unrecorded = _Unrecorded()
    with lease_heartbeat.holding_many({claim.match_id: claim.token for claim in claims}):
        remaining = list(claims)
        try:
            while remaining:
                claim = remaining.pop(0)
                started = time.monotonic()
                try:
                    result = _play(claim)
                except SoftTimeLimitExceeded:
                    remaining.insert(0, claim)
                    raise
                except Exception as exc:  # noqa: BLE001 - _fault_reason tells ours from the rest
                    with lease_heartbeat.database():
                        outcomes[claim.match_id] = match_release_after_fault(
                            match_id=claim.match_id, token=claim.token, reason=_fault_reason(claim, exc))
                    lease_heartbeat.forget(claim.match_id)
                else:
                    unrecorded.add(result_pack(match_id=claim.match_id, token=claim.token, result=result))
                if played is not None:
                    played(claim.match_id, time.monotonic() - started)
                if remaining and unrecorded.due():
                    outcomes.update(_record(unrecorded))
        except SoftTimeLimitExceeded:
            outcomes.update(_record(unrecorded))
            for claim in remaining:
                with lease_heartbeat.database():
                    outcomes[claim.match_id] = match_release_after_fault(
                        match_id=claim.match_id, token=claim.token,
                        reason="the matches exceeded the worker's time limit")
            return outcomes
        outcomes.update(_record(unrecorded))
    return outcomes


def _record(unrecorded: _Unrecorded) -> dict[int, str]:
    """Record the results held in ``unrecorded`` in one transaction (emptying it); their outcomes. A
    result that could not be recorded for a fault of its own ("unrecorded") is no longer renewed: its
    lease expires and the reconciler queues its match again."""
    results, unrecorded.results = unrecorded.results, []
    if not results:
        return {}
    with lease_heartbeat.database():
        recorded = results_record_guarded(results)
    for result in results:
        lease_heartbeat.forget(result.match_id)
    return {result.match_id: {True: "recorded", False: "stale", None: "unrecorded"}[recorded.get(result.match_id)]
            for result in results}
