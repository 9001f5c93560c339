"""Worker time through real ``celery worker`` processes on the configured broker and database (PostgreSQL
and Redis in CI): a user's budget of worker seconds is settled at what the worker took for each match, and
a flood of upload checks does not hold queued matches back beyond the checks' share of the worker."""

from __future__ import annotations

import math

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from ladder.models import BotVersion, Match
from ladder.services.tournaments.round_robins import tournament_create
from tests.conftest import wait_until
from tests.e2e.test_round_robin import registered, wait_finished
from tests.factories import BotFactory

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

# Takes a second to load: each check of it is a second of the worker's time, its matches are instant.
SLOW_TO_LOAD = (b"import time\n"
                b"time.sleep(1.0)\n"
                b"def act(observation, legal_actions):\n"
                b"    return legal_actions[0]\n")


def worker_seconds(client: APIClient) -> dict:
    return client.get("/api/auth/me/").json()["quotas"]["worker_seconds"]


def test_the_budget_reserves_each_match_and_settles_at_what_the_worker_took(worker_pool):
    client = registered("budgeted")
    bot_ids = [bot.id for bot in BotFactory.create_batch(3)]
    created = client.post("/api/tournaments/", {"game": "kingdomino", "name": "budget", "bots": bot_ids,
                                                "players_per_match": 2, "games_per_pairing": 2}, format="json")
    assert created.status_code == 201, created.json()
    matches = Match.objects.filter(tournament_id=created.json()["id"])
    reserved = sum(matches.values_list("reserved_s", flat=True))
    assert reserved == 6 * 80  # 2 x (5 s start + 30 s match) + 10 s, six matches
    before = worker_seconds(client)
    assert (before["used"], before["reserved"]) == (reserved, reserved)

    worker_pool.start(concurrency=1)
    wait_finished(client, created.json()["id"], worker_pool)

    took = sum(matches.values_list("duration_s", flat=True))
    after = worker_seconds(client)
    assert (after["used"], after["reserved"]) == (math.ceil(took), 0)
    assert after["left"] == after["limit"] - math.ceil(took)
    assert after["used"] < reserved / 10


def test_a_flood_of_checks_leaves_queued_matches_their_share_of_one_worker(worker_pool, settings):
    share = 0.5
    worker_pool.env["VALIDATION_MAX_SHARE"] = str(share)
    # Matches first, then the checks, and only then the worker: both queues are full when it starts.
    a, b = BotFactory.create_batch(2)
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="waiting", bot_ids=[a.id, b.id],
                                   players_per_match=2, games_per_pairing=400, seed=1)
    client = registered("uploader")
    checks = 4
    for number in range(checks):
        response = client.post("/api/bots/", {"game": "kingdomino", "name": f"slow{number}",
                                              "code": SimpleUploadedFile("bot.py", SLOW_TO_LOAD)}, format="multipart")
        assert response.status_code == 202, response.json()

    worker_pool.start(concurrency=1)
    versions = BotVersion.objects.filter(bot__owner__username="uploader")
    try:
        wait_until(lambda: not versions.filter(validation_status="pending").exists(), timeout=180, interval=0.3,
                   message="the worker to decide every upload")
    except BaseException:
        print(worker_pool.logs())
        raise
    assert set(versions.values_list("validation_status", flat=True)) == {"accepted"}, list(
        versions.values_list("validation_message", flat=True))

    last_decided = max(versions.values_list("validated_at", flat=True))
    played_meanwhile = tournament.matches.filter(status="finished", finished_at__lt=last_decided)
    match_s = sum(played_meanwhile.values_list("duration_s", flat=True))
    # Each check took at least the second its bot sleeps while loading; after each one but the last, the
    # worker owed the waiting matches (1 - share) / share of that before it ran another. Workers that take
    # the checks first play no match until the last one is decided.
    owed_s = (checks - 1) * 1.0 * (1 - share) / share
    print(f"{played_meanwhile.count()} matches ({match_s:.2f} s) played before the last of {checks} checks")
    assert match_s >= 0.5 * owed_s, (match_s, played_meanwhile.count())
    assert played_meanwhile.count() >= 10
    # The checks got their share too: the last one did not wait for the whole backlog.
    assert played_meanwhile.count() < tournament.matches.count()
