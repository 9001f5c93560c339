"""Webhook deliveries: the events of a user's subscriptions (``ladder.services.webhooks.subscriptions``)
written as deliveries, and their signed, retried attempts.

* :func:`webhooks_emit` is called by the services where things happen, inside their transaction: it
  writes one pending delivery per subscribed webhook of the object's owner, and its message goes to the
  workers (``WEBHOOKS_QUEUE``) only once that transaction commits, so a change rolled back sends nothing.
* :func:`webhook_delivery_attempt` (the ``ladder.deliver_webhook`` task, on the webhook workers alone)
  claims a due delivery, resolves and checks its target again, POSTs the stored body signed with
  ``X-Ladder-Signature: sha256=<hex>`` and records the attempt, whatever happened: the lookup, the
  connection and the answer share one deadline of ``WEBHOOKS_TIMEOUT_S``, and every failure is an
  attempt with its error. A failed one is due again after ``WEBHOOKS_RETRY_BASE_S``, four times longer at
  each retry, until ``WEBHOOKS_MAX_ATTEMPTS``. The delivery row is the record: a message lost, or a worker
  killed in the middle of an attempt, leaves a pending delivery past its due time, which
  :func:`webhook_deliveries_sweep` (run by the reconciler) sends again; the claim makes a duplicate
  message harmless.
* One user's deliveries cannot take the webhook workers from the others: at most
  ``WEBHOOKS_IN_FLIGHT_PER_USER`` of their attempts run at once and ``WEBHOOKS_ATTEMPTS_PER_HOUR`` start
  in any hour (:func:`_room_wait`); a delivery past either waits (``held``) and is sent when there is room.
"""

from __future__ import annotations

import hashlib
import hmac
import json
import logging
import time
import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.serializers.json import DjangoJSONEncoder
from django.db import IntegrityError, transaction
from django.db.models import Q
from django.utils import timezone

from ladder.messaging.enqueue import webhook_deliveries_send_on_commit
from ladder.models import Webhook, WebhookAttempt, WebhookDelivery
from ladder.services.webhooks.http import PostResult, post_pinned
from ladder.services.webhooks.subscriptions import EVENTS, secret_open
from ladder.services.webhooks.targets import TargetRefused, target_resolve

SIGNATURE_HEADER = "X-Ladder-Signature"
#: Seconds past its due time (or its lease) after which a pending delivery's message counts as lost.
LOST_AFTER_S = 30.0
#: Deliveries kept per webhook, the newest (with their attempts): older ones go as new ones are written.
DELIVERIES_KEPT = 500
#: The window of ``WEBHOOKS_ATTEMPTS_PER_HOUR``.
HOUR = timedelta(hours=1)
#: Seconds between two looks for room of a delivery waiting behind its owner's attempts in flight.
ROUND_S = 1.0

logger = logging.getLogger(__name__)


# --- The signature -----------------------------------------------------------------------------------


def signature(secret: str, body: bytes) -> str:
    """The ``X-Ladder-Signature`` value of ``body``: ``sha256=`` and the hex HMAC-SHA256 under ``secret``."""
    return "sha256=" + hmac.new(secret.encode(), body, hashlib.sha256).hexdigest()


# --- Events ------------------------------------------------------------------------------------------


def event_body(*, event: str, event_id: uuid.UUID, created_at: datetime, data: dict) -> str:
    """The JSON body of an event, ``{"event", "id", "created_at", "data"}``."""
    return json.dumps({"event": event, "id": str(event_id), "created_at": created_at, "data": data},
                      cls=DjangoJSONEncoder, separators=(",", ":"))


def webhooks_emit(*, event: str, owner_id: int | None, data: dict) -> int:
    """Queue ``event`` for every webhook of user ``owner_id`` subscribed to it; returns how many.

    Call inside the transaction of the change the event reports: the deliveries are written in it, and
    their messages published once it commits (none if it rolls back)."""
    assert event in EVENTS, event
    if owner_id is None:
        return 0
    webhook_ids = [webhook_id for webhook_id, events in
                   Webhook.objects.filter(owner_id=owner_id).values_list("id", "events") if event in events]
    if not webhook_ids:
        return 0
    now = timezone.now()
    event_id = uuid.uuid4()
    body = event_body(event=event, event_id=event_id, created_at=now, data=data)
    deliveries = WebhookDelivery.objects.bulk_create(
        WebhookDelivery(webhook_id=webhook_id, event=event, event_id=event_id, body=body, next_attempt_at=now,
                        sent_at=now) for webhook_id in webhook_ids)
    webhook_deliveries_send_on_commit([delivery.id for delivery in deliveries])
    for webhook_id in webhook_ids:
        _deliveries_trim(webhook_id)
    return len(deliveries)


def _deliveries_trim(webhook_id: int) -> None:
    """Drop the deliveries of ``webhook_id`` older than its newest :data:`DELIVERIES_KEPT`, so that its
    record (and the attempts listed) stays bounded however many events it hears of."""
    oldest_kept = list(WebhookDelivery.objects.filter(webhook_id=webhook_id).order_by("-id")
                       .values_list("id", flat=True)[DELIVERIES_KEPT - 1:DELIVERIES_KEPT])
    if oldest_kept:
        WebhookDelivery.objects.filter(webhook_id=webhook_id, id__lt=oldest_kept[0]).delete()


# --- Deliveries (on the workers) ---------------------------------------------------------------------


def retry_delay_s(attempts: int) -> float:
    """Seconds before the retry that follows failed attempt number ``attempts`` (1, 2, ...)."""
    return settings.WEBHOOKS_RETRY_BASE_S * 4 ** (attempts - 1)


def attempt_lease_s() -> float:
    """Seconds an attempt's claim lasts: its deadline (``WEBHOOKS_TIMEOUT_S``, the lookup and the POST in
    all) twice over and room for the records, so that only a worker that died lets it lapse."""
    return 2 * settings.WEBHOOKS_TIMEOUT_S + 10


def _room_wait(delivery_id: int, owner_id: int, now: datetime) -> float | None:
    """Seconds delivery ``delivery_id`` of user ``owner_id`` must wait for room under the user's caps, or
    None when its attempt may start now. Caller holds the owner's row lock, so that the counts stay true
    until its claim commits."""
    deliveries = (WebhookDelivery.objects.filter(webhook__owner_id=owner_id, status=WebhookDelivery.Status.PENDING)
                  .exclude(pk=delivery_id))
    in_flight = deliveries.filter(leased_until__gt=now).count()
    cap = settings.WEBHOOKS_IN_FLIGHT_PER_USER
    if in_flight >= cap:
        # Those already waiting take the rounds before, ``cap`` a round: a burst is spread over the rounds
        # it needs instead of all waking at once to wait again, and a quick receiver's burst is soon sent.
        waiting = deliveries.filter(held=True, next_attempt_at__gt=now).count()
        return ROUND_S * (1 + waiting // cap)
    recent = WebhookAttempt.objects.filter(delivery__webhook__owner_id=owner_id, started_at__gt=now - HOUR)
    if recent.count() + in_flight >= settings.WEBHOOKS_ATTEMPTS_PER_HOUR:
        oldest = recent.order_by("started_at").values_list("started_at", flat=True).first()
        # Room comes back when the oldest attempt counted leaves the window.
        return max(1.0, (oldest + HOUR - now).total_seconds()) if oldest else settings.WEBHOOKS_TIMEOUT_S + 1
    return None


def _claim(delivery_id: int, now: datetime) -> WebhookDelivery | str | None:
    """Take delivery ``delivery_id`` for one attempt if it is pending and due (a duplicate message, or one
    early, finds it leased or not yet due and leaves it: None). ``"waiting"`` when its owner has no room
    for it now: it stays pending, held, and its message is sent again for when there is room."""
    owner_id = WebhookDelivery.objects.filter(pk=delivery_id).values_list("webhook__owner_id", flat=True).first()
    if owner_id is None:
        return None
    with transaction.atomic():
        # The owner's claims one at a time: two workers cannot both take the owner's last room.
        get_user_model().objects.select_for_update().filter(pk=owner_id).first()
        # The delivery's row only: a transaction writing another delivery of the same webhook takes a key
        # share lock on the webhook's row (its foreign key's check), which must not make this claim skip a
        # due delivery.
        delivery = (WebhookDelivery.objects.select_for_update(skip_locked=True, of=("self",))
                    .select_related("webhook").filter(pk=delivery_id, status=WebhookDelivery.Status.PENDING,
                                                      next_attempt_at__lte=now + timedelta(seconds=1)).first())
        if delivery is None:
            return None
        if delivery.attempts >= settings.WEBHOOKS_MAX_ATTEMPTS:
            # Its last attempt was lost with its worker: the bound holds all the same.
            delivery.status, delivery.next_attempt_at, delivery.leased_until = WebhookDelivery.Status.FAILED, None, None
            delivery.save(update_fields=["status", "next_attempt_at", "leased_until", "updated_at"])
            return None
        wait = _room_wait(delivery.id, owner_id, now)
        if wait is not None:
            delivery.next_attempt_at, delivery.sent_at, delivery.held = now + timedelta(seconds=wait), now, True
            delivery.save(update_fields=["next_attempt_at", "sent_at", "held", "updated_at"])
            webhook_deliveries_send_on_commit([delivery.id], countdown=wait)
            return "waiting"
        delivery.attempts += 1
        delivery.next_attempt_at = delivery.leased_until = now + timedelta(seconds=attempt_lease_s())
        delivery.held = False
        delivery.save(update_fields=["attempts", "next_attempt_at", "leased_until", "held", "updated_at"])
    return delivery


def webhook_delivery_attempt(*, delivery_id: int) -> str:
    """Make one attempt at delivery ``delivery_id`` if it is due; returns the delivery's status after it
    (``"skipped"`` when it was not due or not pending, ``"missing"`` when gone, ``"waiting"`` when its owner
    has no room for it now). Never raises for what the receiver, the network or the URL does: that is
    recorded as the attempt's error, within ``WEBHOOKS_TIMEOUT_S`` of the claim."""
    now = timezone.now()
    claimed = _claim(delivery_id, now)
    if claimed is None:
        return "skipped" if WebhookDelivery.objects.filter(pk=delivery_id).exists() else "missing"
    if isinstance(claimed, str):
        return claimed
    delivery = claimed
    deadline = time.monotonic() + settings.WEBHOOKS_TIMEOUT_S
    result, error = _attempt(delivery, deadline)
    try:
        return _record(delivery, result, error, started=now, finished=timezone.now())
    except IntegrityError:
        # Its webhook was deleted during the attempt, and the delivery with it.
        return "missing"


def _attempt(delivery: WebhookDelivery, deadline: float) -> tuple[PostResult | None, str]:
    """POST ``delivery`` by ``deadline`` (a ``time.monotonic()`` time): what came back, or None and why
    nothing was sent."""
    body = delivery.body.encode()
    try:
        secret = secret_open(delivery.webhook.secret_sealed)
    except ValueError as exc:
        return None, f"not sent: {exc}"
    try:
        target = target_resolve(delivery.webhook.url, deadline=deadline)
        headers = {SIGNATURE_HEADER: signature(secret, body), "X-Ladder-Event": delivery.event,
                   "X-Ladder-Delivery": str(delivery.event_id)}
        result = post_pinned(target, body=body, headers=headers, timeout=settings.WEBHOOKS_TIMEOUT_S,
                             deadline=deadline)
    except TargetRefused as exc:
        return None, f"refused: {exc}"
    except Exception as exc:
        # Whatever else goes wrong is this attempt's failure, listed and retried like any other: an
        # attempt that raised would leave no record until the sweep took the delivery up again.
        logger.exception("webhook delivery %s: the attempt failed unexpectedly", delivery.id)
        return None, f"not sent: {type(exc).__name__}: {exc}"
    return result, result.error


def _record(delivery: WebhookDelivery, result: PostResult | None, error: str, *, started: datetime,
            finished: datetime) -> str:
    """Store the attempt just made at ``delivery`` (``result`` None: nothing was sent, for ``error``) and
    what follows: delivered, failed, or due again after its wait."""
    with transaction.atomic():
        WebhookAttempt.objects.create(
            delivery=delivery, number=delivery.attempts, started_at=started,
            duration_ms=result.duration_ms if result else int((finished - started).total_seconds() * 1000),
            status_code=result.status_code if result else None, error=error[:300],
            response_excerpt=result.excerpt if result else "",
        )
        if result is not None and result.delivered:
            status, due = WebhookDelivery.Status.DELIVERED, None
        elif delivery.attempts >= settings.WEBHOOKS_MAX_ATTEMPTS:
            status, due = WebhookDelivery.Status.FAILED, None
        else:
            delay = retry_delay_s(delivery.attempts)
            status, due = WebhookDelivery.Status.PENDING, finished + timedelta(seconds=delay)
            webhook_deliveries_send_on_commit([delivery.id], countdown=delay)
        # Guarded by the attempt count: a sweep that took the delivery over meanwhile (this attempt ran
        # past its lease) keeps its own record.
        WebhookDelivery.objects.filter(pk=delivery.pk, attempts=delivery.attempts).update(
            status=status, next_attempt_at=due, leased_until=None, sent_at=finished if due else delivery.sent_at,
            updated_at=finished)
    return status


def webhook_deliveries_sweep(*, now: datetime | None = None) -> int:
    """Send again the message of every pending delivery ``LOST_AFTER_S`` past its due time (or its
    attempt's lease) whose message was not sent in that time either; returns how many were sent."""
    now = now or timezone.now()
    before = now - timedelta(seconds=LOST_AFTER_S)
    with transaction.atomic():
        stale = list(WebhookDelivery.objects.filter(status=WebhookDelivery.Status.PENDING, next_attempt_at__lt=before)
                     .filter(Q(sent_at__lt=before) | Q(sent_at__isnull=True)).order_by("id")
                     .values_list("id", flat=True)[:1000])
        WebhookDelivery.objects.filter(id__in=stale).update(sent_at=now)
        webhook_deliveries_send_on_commit(stale)
    return len(stale)
