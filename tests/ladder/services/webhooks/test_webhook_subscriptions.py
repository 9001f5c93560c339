"""``ladder.services.webhooks.subscriptions``: a webhook is stored with its events in their canonical order
and its secret sealed (opened again under the current key or a fallback, never without one); creation
refuses unknown events, a refused target and past ``WEBHOOKS_PER_USER``, naming the field at fault; a user
reads and deletes their own webhooks only. The routes over them are ``tests/api/test_webhooks.py``."""

from __future__ import annotations

import pytest

from ladder.core.errors import ServiceError
from ladder.models import Webhook
from ladder.services.webhooks.subscriptions import (
    EVENTS,
    secret_open,
    webhook_create,
    webhook_delete,
    webhook_get,
    webhooks_of,
)
from tests.factories import UserFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]

LOOPBACK = "http://127.0.0.1:9/hook"


@pytest.fixture
def allow_private(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True


def test_a_webhook_keeps_its_events_in_order_and_its_secret_sealed(allow_private, settings):
    webhook, secret = webhook_create(owner=UserFactory(), url=LOOPBACK, events=["bot.deactivated", "bot.validated"])
    assert webhook.events == ["bot.validated", "bot.deactivated"] == [e for e in EVENTS if e in webhook.events]
    stored = Webhook.objects.get(pk=webhook.pk).secret_sealed
    assert secret.startswith("whsec_") and secret not in stored
    assert secret_open(stored) == secret
    old_key = settings.SECRET_KEY
    settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = "a-new-key-" + "x" * 40, [old_key]
    assert secret_open(stored) == secret
    settings.SECRET_KEY_FALLBACKS = []
    with pytest.raises(ValueError, match="cannot be opened"):
        secret_open(stored)


@pytest.mark.parametrize(("events", "url", "field"), [
    (["bot.shouted"], LOOPBACK, "events"),
    ([], LOOPBACK, "events"),
    ("bot.validated", LOOPBACK, "events"),
    (["bot.validated"], "ftp://127.0.0.1/hook", "url"),
])
def test_creation_refuses_what_it_cannot_deliver_naming_the_field(allow_private, events, url, field):
    with pytest.raises(ServiceError) as refused:
        webhook_create(owner=UserFactory(), url=url, events=events)
    assert refused.value.field == field
    assert not Webhook.objects.exists()


def test_a_private_target_is_refused_unless_the_operator_allows_it(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = False
    with pytest.raises(ServiceError) as refused:
        webhook_create(owner=UserFactory(), url=LOOPBACK, events=["bot.validated"])
    assert refused.value.field == "url" and "loopback" in str(refused.value)


def test_a_user_holds_at_most_the_configured_number_of_webhooks(allow_private, settings):
    settings.WEBHOOKS_PER_USER = 1
    owner = UserFactory()
    webhook_create(owner=owner, url=LOOPBACK, events=["bot.validated"])
    with pytest.raises(ServiceError, match="the most one user may hold"):
        webhook_create(owner=owner, url=LOOPBACK, events=["bot.validated"])
    webhook_create(owner=UserFactory(), url=LOOPBACK, events=["bot.validated"])
    assert Webhook.objects.filter(owner=owner).count() == 1


def test_a_user_reads_and_deletes_only_their_own_webhooks(allow_private):
    owner, other = UserFactory(), UserFactory()
    webhook, _ = webhook_create(owner=owner, url=LOOPBACK, events=["bot.validated"])
    assert list(webhooks_of(owner)) == [webhook] and not webhooks_of(other).exists()
    assert not webhooks_of(None).exists()
    with pytest.raises(ServiceError) as hidden:
        webhook_get(user=other, webhook_id=webhook.id)
    assert hidden.value.status == 404
    with pytest.raises(ServiceError):
        webhook_delete(user=other, webhook_id=webhook.id)
    webhook_delete(user=owner, webhook_id=webhook.id)
    assert not Webhook.objects.exists()
