"""Sending tasks to the workers by their stable names, only after the transaction commits.

``ladder`` never imports ``workers``: it holds its own small Celery client configured from the same
``CELERY_`` settings and names tasks as strings. A message that is lost (broker down at send time, a
flushed Redis) only delays its match: the reconciler compares the queued matches with what the broker
holds (:func:`broker_queue_length`) and sends it again.
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


def broker_queue_length(queue: str | None = None) -> int | None:
    """How many messages wait in ``queue`` (default ``MATCH_QUEUE``) on the broker, not counting those
    workers have taken and not yet acknowledged; None if the broker cannot be asked. Works for every
    Kombu transport that counts its queues (Redis, the filesystem broker, AMQP)."""
    from kombu.exceptions import ChannelError

    queue = queue or settings.MATCH_QUEUE
    try:
        with celery_client().connection_for_read() as connection:
            # One try: the reconciler asks again at its next run, and must not hang on a broker that is down.
            connection.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=5)
            channel = connection.default_channel
            try:
                return int(channel.queue_declare(queue=queue, passive=True).message_count)
            except ChannelError:
                return 0  # Redis keeps no empty queue: a flushed or drained queue does not exist
    except Exception:
        logger.warning("could not ask the broker how many messages wait in %s", queue, exc_info=True)
        return None


def match_messages_held() -> int | None:
    """How many match messages wait on the broker, in ``MATCH_QUEUE`` and ``LADDER_QUEUE`` together;
    None if the broker cannot be asked."""
    counts = [broker_queue_length(queue) for queue in dict.fromkeys([settings.MATCH_QUEUE, settings.LADDER_QUEUE])]
    return None if None in counts else sum(counts)


def broker_queue_purge(queue: str) -> int:
    """Drop every message waiting in ``queue`` on the broker, as a flushed Redis would; returns how many.
    For tests and ``bench``, which measure how the pipeline recovers."""
    with celery_client().connection_for_write() as connection:
        return int(connection.default_channel.queue_purge(queue) or 0)


def _publish(task: str, ids: list[int], queue: str) -> None:
    """One ``task`` message per id on ``queue``, through one producer."""
    client = celery_client()
    with client.producer_or_acquire() as producer:
        for row_id in ids:
            client.send_task(task, args=[row_id], queue=queue, producer=producer)


def _publish_after_commit(send, ids: list[int], what: str) -> None:
    """Run ``send(ids)`` once the current transaction commits (at once if none). A broker that refuses is
    logged, never raised: the rows are committed, and the reconciler sends what never arrived again."""

    def send_logged() -> None:
        try:
            send(ids)
        except Exception:
            logger.exception("could not publish %d %s; the reconciler will retry", len(ids), what)

    if ids:
        transaction.on_commit(send_logged)


def match_queue(priority: int) -> str:
    """The queue of a match of ``priority``: the ladder's own (``LADDER_QUEUE``, taken last) for ladder
    matches, ``MATCH_QUEUE`` for every other match."""
    from ladder.services.tournaments import LADDER_PRIORITY

    return settings.LADDER_QUEUE if priority >= LADDER_PRIORITY else settings.MATCH_QUEUE


def matches_send_now(match_ids: Iterable[int]) -> int:
    """Publish one ``run_match`` message per id on its queue (:func:`match_queue`); returns how many were
    sent."""
    from ladder.models import Match

    ids = list(match_ids)
    if not ids:
        return 0
    by_queue: dict[str, list[int]] = {}
    for match_id, priority in Match.objects.filter(id__in=ids).values_list("id", "priority"):
        by_queue.setdefault(match_queue(priority), []).append(match_id)
    for queue, queued in by_queue.items():
        _publish(RUN_MATCH_TASK, sorted(queued), queue)
    Match.objects.filter(id__in=ids).update(enqueued_at=timezone.now())
    return len(ids)


def matches_enqueue_on_commit(match_ids: Iterable[int]) -> None:
    """Publish ``run_match`` for these matches once the current transaction commits (at once if none)."""
    _publish_after_commit(matches_send_now, list(match_ids), "match messages")


def versions_validate_now(version_ids: Iterable[int]) -> int:
    """Publish one ``validate_version`` message per id on ``settings.VALIDATION_QUEUE``; returns how many
    were sent."""
    from ladder.models import BotVersion

    ids = list(version_ids)
    if not ids:
        return 0
    _publish(VALIDATE_VERSION_TASK, ids, settings.VALIDATION_QUEUE)
    BotVersion.objects.filter(id__in=ids).update(validation_sent_at=timezone.now())
    return len(ids)


def versions_validate_on_commit(version_ids: Iterable[int]) -> None:
    """Publish ``validate_version`` for these pending versions once the current transaction commits."""
    _publish_after_commit(versions_validate_now, list(version_ids), "upload checks")
