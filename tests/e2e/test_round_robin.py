"""Issue 3's walking skeleton, end to end: bots uploaded and a round robin created through the REST API,
played by a real ``celery worker`` process on the configured broker and database, results and Elo stored.
"""

from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from ladder.models import Match, Rating, RatingChange, Seat, Tournament
from tests.conftest import FIRST_LEGAL_BOT, wait_until, wait_until_checked

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

EXAMPLES = Path(__file__).resolve().parents[2] / "bots" / "examples" / "kingdomino"


def kingdomino_bots() -> dict[str, bytes]:
    bots = {"firstlegal": FIRST_LEGAL_BOT}
    for name in ("random_bot", "greedy_bot"):
        path = EXAMPLES / f"{name}.py"
        if path.is_file():
            bots[name.replace("_", "")] = path.read_bytes()
    return bots


def test_round_robin_through_rest_and_a_real_worker(worker_pool, settings):
    # Equal K for every game so that 2-player Elo must be conserved exactly.
    settings.RATING_PROVISIONAL_K = settings.RATING_K
    worker_pool.env["RATING_PROVISIONAL_K"] = str(settings.RATING_K)
    worker_pool.env["RATING_K"] = str(settings.RATING_K)
    worker_pool.start(concurrency=2)

    client = APIClient()
    token = client.post("/api/auth/register/", {"username": "ada", "password": "a-long-passphrase"}).json()["token"]
    client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
    bot_ids = []
    for name, code in kingdomino_bots().items():
        response = client.post("/api/bots/", {"game": "kingdomino", "name": name,
                                              "code": SimpleUploadedFile("bot.py", code)}, format="multipart")
        assert response.status_code == 202, response.json()
        bot_ids.append(response.json()["id"])
    if len(bot_ids) < 3:
        second = client.post("/api/bots/", {"game": "kingdomino", "name": "firstlegal2",
                                            "code": SimpleUploadedFile("bot.py", FIRST_LEGAL_BOT + b"#2\n")},
                             format="multipart")
        bot_ids.append(second.json()["id"])
    # The worker compiles every upload and plays its smoke match before it may play.
    wait_until_checked(client, bot_ids)

    created = client.post("/api/tournaments/", {"game": "kingdomino", "name": "e2e", "bots": bot_ids,
                                                "players_per_match": 2, "games_per_pairing": 2, "seed": 11},
                          format="json")
    assert created.status_code == 201, created.json()
    tournament_id = created.json()["id"]
    total = created.json()["progress"]["total"]
    assert total == len(bot_ids) * (len(bot_ids) - 1)

    def finished():
        body = client.get(f"/api/tournaments/{tournament_id}/").json()
        return body if body["status"] == "finished" else None

    try:
        body = wait_until(finished, timeout=240, interval=0.5, message="the tournament to finish")
    except BaseException:
        print(worker_pool.logs())
        raise
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
