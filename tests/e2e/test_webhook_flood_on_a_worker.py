"""Issue 46, done when: a user with ten silent webhooks and twenty toggles leaves another user's match within
twice its time alone. Real workers as production runs them: a match worker (the upload checks', the
matches' and the ladder's queues) and a webhook worker (the webhooks' queue alone, on threads). The
attacker's ten webhooks point at a receiver that accepts connections and never answers; ten deactivations
of one bot, each undone, make a hundred deliveries, each of which holds its attempt for the whole deadline.
The other user's one-match round robin is timed by the server's own clock (created to finished), alone
and then under the flood; then the other user's own delivery, queued behind the flood, reaches its
receiver within seconds."""

import socket
import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from ladder.models import Tournament, WebhookAttempt, WebhookDelivery
from tests.conftest import wait_until, wait_until_checked
from tests.e2e.test_round_robin import registered
from tests.factories import FIRST_LEGAL_BOT
from tests.webhook_receiver import Receiver

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

TIMEOUT_S = 3


def steady_bot(pick: int) -> bytes:
    """A bot that takes 20 ms a decision: about a second a match (some 50 decisions), long enough that the
    machine's jitter is not what is measured."""
    return ("import time\n\ndef act(observation, legal_actions):\n"
            f"    time.sleep(0.02)\n    return legal_actions[{pick}]\n").encode()


def uploaded(client, name: str, code: bytes) -> int:
    response = client.post("/api/bots/", {"game": "kingdomino", "name": name,
                                          "code": SimpleUploadedFile("bot.py", code)}, format="multipart")
    assert response.status_code == 202, response.json()
    return response.json()["id"]


def round_robin_seconds(client, bot_ids: list[int], name: str, worker_pool, *, within: float) -> float:
    """Seconds a one-match round robin of ``bot_ids`` takes from its creation to its end, by the server's
    clock; fails past ``within`` seconds."""
    created = client.post("/api/tournaments/", {"game": "kingdomino", "name": name, "bots": bot_ids,
                                                "players_per_match": 2, "games_per_pairing": 1}, format="json")
    assert created.status_code == 201, created.json()
    tournament = Tournament.objects.filter(pk=created.json()["id"])
    assert tournament.get().matches.count() == 1
    try:
        wait_until(lambda: tournament.filter(status="finished").exists(), timeout=within, interval=0.05,
                   message=f"round robin {name!r} to finish")
    except BaseException:
        print(worker_pool.logs())
        raise
    done = tournament.get()
    return (done.finished_at - done.created_at).total_seconds()


def test_ten_silent_webhooks_and_twenty_toggles_leave_another_users_match_within_twice_its_time_alone(
        worker_pool, settings):
    worker_pool.env.update({"WEBHOOKS_ALLOW_PRIVATE": "1", "WEBHOOKS_TIMEOUT_S": str(TIMEOUT_S)})
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    worker_pool.start(concurrency=1)
    worker_pool.start_webhooks(concurrency=4)
    ada, mallory = registered("ada"), registered("mallory")
    bots = [uploaded(ada, "first", steady_bot(0)), uploaded(ada, "last", steady_bot(-1))]
    toggled = uploaded(mallory, "toggled", FIRST_LEGAL_BOT)
    wait_until_checked(ada, [*bots, toggled])

    round_robin_seconds(ada, bots, "warm-up", worker_pool, within=60)
    alone = round_robin_seconds(ada, bots, "alone", worker_pool, within=60)

    with socket.create_server(("127.0.0.1", 0), backlog=256) as silent, Receiver() as quick:  # silent: never answers
        assert ada.post("/api/webhooks/", {"url": quick.url, "events": ["bot.deactivated"]},
                        format="json").status_code == 201
        url = f"http://127.0.0.1:{silent.getsockname()[1]}/hook"
        for _ in range(10):
            hook = mallory.post("/api/webhooks/", {"url": url, "events": ["bot.deactivated"]}, format="json")
            assert hook.status_code == 201, hook.json()
        for _ in range(10):
            for action in ("deactivate", "reactivate"):
                assert mallory.post(f"/api/bots/{toggled}/{action}/").status_code == 200
        assert WebhookDelivery.objects.filter(webhook__owner__username="mallory").count() == 100
        # The flood is on: the webhook worker holds attempts open against the silent receiver.
        wait_until(lambda: WebhookDelivery.objects.filter(leased_until__isnull=False).exists(), timeout=30,
                   interval=0.05, message="an attempt in flight")

        flooded = round_robin_seconds(ada, bots, "flooded", worker_pool, within=2 * alone + 30)
        assert flooded <= 2 * alone, (alone, flooded)

        # Ada's own delivery, queued behind the attacker's hundred, is not held back by them.
        queued = time.monotonic()
        assert ada.post(f"/api/bots/{bots[0]}/deactivate/").status_code == 200
        wait_until(lambda: quick.received, timeout=30, interval=0.05, message="ada's delivery")
        assert time.monotonic() - queued < TIMEOUT_S + 2

        # None of the attacker's deliveries is lost: those tried failed at the deadline, the others wait
        # their turn, pending.
        attempts = WebhookAttempt.objects.filter(delivery__webhook__owner__username="mallory")
        wait_until(attempts.exists, timeout=2 * TIMEOUT_S + 10, interval=0.1, message="an attempt recorded")
        # Read while the receiver still listens (closing it resets the connections of attempts in flight).
        errors = set(attempts.values_list("error", flat=True))
    deliveries = WebhookDelivery.objects.filter(webhook__owner__username="mallory")
    assert deliveries.count() == 100 and set(deliveries.values_list("status", flat=True)) == {"pending"}
    assert errors == {f"no answer within {TIMEOUT_S} s"}
