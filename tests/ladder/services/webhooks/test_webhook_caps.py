"""The caps on one user's webhook deliveries (``WEBHOOKS_IN_FLIGHT_PER_USER``, ``WEBHOOKS_ATTEMPTS_PER_HOUR``),
against real receivers on the loopback: a delivery past either waits, held and pending, with no attempt
counted, is sent once there is room, and another user's deliveries go on meanwhile."""

from __future__ import annotations

import threading
import uuid
from datetime import timedelta

import pytest
from django.db import connection
from django.utils import timezone

from ladder.models import WebhookAttempt, WebhookDelivery
from ladder.services.webhooks.deliveries import webhook_delivery_attempt
from ladder.services.webhooks.subscriptions import webhook_create
from tests.conftest import broker_queue_purge, wait_until
from tests.factories import UserFactory
from tests.ladder.services.webhooks.test_webhook_deliveries import emit_one, make_due
from tests.webhook_receiver import Receiver


@pytest.fixture
def allow_private(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    settings.WEBHOOKS_TIMEOUT_S = 5.0


@pytest.mark.django_db(transaction=True)
def test_past_its_owners_attempts_in_flight_a_delivery_waits_held_and_is_sent_once_there_is_room(
        allow_private, settings, request):
    # Committed for real, the deliveries' messages are published: to a queue of this test's own.
    settings.WEBHOOKS_QUEUE = f"test-{uuid.uuid4().hex[:10]}.webhooks"
    request.addfinalizer(lambda: broker_queue_purge(settings.WEBHOOKS_QUEUE))
    settings.WEBHOOKS_IN_FLIGHT_PER_USER = 1
    owner, other = UserFactory(), UserFactory()
    release = threading.Event()
    statuses: list[str] = []

    def first_attempt(delivery_id: int) -> None:
        statuses.append(webhook_delivery_attempt(delivery_id=delivery_id))
        connection.close()

    with Receiver(on_post=lambda _received: release.wait(10)) as slow, Receiver() as quick:
        webhook_create(owner=owner, url=slow.url, events=["bot.deactivated"])
        webhook_create(owner=other, url=quick.url, events=["bot.deactivated"])
        first, second, third = emit_one(owner), emit_one(owner), emit_one(owner)
        attempt = threading.Thread(target=first_attempt, args=(first.id,))
        attempt.start()
        try:
            wait_until(lambda: slow.received, timeout=5, message="the first attempt at the receiver")
            before = timezone.now()
            assert [webhook_delivery_attempt(delivery_id=d.id) for d in (second, third)] == ["waiting", "waiting"]
            # Another user's delivery is not held back by this user's attempt in flight.
            assert webhook_delivery_attempt(delivery_id=emit_one(other).id) == "delivered"
        finally:
            release.set()
            attempt.join(10)
        assert statuses == ["delivered"] and len(slow.received) == 1
        held = {d.id: d for d in WebhookDelivery.objects.filter(id__in=[second.id, third.id])}
        assert all(d.held and d.status == "pending" and d.attempts == 0 for d in held.values())
        # The waiting ones look for room again in the rounds to come, one round each (the cap is 1).
        waits = [(held[d.id].next_attempt_at - before).total_seconds() for d in (second, third)]
        assert 1 <= waits[0] < 2 <= waits[1] < 3, waits
        assert not WebhookAttempt.objects.filter(delivery__in=[second.id, third.id]).exists()
        make_due(second)
        assert webhook_delivery_attempt(delivery_id=second.id) == "delivered"
    sent = WebhookDelivery.objects.get(pk=second.pk)
    assert not sent.held and sent.leased_until is None and sent.attempts == 1
    assert len(slow.received) == 2


@pytest.mark.django_db
def test_past_its_owners_attempts_per_hour_a_delivery_waits_until_the_oldest_leaves_the_hour(allow_private, settings):
    settings.WEBHOOKS_ATTEMPTS_PER_HOUR = 2
    settings.WEBHOOKS_RETRY_BASE_S = 0
    owner, other = UserFactory(), UserFactory()
    with Receiver(statuses=[500, 200]) as receiver:
        webhook_create(owner=owner, url=receiver.url, events=["bot.deactivated"])
        webhook_create(owner=other, url=receiver.url, events=["bot.deactivated"])
        first, second = emit_one(owner), emit_one(owner)
        # A failed attempt counts as much as a delivered one: each is a POST.
        assert webhook_delivery_attempt(delivery_id=first.id) == "pending"
        assert webhook_delivery_attempt(delivery_id=second.id) == "delivered"
        make_due(first)
        assert webhook_delivery_attempt(delivery_id=first.id) == "waiting"
        assert webhook_delivery_attempt(delivery_id=emit_one(other).id) == "delivered"
    oldest = WebhookAttempt.objects.filter(delivery=first).get().started_at
    waiting = WebhookDelivery.objects.get(pk=first.pk)
    assert waiting.held and waiting.attempts == 1 and waiting.status == "pending"
    assert abs((waiting.next_attempt_at - (oldest + timedelta(hours=1))).total_seconds()) < 2
    assert len(receiver.received) == 3
