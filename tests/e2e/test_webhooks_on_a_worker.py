"""Webhooks delivered by real ``celery worker`` processes (a match worker, and a webhook worker on the
webhooks' queue alone) to a real HTTP receiver on the loopback (the workers run with
``WEBHOOKS_ALLOW_PRIVATE=1``; the web side refuses the loopback until the test allows it): the checks of two uploads and a version comparison played by the workers arrive signed, a delivery
the receiver first answers with a 500 is retried and both attempts are listed, and the verdict that
arrives is the comparison's."""

import json

import pytest

from tests.conftest import wait_until
from tests.e2e.test_round_robin import EXAMPLES, registered
from tests.e2e.test_version_comparison import bot_with_versions, wait_done
from tests.webhook_receiver import Receiver

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def test_a_comparison_finished_on_the_workers_reaches_a_receiver_signed_after_a_retried_delivery(
        worker_pool, settings):
    worker_pool.env.update({"WEBHOOKS_ALLOW_PRIVATE": "1", "WEBHOOKS_RETRY_BASE_S": "0.5"})
    worker_pool.start(concurrency=2)
    worker_pool.start_webhooks(concurrency=2)
    ada = registered("ada")
    with Receiver(statuses=[500, 200]) as receiver:
        hook = {"url": receiver.url, "events": ["bot.validated", "comparison.finished"]}
        refused = ada.post("/api/webhooks/", hook, format="json")
        assert refused.status_code == 400 and "public addresses only" in refused.json()["detail"]
        settings.WEBHOOKS_ALLOW_PRIVATE = True
        created = ada.post("/api/webhooks/", hook, format="json")
        assert created.status_code == 201, created.json()
        webhook_id, secret = created.json()["id"], created.json()["secret"]

        bot_id = bot_with_versions(ada, "learner", (EXAMPLES / "random_bot.py").read_bytes(),
                                   (EXAMPLES / "greedy_bot.py").read_bytes())
        comparison = ada.post(f"/api/bots/{bot_id}/comparisons/", {"baseline": 1, "candidate": 2, "max_games": 40},
                              format="json")
        assert comparison.status_code == 201, comparison.json()
        body = wait_done(ada, comparison.json()["id"], worker_pool)

        def arrived():
            events = [json.loads(r.body)["event"] for r in receiver.received]
            return events if "comparison.finished" in events and events.count("bot.validated") >= 3 else None

        try:
            wait_until(arrived, timeout=60, message="comparison.finished and three checks at the receiver")
        except BaseException:
            print(worker_pool.logs())
            raise
    received = receiver.received
    assert all(r.signed_by(secret) for r in received)
    payloads = [json.loads(r.body) for r in received]
    # The first delivery (version 1's check) was answered 500, then sent again, byte for byte.
    assert payloads[0]["event"] == "bot.validated" and payloads[0]["data"]["version"] == 1
    repeats = [r.body for r, p in zip(received, payloads, strict=True) if p["id"] == payloads[0]["id"]]
    assert len(repeats) == 2 and repeats[0] == repeats[1]
    assert sorted(p["data"]["version"] for p in payloads if p["event"] == "bot.validated") == [1, 1, 2]
    [finished] = [p for p in payloads if p["event"] == "comparison.finished"]
    assert finished["data"]["comparison"] == body["id"]
    assert (finished["data"]["verdict"], finished["data"]["games"]) == (body["verdict"], body["games"])
    assert finished["data"]["elo"] == {key: None if value is None else round(value, 2)
                                       for key, value in body["elo"].items()}

    def recorded():
        # A worker records its attempt after the receiver has answered it.
        listed = ada.get(f"/api/webhooks/{webhook_id}/deliveries/").json()["results"]
        return listed if len(listed) >= len(received) else None

    attempts = wait_until(recorded, timeout=30, message="every attempt recorded")
    first = sorted((a for a in attempts if a["event_id"] == payloads[0]["id"]), key=lambda a: a["attempt"])
    assert [(a["attempt"], a["status_code"]) for a in first] == [(1, 500), (2, 200)]
    assert first[0]["error"] == "answered 500" and first[1]["delivery_status"] == "delivered"
    assert len(attempts) == len(received)
