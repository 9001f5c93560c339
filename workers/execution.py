"""Playing one match on this worker: claim it, fetch the code, run the referee, record or release."""

from __future__ import annotations

import logging
import socket

from celery.exceptions import SoftTimeLimitExceeded
from django.conf import settings

from ladder.services.bots import sandbox_limits
from ladder.services.matches import match_claim, match_release_after_fault
from ladder.services.recording import result_pack
from ladder.services.result_group import result_record
from workers.code_bytes import code_bytes_cache
from workers.heartbeat import lease_heartbeat

logger = logging.getLogger(__name__)


def match_execute(*, match_id: int, worker: str | None = None) -> str:
    """Play match ``match_id`` if it can be claimed. Returns "recorded", "skipped" (not claimable: done,
    gone or held by another worker), "stale" (claim lost before recording), "requeued", "failed" or
    "dropped" (after a sandbox fault; dropped when its comparison has decided meanwhile). Bot faults are results, not faults: the referee records them as forfeits."""
    from bots.referee import BotSpec, SandboxFault, play_match

    claim = match_claim(match_id=match_id, worker=worker or socket.gethostname())
    if claim is None:
        return "skipped"
    try:
        # The lease is renewed while the match is played, however long it lasts.
        with lease_heartbeat.holding(match_id=match_id, token=claim.token):
            with lease_heartbeat.database():  # the heartbeat shares this thread's connection
                code = code_bytes_cache.get_many([seat.sha256 for seat in claim.seats])
            result = play_match(
                claim.game,
                [BotSpec(name=seat.bot_name, code=code[seat.sha256]) for seat in claim.seats],
                seed=claim.seed,
                options=claim.options,
                # The limits stored when the match was scheduled, so that every attempt plays under the same.
                limits=sandbox_limits(game=claim.game, overrides=claim.limits),
                allow_unsafe=settings.BOTS_ALLOW_UNSAFE,
            )
    except SandboxFault as exc:
        return match_release_after_fault(match_id=match_id, token=claim.token, reason=f"sandbox fault: {exc}")
    except SoftTimeLimitExceeded:
        return match_release_after_fault(match_id=match_id, token=claim.token,
                                         reason="the match exceeded the worker's time limit")
    except Exception as exc:
        # An engine or referee bug is ours too: retried like a sandbox fault, then the match fails with
        # the error as its reason instead of killing the worker or looping forever.
        logger.exception("match %s could not be played", match_id)
        return match_release_after_fault(match_id=match_id, token=claim.token,
                                         reason=f"{type(exc).__name__}: {exc}")
    packed = result_pack(match_id=match_id, token=claim.token, result=result)
    if result_record(game=claim.game, result=packed).recorded:
        return "recorded"
    return "stale"
