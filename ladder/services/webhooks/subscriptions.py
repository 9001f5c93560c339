"""Webhooks: a user's subscriptions to the events of their own bots, comparisons and tournaments.

:func:`webhook_create` checks the target (``ladder.services.webhooks.targets``) and returns the new webhook
with its secret, the only time the secret leaves the server. The secret is stored sealed (Fernet, under a
key derived from ``SECRET_KEY``; ``SECRET_KEY_FALLBACKS`` still open older ones): a copy of the database
alone does not let anyone sign as the ladder. The events are delivered by
``ladder.services.webhooks.deliveries``.
"""

from __future__ import annotations

import base64
import hashlib
import secrets

from cryptography.fernet import Fernet, InvalidToken, MultiFernet
from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import transaction
from django.db.models import QuerySet

from ladder.core.errors import ServiceError
from ladder.core.quotas import write_rate_check
from ladder.models import Webhook, WebhookAttempt
from ladder.services.webhooks.targets import TargetRefused, target_check

#: Every event a webhook may subscribe to (their payloads: docs/webhooks.md, ladder.services.webhooks.events).
EVENTS = ("bot.validated", "comparison.finished", "tournament.finished", "bot.deactivated")


# --- The secret, sealed at rest ----------------------------------------------------------------------


def _fernet(key: str) -> Fernet:
    digest = hashlib.sha256(b"ladder.webhooks.secret\0" + key.encode()).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def _sealer() -> MultiFernet:
    return MultiFernet([_fernet(key) for key in [settings.SECRET_KEY, *getattr(settings, "SECRET_KEY_FALLBACKS", [])]])


def secret_seal(secret: str) -> str:
    return _sealer().encrypt(secret.encode()).decode("ascii")


def secret_open(sealed: str) -> str:
    """The secret sealed in ``sealed``; ValueError when no configured key opens it (SECRET_KEY changed
    without the old one in SECRET_KEY_FALLBACKS)."""
    try:
        return _sealer().decrypt(sealed.encode("ascii")).decode()
    except InvalidToken:
        raise ValueError("the webhook's secret cannot be opened with SECRET_KEY or SECRET_KEY_FALLBACKS") from None


# --- Webhooks ----------------------------------------------------------------------------------------


def _events_check(events) -> list[str]:
    if not isinstance(events, list) or not events or not all(isinstance(name, str) for name in events):
        raise ServiceError(f"events is a non-empty list of event names, among: {', '.join(EVENTS)}", field="events")
    unknown = [name for name in events if name not in EVENTS]
    if unknown:
        raise ServiceError(f"unknown event {unknown[0]!r}; the events are: {', '.join(EVENTS)}", field="events")
    return [name for name in EVENTS if name in events]


def webhook_create(*, owner, url: str, events) -> tuple[Webhook, str]:
    """A new webhook of ``owner`` and its secret (shown once). QuotaExceeded (429) past ``owner``'s rate of
    webhook changes (``quotas.write_rate_check``, counted first); ServiceError (400) for a refused target
    (``ladder.services.webhooks.targets``, the URL stored as a URI), unknown events, or past
    ``WEBHOOKS_PER_USER`` webhooks."""
    write_rate_check(user=owner, kind="webhooks")
    chosen = _events_check(events)
    try:
        url = target_check(url)
    except TargetRefused as exc:
        raise ServiceError(str(exc), field="url") from None
    secret = "whsec_" + secrets.token_urlsafe(32)
    with transaction.atomic():
        # Locked, so that two requests at once cannot both take the last place.
        get_user_model().objects.select_for_update().filter(pk=owner.pk).first()
        if Webhook.objects.filter(owner=owner).count() >= settings.WEBHOOKS_PER_USER:
            raise ServiceError(f"you have {settings.WEBHOOKS_PER_USER} webhooks, the most one user may hold: "
                               "delete one first")
        webhook = Webhook.objects.create(owner=owner, url=url, events=chosen, secret_sealed=secret_seal(secret))
    return webhook, secret


def webhooks_of(user) -> QuerySet[Webhook]:
    """The webhooks ``user`` owns (none for an anonymous user): nobody reads another's, staff included."""
    if not (user and user.is_authenticated):
        return Webhook.objects.none()
    return Webhook.objects.filter(owner=user)


def webhook_get(*, user, webhook_id: int) -> Webhook:
    """``user``'s webhook ``webhook_id``; ServiceError 404 for one that does not exist or is another's."""
    webhook = webhooks_of(user).filter(pk=webhook_id).first()
    if webhook is None:
        raise ServiceError(f"you have no webhook with id {webhook_id}", status=404)
    return webhook


def webhook_delete(*, user, webhook_id: int) -> None:
    """Delete ``user``'s webhook with its deliveries (pending ones are then never sent); QuotaExceeded
    (429) past ``user``'s rate of webhook changes, which a delete and a create count alike (together they
    would otherwise renew the deliveries a user may queue without bound)."""
    write_rate_check(user=user, kind="webhooks")
    webhook_get(user=user, webhook_id=webhook_id).delete()


def webhook_attempts(*, webhook: Webhook) -> QuerySet[WebhookAttempt]:
    """Every attempt at ``webhook``'s deliveries, newest first, with its delivery."""
    return (WebhookAttempt.objects.filter(delivery__webhook=webhook).select_related("delivery")
            .defer("delivery__body").order_by("-id"))
