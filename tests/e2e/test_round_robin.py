"""Issue 3's walking skeleton, end to end: bots uploaded and a round robin created through the REST API,
played by a real ``celery worker`` process on the configured broker and database, results and Elo stored.
A staff tournament marked rated moves the leaderboard; a user's own round robin leaves it alone.
"""

from pathlib import Path

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from ladder.models import Match, PendingRating, Rating, RatingChange, Seat, Tournament
from tests.conftest import wait_until, wait_until_checked
from tests.factories import FIRST_LEGAL_BOT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

EXAMPLES = Path(__file__).resolve().parents[2] / "bots" / "examples" / "kingdomino"


def kingdomino_bots() -> dict[str, bytes]:
    bots = {"firstlegal": FIRST_LEGAL_BOT}
    for name in ("random_bot", "greedy_bot"):
        path = EXAMPLES / f"{name}.py"
        if path.is_file():
            bots[name.replace("_", "")] = path.read_bytes()
    return bots


def registered(username: str) -> APIClient:
    client = APIClient()
    token = client.post("/api/auth/register/", {"username": username, "password": "a-long-passphrase"}).json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    return client


def wait_finished(client, tournament_id: int, worker_pool) -> dict:
    def finished():
        body = client.get(f"/api/tournaments/{tournament_id}/").json()
        # Its ratings too: the game's applier applies each result moments after its recording.
        return body if body["status"] == "finished" and not PendingRating.objects.exists() else None

    try:
        return wait_until(finished, timeout=240, interval=0.5, message="the tournament to finish")
    except BaseException:
        print(worker_pool.logs())
        raise


def test_round_robin_through_rest_and_a_real_worker(worker_pool, settings):
    # Equal K for every game so that 2-player Elo must be conserved exactly.
    settings.RATING_PROVISIONAL_K = settings.RATING_K
    worker_pool.env["RATING_PROVISIONAL_K"] = str(settings.RATING_K)
    worker_pool.env["RATING_K"] = str(settings.RATING_K)
    worker_pool.start(concurrency=2)

    client = registered("ada")
    staff = registered("operator")
    get_user_model().objects.filter(username="operator").update(is_staff=True)
    bot_ids = []
    bots = dict(kingdomino_bots())
    if len(bots) < 3:
        bots["firstlegal2"] = FIRST_LEGAL_BOT + b"#2\n"
    # One owner per bot: a rated match never seats two bots of one owner.
    for index, (name, code) in enumerate(bots.items()):
        owner = client if index == 0 else registered(f"author{index}")
        response = owner.post("/api/bots/", {"game": "kingdomino", "name": name,
                                             "code": SimpleUploadedFile("bot.py", code)}, format="multipart")
        assert response.status_code == 202, response.json()
        bot_ids.append(response.json()["id"])
    # The worker compiles every upload and plays its smoke match before it may play.
    wait_until_checked(client, bot_ids)

    # Rated: only staff may start it, and the server draws its seeds.
    created = staff.post("/api/tournaments/", {"game": "kingdomino", "name": "e2e", "bots": bot_ids,
                                               "players_per_match": 2, "games_per_pairing": 2, "rated": True},
                         format="json")
    assert created.status_code == 201, created.json()
    tournament_id = created.json()["id"]
    total = created.json()["progress"]["total"]
    assert total == len(bot_ids) * (len(bot_ids) - 1)

    body = wait_finished(client, tournament_id, worker_pool)
    assert body["progress"]["finished"] == total and body["progress"]["failed"] == 0
    assert Tournament.objects.get(id=tournament_id).finished_at is not None

    matches = Match.objects.filter(tournament_id=tournament_id)
    assert all(m.status == "finished" and m.actions and m.attempts == 1 for m in matches)
    seats = Seat.objects.filter(match__tournament_id=tournament_id)
    assert seats.count() == 2 * total
    assert all(s.outcome == "ok" and s.place in (1, 2) and s.rating_after is not None for s in seats)
    assert RatingChange.objects.filter(match__tournament_id=tournament_id).count() == 2 * total
    ratings = Rating.objects.filter(bot_id__in=bot_ids)
    assert sum(r.games for r in ratings) == 2 * total
    assert sum(r.elo for r in ratings) == pytest.approx(1500.0 * len(bot_ids))
    assert any(r.elo != 1500.0 for r in ratings)

    one = client.get(f"/api/matches/{matches.first().id}/").json()
    assert one["status"] == "finished" and len(one["seats"]) == 2
    replay = client.get(f"/api/matches/{matches.first().id}/replay/").json()
    assert len(replay["frames"]) == len(replay["actions"]) + 1
    board = client.get("/api/leaderboards/kingdomino/").json()
    assert sorted(row["bot_id"] for row in board) == sorted(bot_ids)
    assert [row["elo"] for row in board] == sorted((row["elo"] for row in board), reverse=True)
    page = client.get("/games/kingdomino/")
    assert page.status_code == 200 and board[0]["bot"].encode() in page.content


def test_a_users_round_robin_with_a_chosen_seed_leaves_every_leaderboard_rating_alone(workers):
    """Two bots of one owner and another user's bot, a seed of the owner's choosing, played by a real
    worker: the round robin has its own standings, and the leaderboard does not move."""
    ada, bob = registered("ada"), registered("bob")
    bot_ids = []
    for client, name, code in ((ada, "thrower", FIRST_LEGAL_BOT), (ada, "farmer", FIRST_LEGAL_BOT + b"#2\n"),
                               (bob, "bystander", FIRST_LEGAL_BOT + b"#3\n")):
        response = client.post("/api/bots/", {"game": "kingdomino", "name": name,
                                              "code": SimpleUploadedFile("bot.py", code)}, format="multipart")
        assert response.status_code == 202, response.json()
        bot_ids.append(response.json()["id"])
    wait_until_checked(ada, bot_ids)
    leaderboard = list(Rating.objects.order_by("bot_id").values_list("bot_id", "elo", "games", "wins", "draws",
                                                                     "losses"))
    assert [row[0] for row in leaderboard] == sorted(bot_ids)
    board_before = ada.get("/api/leaderboards/kingdomino/").json()

    created = ada.post("/api/tournaments/", {"game": "kingdomino", "name": "farm", "bots": bot_ids,
                                             "players_per_match": 2, "games_per_pairing": 2, "seed": 11},
                       format="json")
    assert created.status_code == 201, created.json()
    body = wait_finished(ada, created.json()["id"], workers)
    assert body["progress"]["finished"] == 6 and body["progress"]["failed"] == 0
    assert {line["bot_id"] for line in body["standings"]} == set(bot_ids)
    assert all(line["games"] == 4 for line in body["standings"])

    assert list(Rating.objects.order_by("bot_id").values_list("bot_id", "elo", "games", "wins", "draws",
                                                              "losses")) == leaderboard
    assert not RatingChange.objects.exists()
    seats = Seat.objects.filter(match__tournament_id=created.json()["id"])
    assert seats.count() == 12 and all(s.outcome == "ok" and s.place in (1, 2) for s in seats)
    assert all(s.rating_before is None and s.rating_after is None for s in seats)
    assert ada.get("/api/leaderboards/kingdomino/").json() == board_before
    for bot_id in bot_ids:
        assert ada.get(f"/api/bots/{bot_id}/ratings/").json()["count"] == 0
    assert created.json()["rated"] is False and created.json()["seed"] == 11
