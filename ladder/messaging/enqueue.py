"""Sending tasks to the workers by their stable names, only after the transaction commits.

``ladder`` never imports ``workers``: it holds its own small Celery client configured from the same
``CELERY_`` settings and names tasks as strings. A message that is lost (broker down at send time, a
flushed Redis) only delays its match: the reconciler compares the queued matches with what the broker
holds (:func:`broker_match_messages`) and sends it again.
"""

from __future__ import annotations

import base64
import contextlib
import dataclasses
import functools
import logging
import math
import time
from collections.abc import Iterable

import orjson
from celery import Celery
from django.conf import settings
from django.db import transaction
from django.utils import timezone
from kombu.exceptions import ChannelError
from kombu.transport import filesystem as kombu_filesystem
from kombu.transport import redis as kombu_redis

from ladder.brokers import filesystem, redis_queues
from ladder.messaging.match_durations import match_seconds
from ladder.models import BotVersion, Match

logger = logging.getLogger(__name__)

RUN_MATCH_TASK = "ladder.run_match"
RUN_MATCHES_TASK = "ladder.run_matches"
VALIDATE_VERSION_TASK = "ladder.validate_version"
DELIVER_WEBHOOK_TASK = "ladder.deliver_webhook"

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
    queue = queue or settings.MATCH_QUEUE
    try:
        with _broker_channel() as channel:
            return _message_count(channel, queue)
    except Exception:
        logger.warning("could not ask the broker how many messages wait in %s", queue, exc_info=True)
        return None


@dataclasses.dataclass(frozen=True)
class BrokerMatchMessages:
    """What the broker holds of a match queue at one look."""

    #: Messages waiting in the queue (not yet taken by any worker).
    waiting: int
    #: The matches whose messages workers have taken in the last ``MATCH_LEASE_S`` and not yet
    #: acknowledged (prefetched, or running now); None when the transport cannot tell (the filesystem
    #: broker, AMQP). A message held longer may be a dead worker's: its match is not counted as served.
    reserved: frozenset[int] | None


@contextlib.contextmanager
def _broker_channel():
    """A channel of the broker, after one connection try (the reconciler asks again at its next run, and
    must not hang on a broker that is down)."""
    with celery_client().connection_for_read() as connection:
        connection.ensure_connection(max_retries=1, interval_start=0, interval_step=0, timeout=5)
        yield connection.default_channel


def _match_ids(message: dict) -> tuple[int, ...]:
    """The matches a ``run_match`` or ``run_matches`` message (as Kombu stores it) announces; none for any
    other message, or one that cannot be read."""
    try:
        task = message.get("headers", {}).get("task")
        if task not in (RUN_MATCH_TASK, RUN_MATCHES_TASK):
            return ()
        body = message["body"]
        if message.get("properties", {}).get("body_encoding") == "base64":
            body = base64.b64decode(body)
        decoded = orjson.loads(body)
        args = decoded[0] if isinstance(decoded, list) else decoded["args"]  # task protocol 2, or 1
        if task == RUN_MATCH_TASK:
            return (int(args[0]),)
        return tuple(int(match_id) for match_id in args[0])
    except (KeyError, IndexError, TypeError, ValueError, AttributeError):
        return ()


def _announced(messages) -> frozenset[int]:
    """Every match the match messages of ``messages`` announce."""
    return frozenset(match_id for message in messages for match_id in _match_ids(message))


def match_queues() -> list[str]:
    """The queues match messages go to: ``MATCH_QUEUE``, then the ladder's ``LADDER_QUEUE``."""
    return list(dict.fromkeys([settings.MATCH_QUEUE, settings.LADDER_QUEUE]))


def broker_match_messages(queue: str | None = None) -> BrokerMatchMessages | None:
    """How many messages wait in ``queue`` (default: every match queue, :func:`match_queues`, together),
    and which matches' messages workers hold unacknowledged where the transport keeps them in the broker
    (Redis); None if the broker cannot be asked."""
    if queue is None:
        views = [broker_match_messages(name) for name in match_queues()]
        if None in views:
            return None
        reserved = None if any(v.reserved is None for v in views) else frozenset().union(*(v.reserved for v in views))
        return BrokerMatchMessages(waiting=sum(v.waiting for v in views), reserved=reserved)
    try:
        with _broker_channel() as channel:
            waiting = _message_count(channel, queue)
            reserved = None
            if isinstance(channel, kombu_redis.Channel):
                # Read after the count: a message a worker takes between the two reads (it moves from the
                # queue to the hash) is then counted twice, never missed, and nothing is sent for it.
                since = time.time() - settings.MATCH_LEASE_S
                reserved = _announced(redis_queues.reserved_messages(channel, queue, since=since))
            return BrokerMatchMessages(waiting=waiting, reserved=reserved)
    except Exception:
        logger.warning("could not ask the broker what %s holds", queue, exc_info=True)
        return None


def broker_waiting_match_ids(queue: str | None = None) -> frozenset[int] | None:
    """The matches announced by the messages waiting in ``queue`` (default: every match queue); None if
    the transport cannot list them (Redis and the filesystem broker can) or the broker cannot be asked.
    Reads the whole backlog."""
    if queue is None:
        listed = [broker_waiting_match_ids(name) for name in match_queues()]
        return None if None in listed else frozenset().union(*listed)
    try:
        with _broker_channel() as channel:
            if isinstance(channel, kombu_redis.Channel):
                return _announced(redis_queues.waiting_messages(channel, queue))
            if isinstance(channel, kombu_filesystem.Channel):
                return _announced(filesystem.waiting_messages(channel, queue))
            return None
    except Exception:
        logger.warning("could not list the messages waiting in %s", queue, exc_info=True)
        return None


def _message_count(channel, queue: str) -> int:
    try:
        return int(channel.queue_declare(queue=queue, passive=True).message_count)
    except ChannelError:
        return 0  # Redis keeps no empty queue: a flushed or drained queue does not exist


def broker_queue_purge(queue: str) -> int:
    """Drop every message waiting in ``queue`` on the broker, as a flushed Redis would; returns how many.
    For tests and ``bench``, which measure how the pipeline recovers."""
    with celery_client().connection_for_write() as connection:
        return int(connection.default_channel.queue_purge(queue) or 0)


def _publish(task: str, ids: list[int], queue: str, *, countdown: float | None = None) -> None:
    """One ``task`` message per id on ``queue``, through one producer; run no sooner than ``countdown``
    seconds from now when given."""
    client = celery_client()
    with client.producer_or_acquire() as producer:
        for row_id in ids:
            client.send_task(task, args=[row_id], queue=queue, producer=producer, countdown=countdown)


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
    return settings.LADDER_QUEUE if priority >= Match.Priority.LADDER else settings.MATCH_QUEUE


def match_message_sizes(count: int, *, match_s: float | None = None) -> list[int]:
    """How many matches each message of a send of ``count`` matches carries, the matches spread evenly
    over the messages; one a message where the broker cannot list its messages.

    As few messages as ``MATCHES_PER_MESSAGE`` allows, but at least ``MATCH_MESSAGES_MIN``, and where
    ``match_s`` (how long such a match takes: ``match_durations.match_seconds``) is known, as many as
    carry about ``MATCH_MESSAGE_WORK_S`` seconds of play each if that is more: long matches go out one a
    message, to as many worker processes as are free. Never more messages than matches. (Fewer messages
    than ``MATCH_MESSAGES_MIN`` for short matches would share a message's fixed costs among more of them,
    but a send's last message would then keep its process busy long after the others are done.)"""
    if count <= 0:
        return []
    most = settings.MATCHES_PER_MESSAGE if _broker_lists_messages() else 1
    spread = settings.MATCH_MESSAGES_MIN
    if match_s is not None:
        spread = max(spread, math.ceil(count * max(0.0, match_s) / settings.MATCH_MESSAGE_WORK_S))
    messages = max(min(count, spread), -(-count // most))
    size, larger = divmod(count, messages)
    return [size + 1] * larger + [size] * (messages - larger)


def _broker_lists_messages() -> bool:
    """Whether the reconciler can read which matches a waiting or taken message carries (Redis)."""
    return settings.CELERY_BROKER_URL.startswith(("redis://", "rediss://", "redis+socket://"))


def _publish_matches(ids: list[int], queue: str, *, match_s: float | None = None) -> None:
    """``ids`` on ``queue`` in messages of :func:`match_message_sizes` (for matches of ``match_s``
    seconds), in order: ``run_match`` for a message of one match, ``run_matches`` for more."""
    client = celery_client()
    with client.producer_or_acquire() as producer:
        start = 0
        for size in match_message_sizes(len(ids), match_s=match_s):
            chunk = ids[start:start + size]
            start += size
            if size == 1:
                client.send_task(RUN_MATCH_TASK, args=[chunk[0]], queue=queue, producer=producer)
            else:
                client.send_task(RUN_MATCHES_TASK, args=[chunk], queue=queue, producer=producer)


def matches_send_now(match_ids: Iterable[int], *, stamp: bool = True) -> int:
    """Publish the matches on their queues (:func:`match_queue`), several to a message where they are
    many (:func:`match_message_sizes`), and mark them sent (``enqueued_at``) unless ``stamp`` is False
    (:func:`matches_enqueue_on_commit` marked them in their transaction); returns how many were sent."""
    ids = list(match_ids)
    if not ids:
        return 0
    sends: dict[tuple[str, int, int], list[int]] = {}
    for match_id, priority, game_id, players in Match.objects.filter(id__in=ids).values_list(
            "id", "priority", "game_id", "players"):
        sends.setdefault((match_queue(priority), game_id, players), []).append(match_id)
    for (queue, game_id, players), queued in sends.items():
        # Where the broker takes one match a message, how long they take sizes nothing: not read.
        match_s = match_seconds(game_id=game_id, players=players) if _broker_lists_messages() else None
        _publish_matches(sorted(queued), queue, match_s=match_s)
    if stamp:
        Match.objects.filter(id__in=ids).update(enqueued_at=timezone.now())
    return len(ids)


def matches_enqueue_on_commit(match_ids: Iterable[int], *, stamped: bool = False) -> None:
    """Publish these matches' messages once the current transaction commits (at once if none), marked sent
    (``enqueued_at``) in that transaction: by the caller, that inserted or updated them with it
    (``stamped``), or here. A stamp a few milliseconds before the send is as good as one after it (the
    reconciler waits ``MATCH_REQUEUE_AFTER_S`` on it), and writing the rows again once they are sent would
    cost every match a second row version and hold the rows a worker may be claiming already."""
    ids = list(match_ids)
    if ids and not stamped:
        Match.objects.filter(id__in=ids).update(enqueued_at=timezone.now())
    _publish_after_commit(functools.partial(matches_send_now, stamp=False), ids, "match messages")


def versions_validate_now(version_ids: Iterable[int]) -> int:
    """Publish one ``validate_version`` message per id on ``settings.VALIDATION_QUEUE``; returns how many
    were sent."""
    ids = list(version_ids)
    if not ids:
        return 0
    _publish(VALIDATE_VERSION_TASK, ids, settings.VALIDATION_QUEUE)
    BotVersion.objects.filter(id__in=ids).update(validation_sent_at=timezone.now())
    return len(ids)


def versions_validate_on_commit(version_ids: Iterable[int]) -> None:
    """Publish ``validate_version`` for these pending versions once the current transaction commits."""
    _publish_after_commit(versions_validate_now, list(version_ids), "upload checks")


def webhook_deliveries_send_now(delivery_ids: Iterable[int], *, countdown: float | None = None) -> int:
    """Publish one ``deliver_webhook`` message per id on ``settings.WEBHOOKS_QUEUE`` (due ``countdown``
    seconds from now when given); returns how many were sent."""
    ids = list(delivery_ids)
    if ids:
        _publish(DELIVER_WEBHOOK_TASK, ids, settings.WEBHOOKS_QUEUE, countdown=countdown)
    return len(ids)


def webhook_deliveries_send_on_commit(delivery_ids: Iterable[int], *, countdown: float | None = None) -> None:
    """Publish ``deliver_webhook`` for these deliveries once the current transaction commits (at once if
    none): a change rolled back sends nothing. A lost message is sent again by the sweep."""
    _publish_after_commit(lambda ids: webhook_deliveries_send_now(ids, countdown=countdown), list(delivery_ids),
                          "webhook deliveries")
