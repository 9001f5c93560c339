"""The Redis transport of the workers: the queues a worker consumes are taken in the order the settings
give (the upload checks' queue, then the matches'), whatever the process's hash seed. Runs where the
tests' broker is Redis (CI)."""

from __future__ import annotations

import uuid

import pytest
from django.conf import settings
from kombu import Connection

pytestmark = pytest.mark.redis


@pytest.mark.parametrize("hash_order_guess", ["validation last", "validation first"])
def test_a_worker_takes_its_queues_in_the_configured_order_whatever_the_set_order(hash_order_guess):
    base = f"test-{uuid.uuid4().hex[:8]}"
    order = [f"{base}.validation", base, f"{base}.z-extra"]
    consumed = list(reversed(order)) if hash_order_guess == "validation last" else order
    options = {**settings.CELERY_BROKER_TRANSPORT_OPTIONS, "queue_order": order[:2]}
    with Connection(settings.CELERY_BROKER_URL, transport="ladder.brokers.redis_queues:Transport",
                    transport_options=options) as connection:
        channel = connection.default_channel
        for queue in consumed:
            channel.queue_declare(queue=queue, auto_delete=True)
            channel.basic_consume(queue, no_ack=True, callback=lambda message: None, consumer_tag=queue)
        assert channel._queue_cycle.consume(len(order)) == order
        for queue in consumed:
            channel.basic_cancel(queue)
