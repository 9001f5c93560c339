"""Thin tasks with explicit, stable names: load ids, call a service, return.

``ladder`` sends these by name (ladder.messaging.enqueue) and never imports this module.
"""

from __future__ import annotations

import logging

from django.conf import settings

from bots.sandbox.errors import SandboxFault
from workers.app import app

logger = logging.getLogger(__name__)


def ladder_task(name: str, **options):
    """The one task decorator: a stable name, no stored result, late acknowledgement."""
    return app.task(name=name, ignore_result=True, acks_late=True, **options)


@ladder_task(
    "ladder.run_match",
    soft_time_limit=settings.MATCH_SOFT_TIME_LIMIT_S,
    time_limit=settings.MATCH_TIME_LIMIT_S,
)
def run_match(match_id: int) -> str:
    """Play one match; idempotent (a finished, running or missing match is left alone)."""
    from workers.time_share import match_timed

    outcome = match_timed(match_id=match_id, worker=run_match.request.hostname or "")
    logger.info("match %s: %s", match_id, outcome)
    return outcome


@ladder_task(
    "ladder.run_matches",
    soft_time_limit=settings.MATCH_SOFT_TIME_LIMIT_S * settings.MATCHES_PER_MESSAGE,
    time_limit=settings.MATCH_TIME_LIMIT_S * settings.MATCHES_PER_MESSAGE,
)
def run_matches(match_ids: list[int]) -> str:
    """Play the matches of one message, claimed together and recorded together; idempotent as
    ``run_match`` (each match finished, running elsewhere or missing is left alone)."""
    from workers.time_share import matches_timed

    outcomes = matches_timed(match_ids=match_ids, worker=run_matches.request.hostname or "")
    summary = ", ".join(f"{match_id}: {outcome}" for match_id, outcome in outcomes.items())
    logger.info("matches %s", summary)
    return summary


@ladder_task(
    "ladder.validate_version",
    soft_time_limit=settings.MATCH_SOFT_TIME_LIMIT_S,
    time_limit=settings.MATCH_TIME_LIMIT_S,
    autoretry_for=(SandboxFault,),
    retry_backoff=2,
    max_retries=5,
)
def validate_version(version_id: int) -> str:
    """Compile a pending upload and play its smoke match in the sandbox; idempotent. A sandbox fault is
    retried: it says nothing about the upload, which stays pending meanwhile. Any other failure of the check
    rejects the version (the service logs why), so that it is not checked again and again. While matches
    wait and this process's checks have had their share of its time, it plays one of them instead and sends
    the check back to its queue (``workers.time_share``)."""
    from workers.time_share import validation_run

    status = validation_run(version_id=version_id, worker=validate_version.request.hostname or "")
    logger.info("bot version %s: %s", version_id, status)
    return status


@ladder_task(
    "ladder.deliver_webhook",
    # Past the attempt's own deadline (WEBHOOKS_TIMEOUT_S) and its lease (twice that and 10 s): the
    # attempt ends by itself and is recorded first. The webhook workers run threads, which Celery does
    # not time-limit; a prefork worker that takes the queue still is.
    soft_time_limit=2 * settings.WEBHOOKS_TIMEOUT_S + 20,
    time_limit=2 * settings.WEBHOOKS_TIMEOUT_S + 30,
)
def deliver_webhook(delivery_id: int) -> str:
    """One attempt at a due webhook delivery; idempotent (a delivery not pending, not due or taken by
    another attempt is left alone). The retry is a new message due later, and the delivery row is the
    record: an attempt lost with its worker is sent again by the reconciler's sweep. Runs on the webhook
    workers (``WEBHOOKS_QUEUE``), never on a match worker."""
    from ladder.services.webhooks.deliveries import webhook_delivery_attempt

    status = webhook_delivery_attempt(delivery_id=delivery_id)
    logger.info("webhook delivery %s: %s", delivery_id, status)
    return status


@ladder_task("ladder.reconcile", time_limit=300)
def reconcile() -> dict:
    """Requeue matches whose worker vanished, re-send messages the broker lost, re-send the checks of
    uploads left pending and the webhook deliveries whose message or attempt was lost."""
    from ladder.services.play.matches import matches_reconcile
    from ladder.services.uploads.validation import versions_reconcile
    from ladder.services.webhooks.deliveries import webhook_deliveries_sweep

    report = matches_reconcile().to_json()
    report["validations_resent"] = versions_reconcile()
    report["webhooks_resent"] = webhook_deliveries_sweep()
    return report


@ladder_task("ladder.ladder_tick", time_limit=300)
def ladder_tick() -> dict:
    """Pair active bots of similar rating into new ladder matches."""
    from ladder.services.tournaments.ladder import ladder_tick as schedule

    return schedule()


@ladder_task("ladder.collusion_screen", time_limit=600)
def collusion_screen() -> dict:
    """Flag the pairs of bots whose results against each other depart from the rest of their games, and
    hold their games out of the ratings until staff review them."""
    from ladder.services.ratings.collusion import collusion_screen_all

    return collusion_screen_all()
