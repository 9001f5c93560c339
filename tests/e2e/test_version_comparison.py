"""Version comparisons created through the REST API and played by real ``celery worker`` processes: a
greedy version 2 against a random version 1 is found better long before its cap, a version against an
identical copy of itself is not, and a worker killed in the middle of a comparison's match loses no pair."""

import time

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from ladder.models import Comparison, Match, Rating, RatingChange
from ladder.services.play.matches import matches_reconcile
from ladder.services.tournaments.comparisons import comparison_create
from tests.conftest import wait_until, wait_until_checked
from tests.e2e.test_round_robin import EXAMPLES, registered
from tests.factories import BotFactory, BotVersionFactory

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


def bot_with_versions(client, name: str, *codes: bytes) -> int:
    """Upload ``codes`` as versions 1, 2, ... of a new kingdomino bot; wait until each is accepted."""
    response = client.post("/api/bots/", {"game": "kingdomino", "name": name,
                                          "code": SimpleUploadedFile("bot.py", codes[0])}, format="multipart")
    assert response.status_code == 202, response.json()
    bot_id = response.json()["id"]
    assert wait_until_checked(client, [bot_id]) == {bot_id: "accepted"}
    for code in codes[1:]:
        response = client.post(f"/api/bots/{bot_id}/versions/", {"code": SimpleUploadedFile("bot.py", code)},
                               format="multipart")
        assert response.status_code == 202, response.json()
        assert wait_until_checked(client, [bot_id]) == {bot_id: "accepted"}
    return bot_id


def wait_done(client, comparison_id: int, worker_pool) -> dict:
    def done():
        body = client.get(f"/api/comparisons/{comparison_id}/").json()
        return body if body["status"] == "done" else None

    try:
        return wait_until(done, timeout=240, interval=0.5, message="the comparison to decide")
    except BaseException:
        print(worker_pool.logs())
        raise


def test_greedy_v2_is_found_better_than_random_v1_well_below_the_cap(workers):
    ada = registered("ada")
    bot_id = bot_with_versions(ada, "learner", (EXAMPLES / "random_bot.py").read_bytes(),
                               (EXAMPLES / "greedy_bot.py").read_bytes())
    started = time.monotonic()
    # The defaults: elo0 0, elo1 20, alpha = beta = 0.05, the server's max_games (2000).
    created = ada.post(f"/api/bots/{bot_id}/comparisons/", {"baseline": 1, "candidate": 2}, format="json")
    assert created.status_code == 201, created.json()
    assert created.json()["max_games"] == 2000
    body = wait_done(ada, created.json()["id"], workers)
    print(f"greedy against random: {body['verdict']} after {body['games']} games, pairs {body['pairs']}, "
          f"elo {body['elo']}, {time.monotonic() - started:.1f} s")

    assert body["verdict"] == "better"
    assert body["games"] <= 200, body  # a tenth of the cap
    assert body["llr"]["value"] >= body["llr"]["upper"] and len(body["llr_history"]) == sum(body["pairs"])
    assert body["elo"]["low"] > 0
    # What was queued when the test decided was never played; nothing moved a rating.
    assert not Match.objects.filter(comparison_id=body["id"], status="queued").exists()
    assert not RatingChange.objects.exists()
    assert set(Rating.objects.values_list("games", flat=True)) == {0}


def test_a_version_against_an_identical_copy_is_not_found_better(workers):
    ada = registered("ada")
    random_bot = (EXAMPLES / "random_bot.py").read_bytes()
    bot_id = bot_with_versions(ada, "twins", random_bot, random_bot + b"\n# the same bot again\n")
    started = time.monotonic()
    created = ada.post(f"/api/bots/{bot_id}/comparisons/", {"baseline": 1, "candidate": 2, "max_games": 24},
                       format="json")
    assert created.status_code == 201, created.json()
    body = wait_done(ada, created.json()["id"], workers)
    print(f"identical copies: {body['verdict']} after {body['games']} games, pairs {body['pairs']}, "
          f"{time.monotonic() - started:.1f} s")

    assert body["verdict"] in ("inconclusive", "equal")
    # The two copies play a deal alike from either seat, so no pair is won (or lost) twice.
    assert body["pairs"][0] == body["pairs"][4] == 0, body["pairs"]
    assert body["games"] == 2 * sum(body["pairs"]) <= 24


# A bot slow enough (about half a second a match) that a kill lands in the middle of one of its matches.
SLOW_BOT = b"import time\n\ndef act(observation, legal_actions):\n    time.sleep(0.02)\n    return legal_actions[-1]\n"


def test_a_comparison_whose_worker_is_killed_still_counts_every_pair(worker_pool, settings):
    # A short lease: what is tested is how the replayed match is counted, not how long a lease lasts
    # (tests/e2e/test_resilience.py times the recovery with the defaults).
    worker_pool.env.update({"MATCH_LEASE_S": "5", "MATCH_HEARTBEAT_S": "1"})
    settings.MATCH_LEASE_S = 5
    worker_pool.start(concurrency=1, name="doomed")
    worker_pool.start(concurrency=1)
    bot = BotFactory(code=SLOW_BOT)
    BotVersionFactory(bot=bot, code=SLOW_BOT + b"# the same bot again\n")
    # Identical copies split every pair, so the test cannot decide before its cap: all 8 pairs are played.
    comparison = comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=2, max_games=16)
    matches = Match.objects.filter(comparison=comparison)
    try:
        wait_until(lambda: matches.filter(status="running", worker__startswith="doomed@").exists(),
                   timeout=60, interval=0.02, message="a comparison match running on the doomed worker")
        worker_pool.kill(worker_pool.processes[0])
        worker_pool.start(concurrency=1)

        def done():
            matches_reconcile()  # what celery beat runs
            return Comparison.objects.filter(pk=comparison.pk, status="done").exists()

        wait_until(done, timeout=120, interval=settings.RECONCILE_INTERVAL_S, message="the comparison to end")
    except BaseException:
        print(worker_pool.logs())
        raise
    comparison.refresh_from_db()
    assert (comparison.verdict, comparison.pairs) == ("inconclusive", [0, 0, 8, 0, 0])
    assert len(comparison.llr_history) == 8
    assert matches.filter(status="finished").count() == 16
    assert matches.filter(attempts__gt=1).exists(), "no match was interrupted by the kill"
