"""Sending tasks to the workers by their stable names, only after the transaction commits.

``ladder`` never imports ``workers``: it holds its own small Celery client configured from the same
``CELERY_`` settings and names tasks as strings. A message that is lost (broker down at send time, a
flushed Redis) only delays its match: the reconciler sends it again.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable

from celery import Celery
from django.conf import settings
from django.db import transaction
from django.utils import timezone

logger = logging.getLogger(__name__)

RUN_MATCH_TASK = "ladder.run_match"
VALIDATE_VERSION_TASK = "ladder.validate_version"

_client: Celery | None = None


def celery_client() -> Celery:
    """The process-wide Celery client used to publish tasks (created on first use)."""
    global _client
    if _client is None:
        client = Celery("ladder-client", set_as_current=False)
        client.config_from_object("django.conf:settings", namespace="CELERY")
        _client = client
    return _client


def matches_send_now(match_ids: Iterable[int]) -> int:
    """Publish one ``run_match`` message per id on ``settings.MATCH_QUEUE``; returns how many were sent."""
    from ladder.models import Match

    ids = list(match_ids)
    if not ids:
        return 0
    client = celery_client()
    with client.producer_or_acquire() as producer:
        for match_id in ids:
            client.send_task(RUN_MATCH_TASK, args=[match_id], queue=settings.MATCH_QUEUE, producer=producer)
    Match.objects.filter(id__in=ids).update(enqueued_at=timezone.now())
    return len(ids)


def _send_after_commit(ids: list[int]) -> None:
    try:
        matches_send_now(ids)
    except Exception:
        # The rows are committed as queued; the reconciler re-sends messages that never arrived.
        logger.exception("could not publish %d match messages; the reconciler will retry", len(ids))


def matches_enqueue_on_commit(match_ids: Iterable[int]) -> None:
    """Publish ``run_match`` for these matches once the current transaction commits (at once if none)."""
    ids = list(match_ids)
    if ids:
        transaction.on_commit(lambda: _send_after_commit(ids))


def versions_validate_now(version_ids: Iterable[int]) -> int:
    """Publish one ``validate_version`` message per id on ``settings.VALIDATION_QUEUE``."""
    ids = list(version_ids)
    client = celery_client()
    with client.producer_or_acquire() as producer:
        for version_id in ids:
            client.send_task(VALIDATE_VERSION_TASK, args=[version_id], queue=settings.VALIDATION_QUEUE,
                             producer=producer)
    return len(ids)


def _send_validations_after_commit(ids: list[int]) -> None:
    try:
        versions_validate_now(ids)
    except Exception:
        # The versions are committed as pending; the reconciler re-sends checks that never arrived.
        logger.exception("could not publish %d upload checks; the reconciler will retry", len(ids))


def versions_validate_on_commit(version_ids: Iterable[int]) -> None:
    """Publish ``validate_version`` for these pending versions once the current transaction commits."""
    ids = list(version_ids)
    if ids:
        transaction.on_commit(lambda: _send_validations_after_commit(ids))
