"""Webhooks: a user's subscriptions, the deliveries of their events and each delivery's attempts."""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q

from ladder.models.base import TimeStampedModel


class Webhook(TimeStampedModel):
    """A user's subscription to the events of their own bots, comparisons and tournaments
    (``ladder.services.webhooks``): each event named in ``events`` is POSTed to ``url``, signed with the
    webhook's secret. The secret is shown once, at creation; it is kept sealed (``secret_sealed``,
    encrypted under a key derived from ``SECRET_KEY``), since signing needs it back, never a hash."""

    owner = models.ForeignKey(settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="webhooks")
    url = models.CharField(max_length=2000)
    #: The event names subscribed to, e.g. ["bot.validated", "comparison.finished"].
    events = models.JSONField(default=list)
    secret_sealed = models.TextField()

    class Meta:
        ordering = ["id"]

    def __str__(self) -> str:
        return f"webhook {self.pk} of user {self.owner_id}: {self.url}"


class WebhookDelivery(TimeStampedModel):
    """One event for one webhook: the exact body every attempt sends, and where its attempts stand.

    pending -> delivered (a 2xx answer) or failed (``WEBHOOKS_MAX_ATTEMPTS`` attempts without one). A
    pending delivery is due at ``next_attempt_at``; while an attempt runs that is the end of its lease
    (``leased_until`` too, which counts it in flight), so that the delivery of a worker that died is taken
    up again by the sweep (``webhook_deliveries_sweep``). ``held``: it waits for room under its owner's
    caps (in flight, per hour), not for a retry.
    """

    class Status(models.TextChoices):
        PENDING = "pending"
        DELIVERED = "delivered"
        FAILED = "failed"

    webhook = models.ForeignKey(Webhook, on_delete=models.CASCADE, related_name="deliveries")
    event = models.CharField(max_length=40)
    #: The event's id (the body's "id"): the same for every attempt, and for every webhook it went to.
    event_id = models.UUIDField()
    #: The JSON body, byte for byte what is signed and sent at every attempt.
    body = models.TextField()
    status = models.CharField(max_length=10, choices=Status.choices, default=Status.PENDING)
    attempts = models.PositiveSmallIntegerField(default=0)
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    #: When its task message was last published (the sweep sends a lost one again, not every run).
    sent_at = models.DateTimeField(null=True, blank=True)
    #: The end of the lease of the attempt running now (null when none runs): in flight until then.
    leased_until = models.DateTimeField(null=True, blank=True)
    #: Waiting for room under its owner's caps (``WEBHOOKS_IN_FLIGHT_PER_USER``, ``WEBHOOKS_ATTEMPTS_PER_HOUR``).
    held = models.BooleanField(default=False)

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(fields=["webhook", "event_id"], name="webhookdelivery_one_per_event"),
            models.CheckConstraint(condition=Q(status="pending", next_attempt_at__isnull=False)
                                   | (~Q(status="pending") & Q(next_attempt_at__isnull=True)),
                                   name="webhookdelivery_due_while_pending"),
        ]
        indexes = [models.Index(fields=["next_attempt_at"], condition=Q(status="pending"),
                                name="webhookdelivery_pending_due")]

    def __str__(self) -> str:
        return f"{self.event} {self.event_id} to webhook {self.webhook_id}: {self.status}"


class WebhookAttempt(models.Model):
    """One try of a delivery: the answer's status code (null when none came), what went wrong, how long it
    took, and a short escaped excerpt of the answer's body (never more)."""

    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="attempt_rows")
    number = models.PositiveSmallIntegerField()
    started_at = models.DateTimeField()
    duration_ms = models.PositiveIntegerField()
    status_code = models.PositiveSmallIntegerField(null=True, blank=True)
    error = models.CharField(max_length=300, blank=True)
    response_excerpt = models.CharField(max_length=600, blank=True)

    class Meta:
        ordering = ["id"]
        constraints = [models.UniqueConstraint(fields=["delivery", "number"], name="webhookattempt_unique_number")]

    def __str__(self) -> str:
        return f"attempt {self.number} of delivery {self.delivery_id}: {self.status_code or self.error}"
