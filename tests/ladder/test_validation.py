"""The workers' side of uploads: a pending version is decided once, and a lost check is sent again."""

from datetime import timedelta

import pytest
from django.utils import timezone

from ladder.models import BotVersion
from ladder.services.validation import bot_version_validate, versions_reconcile
from tests.factories import BotFactory, BotVersionFactory

pytestmark = pytest.mark.django_db


def test_a_decided_version_is_left_alone_and_a_missing_one_is_done():
    version = BotFactory().versions.get()
    assert bot_version_validate(version_id=version.id) == "accepted"
    BotVersion.objects.filter(pk=version.pk).update(validation_status="rejected", validation_message="kept")
    assert bot_version_validate(version_id=version.id) == "rejected"
    assert BotVersion.objects.get(pk=version.pk).validation_message == "kept"
    assert bot_version_validate(version_id=10**9) == "missing"


def test_a_pending_check_is_sent_again_once_per_interval(settings, django_capture_on_commit_callbacks):
    settings.VALIDATION_REQUEUE_AFTER_S = 60
    now = timezone.now()
    long_ago = now - timedelta(minutes=5)
    pending = BotVersionFactory(validation_status="pending")
    fresh = BotVersionFactory(validation_status="pending")
    BotVersion.objects.filter(pk=pending.pk).update(created_at=long_ago, validation_sent_at=long_ago)
    BotVersion.objects.filter(pk=fresh.pk).update(created_at=now, validation_sent_at=now)

    with django_capture_on_commit_callbacks() as sent:
        assert versions_reconcile(now=now) == 1
    assert len(sent) == 1
    # Marked as sent: the next runs leave it alone until the interval has passed again.
    assert versions_reconcile(now=now + timedelta(seconds=5)) == 0
    assert versions_reconcile(now=now + timedelta(seconds=61)) == 2
