"""The webhooks' models (``ladder.models.webhooks``): the database constraints that hold a delivery's
invariants whoever writes them (one per event and webhook, due exactly while pending) and an attempt's
number."""

from __future__ import annotations

import uuid

import pytest
from django.utils import timezone

from ladder.models import WebhookAttempt, WebhookDelivery
from tests.factories import WebhookFactory
from tests.ladder.models.test_models_matches import refused

pytestmark = pytest.mark.django_db


def delivery(webhook, **fields) -> WebhookDelivery:
    return WebhookDelivery.objects.create(**{"webhook": webhook, "event": "bot.deactivated", "event_id": uuid.uuid4(),
                                             "body": "{}", "next_attempt_at": timezone.now(), **fields})


def test_a_delivery_is_due_exactly_while_pending_and_one_per_event():
    webhook = WebhookFactory()
    refused(lambda: delivery(webhook, next_attempt_at=None))
    refused(lambda: delivery(webhook, status="delivered"))
    assert delivery(webhook, status="failed", next_attempt_at=None).pk
    sent = delivery(webhook)
    refused(lambda: delivery(webhook, event_id=sent.event_id))
    assert delivery(WebhookFactory(), event_id=sent.event_id).pk


def test_an_attempt_is_numbered_once_per_delivery():
    sent = delivery(WebhookFactory())
    WebhookAttempt.objects.create(delivery=sent, number=1, started_at=timezone.now(), duration_ms=5, status_code=500)
    refused(lambda: WebhookAttempt.objects.create(delivery=sent, number=1, started_at=timezone.now(), duration_ms=5))
    WebhookAttempt.objects.create(delivery=sent, number=2, started_at=timezone.now(), duration_ms=5)
    assert list(sent.attempt_rows.values_list("number", "status_code")) == [(1, 500), (2, None)]
