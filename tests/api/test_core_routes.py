"""The REST API end to end in-process: accounts, uploads, tournaments, matches, leaderboards."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from ladder.models import Bot, Match
from tests.conftest import FIRST_LEGAL_BOT

pytestmark = pytest.mark.django_db


def upload(client, name="firstlegal", code=FIRST_LEGAL_BOT, game="kingdomino", filename="bot.py"):
    return client.post("/api/bots/", {"game": game, "name": name, "code": SimpleUploadedFile(filename, code)},
                       format="multipart")


def test_register_then_token(api_client):
    created = api_client.post("/api/auth/register/", {"username": "ada", "password": "a-long-passphrase"})
    assert created.status_code == 201 and created.json()["token"]
    token = api_client.post("/api/auth/token/", {"username": "ada", "password": "a-long-passphrase"})
    assert token.json()["token"] == created.json()["token"]
    assert api_client.post("/api/auth/token/", {"username": "ada", "password": "nope"}).status_code == 400
    again = api_client.post("/api/auth/register/", {"username": "ADA", "password": "a-long-passphrase"})
    assert again.status_code == 400 and "taken" in again.json()["detail"]


def test_games_are_listed_from_the_engines(api_client):
    games = {g["slug"]: g for g in api_client.get("/api/games/").json()}
    assert games["kingdomino"]["min_players"] == 2


def test_upload_creates_version_one_and_a_rating(auth_client):
    response = upload(auth_client)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["current_version"]["number"] == 1
    assert body["current_version"]["validation_status"] == "accepted"
    assert body["ratings"] == [{"game": "kingdomino", "elo": 1500.0, "games": 0, "wins": 0, "draws": 0,
                                "losses": 0}]
    version = auth_client.post(f"/api/bots/{body['id']}/versions/",
                               {"code": SimpleUploadedFile("bot.py", FIRST_LEGAL_BOT + b"# v2\n")},
                               format="multipart")
    assert version.status_code == 201 and version.json()["number"] == 2
    listed = auth_client.get("/api/bots/?game=kingdomino").json()
    assert [b["name"] for b in listed["results"]] == ["firstlegal"]


@pytest.mark.parametrize(
    "code,filename,field",
    [(b"def act(:\n", "bot.py", "code"), (b"", "bot.py", "code"), (b"print('no act')\n", "bot.py", "code"),
     (b"PK\x03\x04 not really a zip", "bot.zip", "code")],
)
def test_bad_uploads_get_a_400_that_says_why(auth_client, code, filename, field):
    response = upload(auth_client, code=code, filename=filename)
    assert response.status_code == 400
    body = response.json()
    assert body.get("field") == field or field in body
    assert len(str(body)) > 20
    assert not Bot.objects.exists()


def test_upload_needs_a_token_and_a_known_game(api_client, auth_client):
    assert upload(api_client).status_code in (401, 403)
    response = upload(auth_client, game="chess")
    assert response.status_code == 400 and "kingdomino" in response.json()["detail"]


def test_bot_code_is_readable_only_by_its_owner(auth_client, api_client, bot_factory):
    bot = bot_factory(owner=auth_client.user)
    assert auth_client.get(f"/api/bots/{bot.id}/versions/1/code/").content == FIRST_LEGAL_BOT
    assert api_client.get(f"/api/bots/{bot.id}/versions/1/code/").status_code in (401, 403)


def test_tournament_is_scheduled_with_progress(auth_client, bot_factory):
    bots = [bot_factory() for _ in range(3)]
    response = auth_client.post("/api/tournaments/", {"game": "kingdomino", "name": "cup",
                                                      "bots": [b.id for b in bots], "players_per_match": 2,
                                                      "games_per_pairing": 2}, format="json")
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["progress"]["total"] == 6 and body["progress"]["queued"] == 6
    assert Match.objects.filter(tournament_id=body["id"]).count() == 6
    detail = auth_client.get(f"/api/tournaments/{body['id']}/").json()
    assert detail["status"] == "running"
    matches = auth_client.get(f"/api/matches/?tournament={body['id']}").json()
    assert matches["count"] == 6
    one = auth_client.get(f"/api/matches/{matches['results'][0]['id']}/").json()
    assert [s["position"] for s in one["seats"]] == [0, 1]


@pytest.mark.parametrize(
    "change,fragment",
    [
        ({"players_per_match": 7}, "2 to 4 players"),
        ({"bots": "other_game"}, "another game"),
        ({"bots": "inactive"}, "inactive"),
        ({"bots": "unknown"}, "no bots with ids"),
        ({"games_per_pairing": 999}, "the limit is"),
        ({"options": {"variant": "no-such-variant"}}, "refused"),
    ],
)
def test_bad_tournaments_get_a_400_that_says_why(auth_client, bot_factory, settings, change, fragment):
    from ladder.models import Game

    settings.TOURNAMENT_MAX_MATCHES = 100
    bots = [bot_factory() for _ in range(3)]
    payload = {"game": "kingdomino", "name": "cup", "bots": [b.id for b in bots], "players_per_match": 2}
    if change.get("bots") == "other_game":
        payload["bots"].append(bot_factory(game=Game.objects.get(slug="draftosaurus")).id)
    elif change.get("bots") == "inactive":
        payload["bots"].append(bot_factory(active=False).id)
    elif change.get("bots") == "unknown":
        payload["bots"].append(987654)
    else:
        payload.update(change)
    response = auth_client.post("/api/tournaments/", payload, format="json")
    assert response.status_code == 400, response.json()
    assert fragment in str(response.json())
    assert not Match.objects.exists()


def test_leaderboard_lists_bots_by_elo(api_client, bot_factory):
    low, high = bot_factory(), bot_factory()
    high.ratings.update(elo=1600)
    board = api_client.get("/api/leaderboards/kingdomino/").json()
    assert [(row["rank"], row["bot"]) for row in board] == [(1, high.name), (2, low.name)]
    page = api_client.get("/games/kingdomino/")
    assert page.status_code == 200
    assert page.content.index(high.name.encode()) < page.content.index(low.name.encode())


def test_schema_and_docs_are_served_locally(api_client):
    assert api_client.get("/api/schema/").status_code == 200
    docs = api_client.get("/api/docs/")
    assert docs.status_code == 200 and b"cdn" not in docs.content.lower()
