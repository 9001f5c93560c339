"""``workers.tasks``, run in this process (``Task.apply``, no worker process, no sandbox): every task
registered under the stable name ``ladder`` sends, with no stored result and late acknowledgement, its
time limits from the settings and the upload check retried on sandbox faults; the queues a worker takes
without -Q (never the webhooks'); and each task calls its
service and returns its answer (a match that cannot be claimed skipped, a webhook delivery posted to a
real receiver, the reconciler's report, the ladder's tick)."""

from __future__ import annotations

import pytest
from django.conf import settings as django_settings

from bots.sandbox.errors import SandboxFault
from ladder.messaging.enqueue import (
    DELIVER_WEBHOOK_TASK,
    RUN_MATCH_TASK,
    RUN_MATCHES_TASK,
    VALIDATE_VERSION_TASK,
)
from ladder.models import WebhookDelivery
from ladder.services.webhooks.deliveries import attempt_lease_s, webhooks_emit
from ladder.services.webhooks.subscriptions import webhook_create
from tests.factories import UserFactory
from tests.webhook_receiver import Receiver
from workers import tasks
from workers.app import app

NAMES = {RUN_MATCH_TASK: tasks.run_match, RUN_MATCHES_TASK: tasks.run_matches, VALIDATE_VERSION_TASK: tasks.validate_version,
         DELIVER_WEBHOOK_TASK: tasks.deliver_webhook, "ladder.reconcile": tasks.reconcile,
         "ladder.ladder_tick": tasks.ladder_tick}


def test_a_worker_started_without_q_never_takes_the_webhooks_queue():
    """Match workers (started without -Q, as the compose file starts them) take the upload checks', the
    matches' and the ladder's queues, in that order; only a webhook worker, which names it, takes the
    webhooks' queue."""
    consumed = [queue.name for queue in app.conf.task_queues]
    assert consumed == [django_settings.VALIDATION_QUEUE, django_settings.MATCH_QUEUE, django_settings.LADDER_QUEUE]
    assert django_settings.WEBHOOKS_QUEUE not in consumed
    assert django_settings.WEBHOOKS_QUEUE not in app.conf.broker_transport_options.get("queue_order", [])


@pytest.mark.parametrize("name", sorted(NAMES))
def test_each_task_has_its_stable_name_no_result_and_late_acknowledgement(name):
    task = app.tasks[name]
    assert task.name == NAMES[name].name == name
    assert task.ignore_result and task.acks_late


def test_the_time_limits_come_from_the_settings():
    for task in (tasks.run_match, tasks.validate_version):
        assert (task.soft_time_limit, task.time_limit) == (django_settings.MATCH_SOFT_TIME_LIMIT_S,
                                                           django_settings.MATCH_TIME_LIMIT_S)
    # A message of several matches has the time of as many as it may carry.
    assert (tasks.run_matches.soft_time_limit, tasks.run_matches.time_limit) == (
        django_settings.MATCH_SOFT_TIME_LIMIT_S * django_settings.MATCHES_PER_MESSAGE,
        django_settings.MATCH_TIME_LIMIT_S * django_settings.MATCHES_PER_MESSAGE)
    # An attempt ends by its own deadline, inside its lease, and is recorded before any time limit.
    assert django_settings.WEBHOOKS_TIMEOUT_S < attempt_lease_s() < tasks.deliver_webhook.soft_time_limit
    assert tasks.deliver_webhook.time_limit > tasks.deliver_webhook.soft_time_limit
    assert tasks.reconcile.time_limit == tasks.ladder_tick.time_limit == 300


def test_only_the_upload_check_is_retried_and_only_on_a_sandbox_fault():
    assert tuple(tasks.validate_version.autoretry_for) == (SandboxFault,)
    assert tasks.validate_version.max_retries == 5
    assert not getattr(tasks.run_match, "autoretry_for", ())
    assert not getattr(tasks.run_matches, "autoretry_for", ())


@pytest.mark.django_db
def test_a_match_that_cannot_be_claimed_is_skipped():
    assert tasks.run_match.apply(args=[999_999_999]).get() == "skipped"
    assert tasks.run_matches.apply(args=[[999_999_998, 999_999_999]]).get() == (
        "999999998: skipped, 999999999: skipped")


@pytest.mark.django_db
def test_a_delivery_is_posted_once_and_a_missing_one_is_reported(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    owner = UserFactory()
    with Receiver() as receiver:
        webhook_create(owner=owner, url=receiver.url, events=["bot.deactivated"])
        webhooks_emit(event="bot.deactivated", owner_id=owner.id, data={"bot": {"id": 1}})
        delivery = WebhookDelivery.objects.get(webhook__owner=owner)
        assert tasks.deliver_webhook.apply(args=[delivery.id]).get() == "delivered"
        assert tasks.deliver_webhook.apply(args=[delivery.id]).get() == "skipped"  # a duplicate message
    assert len(receiver.received) == 1
    assert tasks.deliver_webhook.apply(args=[delivery.id + 1000]).get() == "missing"


@pytest.mark.django_db
def test_the_reconciler_reports_what_it_sent_again(private_queue):
    report = tasks.reconcile.apply().get()
    assert report["validations_resent"] == 0 and report["webhooks_resent"] == 0
    assert {"resent", "lost"} <= set(report)


@pytest.mark.django_db
def test_the_ladder_tick_schedules_nothing_without_bots(private_queue):
    scheduled = tasks.ladder_tick.apply().get()
    assert isinstance(scheduled, dict) and sum(scheduled.values()) == 0
