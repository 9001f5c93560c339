"""Bots: upload, list (filters, ordering, pagination), detail, versions, code, (de)activation, rating
history, head-to-head; a second user tries to read and change the first user's bots."""

from pathlib import Path

import pytest

from ladder.api.pagination import MAX_PAGE_SIZE
from ladder.models import Bot, BotVersion, Game
from tests.api.helpers import check_pending_uploads, error_of, upload, upload_version
from tests.factories import (
    FIRST_LEGAL_BOT,
    LAST_LEGAL_BOT,
    BotFactory,
    BotVersionFactory,
    UserFactory,
    finished_match,
)

pytestmark = pytest.mark.django_db


def test_upload_stores_a_pending_version_one_that_a_worker_then_accepts(auth_client):
    response = upload(auth_client, name="firstlegal")
    assert response.status_code == 202
    body = response.json()
    assert body["name"] == "firstlegal" and body["owner"] == auth_client.user.username and body["active"]
    assert body["current_version"] is None
    assert [(v["number"], v["validation_status"]) for v in body["versions"]] == [(1, "pending")]
    assert body["ratings"] == [{"game": "kingdomino", "elo": 1500.0, "games": 0, "wins": 0, "draws": 0,
                                "losses": 0, "provisional": True}]

    assert check_pending_uploads() == ["accepted"]
    checked = auth_client.get(f"/api/bots/{body['id']}/").json()
    assert checked["current_version"]["number"] == 1
    assert checked["current_version"]["validation_status"] == "accepted"
    assert checked["current_version"]["validation_message"].startswith("smoke match against the random bot")
    assert checked["current_version"]["validated_at"]


def test_upload_refusals_name_the_field(auth_client, api_client):
    BotFactory(name="taken")
    assert upload(api_client).status_code == 401
    unknown_game = upload(auth_client, game="chess")
    assert unknown_game.status_code == 400
    assert "kingdomino" in error_of(unknown_game)["fields"]["game"][0]
    taken = upload(auth_client, name="TAKEN")
    assert taken.status_code == 400 and "already exists" in error_of(taken)["fields"]["name"][0]
    bad_name = upload(auth_client, name="no spaces please")
    assert bad_name.status_code == 400 and "letters, digits" in error_of(bad_name)["fields"]["name"][0]
    no_file = auth_client.post("/api/bots/", {"game": "kingdomino", "name": "nofile"}, format="multipart")
    assert no_file.status_code == 400 and "code" in error_of(no_file)["fields"]
    assert Bot.objects.count() == 1


def test_list_filters_by_game_owner_name_and_active(api_client):
    ada, bob = UserFactory(username="ada"), UserFactory(username="bob")
    alpha = BotFactory(owner=ada, name="alpha")
    beta = BotFactory(owner=bob, name="beta", active=False)
    gamma = BotFactory(owner=bob, name="gamma", game=Game.objects.get(slug="draftosaurus"))

    def names(query):
        response = api_client.get(f"/api/bots/{query}")
        assert response.status_code == 200
        return [row["name"] for row in response.json()["results"]]

    assert names("") == ["alpha", "beta", "gamma"]
    assert names("?game=kingdomino") == ["alpha", "beta"]
    assert names("?owner=bob") == ["beta", "gamma"]
    assert names("?active=false") == ["beta"]
    assert names("?name=AM") == ["gamma"]
    assert names("?game=chess") == []
    row = api_client.get("/api/bots/?name=alpha").json()["results"][0]
    assert row == {"id": alpha.id, "name": "alpha", "game": "kingdomino", "owner": "ada", "active": True,
                   "elo": 1500.0, "current_version": 1, "created_at": row["created_at"]}
    assert {beta.id, gamma.id} < {r["id"] for r in api_client.get("/api/bots/").json()["results"]}


def test_list_orders_by_elo_and_name(api_client):
    low, high, middle = BotFactory(name="c-low"), BotFactory(name="a-high"), BotFactory(name="b-mid")
    high.ratings.update(elo=1700)
    middle.ratings.update(elo=1600)
    by_elo = api_client.get("/api/bots/?ordering=-elo").json()["results"]
    assert [row["id"] for row in by_elo] == [high.id, middle.id, low.id]
    by_name = api_client.get("/api/bots/?ordering=name").json()["results"]
    assert [row["name"] for row in by_name] == ["a-high", "b-mid", "c-low"]


def test_list_pages_and_caps_the_page_size(api_client):
    BotFactory.create_batch(3)
    first = api_client.get("/api/bots/?page_size=2").json()
    assert first["count"] == 3 and len(first["results"]) == 2 and first["next"] and first["previous"] is None
    second = api_client.get(first["next"]).json()
    assert len(second["results"]) == 1 and second["next"] is None
    missing = api_client.get("/api/bots/?page=9")
    assert missing.status_code == 404 and "there is no page 9" in error_of(missing)["detail"]
    BotFactory.create_batch(MAX_PAGE_SIZE + 1 - 3)
    capped = api_client.get(f"/api/bots/?page_size={MAX_PAGE_SIZE * 10}").json()
    assert len(capped["results"]) == MAX_PAGE_SIZE and capped["count"] == MAX_PAGE_SIZE + 1


def test_list_query_count_does_not_grow_with_bots(api_client, django_assert_max_num_queries):
    BotFactory.create_batch(12)
    with django_assert_max_num_queries(2):
        assert len(api_client.get("/api/bots/?page_size=50").json()["results"]) == 12


def test_detail_has_versions_ratings_and_ladder_status_in_six_queries(api_client, django_assert_max_num_queries):
    bot = BotFactory()
    with django_assert_max_num_queries(6):
        body = api_client.get(f"/api/bots/{bot.id}/").json()
    assert body["current_version"]["number"] == 1 and body["ratings"][0]["elo"] == 1500.0
    missing = api_client.get("/api/bots/999999/")
    assert missing.status_code == 404 and error_of(missing)["detail"] == "no bot with id 999999"


def test_detail_counts_the_bots_ladder_games_of_the_last_hour_and_day(api_client):
    import random

    from ladder.services.tournaments.ladder import ladder_tick

    bot, other = BotFactory(), BotFactory()
    assert api_client.get(f"/api/bots/{bot.id}/").json()["ladder_games"] == {"last_hour": 0, "last_day": 0}
    ladder_tick(matches_per_game=3, rng=random.Random(0))
    assert api_client.get(f"/api/bots/{bot.id}/").json()["ladder_games"] == {"last_hour": 3, "last_day": 3}
    assert api_client.get(f"/api/bots/{other.id}/").json()["ladder_games"] == {"last_hour": 3, "last_day": 3}


def test_detail_says_why_a_bot_whose_only_opponents_are_its_owners_bots_gets_no_ladder_games(api_client):
    ada = UserFactory()
    mine, other_of_mine = BotFactory(owner=ada), BotFactory(owner=ada)
    status = api_client.get(f"/api/bots/{mine.id}/").json()["ladder_status"]
    assert status["state"] == "own_bots_only"
    assert "its only possible opponents are its owner's other bots" in status["message"]
    assert "never seats two bots of one owner" in status["message"]
    BotFactory()  # another owner's bot joins the ladder
    assert api_client.get(f"/api/bots/{other_of_mine.id}/").json()["ladder_status"]["state"] == "playing"


def test_new_version_keeps_the_rating_and_becomes_current_once_accepted(auth_client):
    bot = BotFactory(owner=auth_client.user)
    bot.ratings.update(elo=1612.0, games=3, wins=3)
    response = upload_version(auth_client, bot.id, code=LAST_LEGAL_BOT)
    assert response.status_code == 202
    assert (response.json()["number"], response.json()["validation_status"]) == (2, "pending")
    assert auth_client.get(f"/api/bots/{bot.id}/").json()["current_version"]["number"] == 1
    assert check_pending_uploads() == ["accepted"]
    body = auth_client.get(f"/api/bots/{bot.id}/").json()
    assert body["current_version"]["number"] == 2
    assert body["ratings"][0]["elo"] == 1612.0
    versions = auth_client.get(f"/api/bots/{bot.id}/versions/").json()
    assert [v["number"] for v in versions["results"]] == [1, 2]
    newest_first = auth_client.get(f"/api/bots/{bot.id}/versions/?ordering=-number").json()
    assert [v["number"] for v in newest_first["results"]] == [2, 1]


def test_versions_list_query_count_does_not_grow_with_versions(api_client, django_assert_max_num_queries):
    bot = BotFactory()
    BotVersionFactory.create_batch(7, bot=bot)
    with django_assert_max_num_queries(3):
        versions = api_client.get(f"/api/bots/{bot.id}/versions/").json()
    assert [v["number"] for v in versions["results"]] == list(range(1, 9))
    assert "code" not in versions["results"][0]


def test_another_user_cannot_upload_versions_of_my_bot(auth_client, other_client, api_client):
    bot = BotFactory(owner=auth_client.user)
    refused = upload_version(other_client, bot.id)
    assert refused.status_code == 404 and "only a bot's owner" in error_of(refused)["detail"]
    assert upload_version(api_client, bot.id).status_code == 401
    assert BotVersion.objects.filter(bot=bot).count() == 1


def test_code_is_readable_by_its_owner_and_staff_only(auth_client, other_client, staff_client, api_client):
    bot = BotFactory(owner=auth_client.user, code=FIRST_LEGAL_BOT)
    own = auth_client.get(f"/api/bots/{bot.id}/versions/1/code/")
    assert own.status_code == 200 and own.content == FIRST_LEGAL_BOT
    assert own["Content-Disposition"] == 'attachment; filename="bot.py"'
    assert staff_client.get(f"/api/bots/{bot.id}/versions/1/code/").content == FIRST_LEGAL_BOT
    # Someone else's code and code that does not exist answer alike: the id reveals nothing.
    theirs = other_client.get(f"/api/bots/{bot.id}/versions/1/code/")
    nothing = other_client.get(f"/api/bots/{bot.id}/versions/7/code/")
    assert theirs.status_code == nothing.status_code == 404
    assert error_of(theirs)["code"] == error_of(nothing)["code"] == "not_found"
    assert api_client.get(f"/api/bots/{bot.id}/versions/1/code/").status_code == 404


def test_owner_deactivates_and_reactivates_and_others_cannot(auth_client, other_client, api_client):
    bot = BotFactory(owner=auth_client.user)
    assert other_client.post(f"/api/bots/{bot.id}/deactivate/").status_code == 404
    assert api_client.post(f"/api/bots/{bot.id}/deactivate/").status_code == 401
    bot.refresh_from_db()
    assert bot.active
    off = auth_client.post(f"/api/bots/{bot.id}/deactivate/")
    assert off.status_code == 200 and off.json()["active"] is False
    board = auth_client.get("/api/leaderboards/kingdomino/").json()
    assert bot.id not in [row["bot_id"] for row in board]
    entry = auth_client.post("/api/tournaments/", {"game": "kingdomino", "name": "cup", "players_per_match": 2,
                                                   "bots": [bot.id, BotFactory().id]}, format="json")
    assert entry.status_code == 400 and "inactive" in error_of(entry)["fields"]["bots"][0]
    assert other_client.post(f"/api/bots/{bot.id}/reactivate/").status_code == 404
    on = auth_client.post(f"/api/bots/{bot.id}/reactivate/")
    assert on.status_code == 200 and on.json()["active"] is True


def test_rating_history_has_one_point_per_rated_match(api_client, django_assert_max_num_queries):
    winner, loser = BotFactory(), BotFactory()
    for _ in range(3):
        finished_match(bots=[winner, loser], places=[1, 2])
    with django_assert_max_num_queries(3):
        history = api_client.get(f"/api/bots/{winner.id}/ratings/").json()
    points = history["results"]
    assert history["count"] == 3
    assert points[0]["before"] == 1500.0
    assert all(p["delta"] > 0 and p["version"] == 1 for p in points)
    assert [p["before"] for p in points[1:]] == [p["after"] for p in points[:-1]]
    winner.refresh_from_db()
    assert points[-1]["after"] == pytest.approx(winner.ratings.get().elo)
    assert api_client.get("/api/bots/999999/ratings/").status_code == 404


def test_head_to_head_counts_pairwise_results_of_shared_matches(api_client):
    ada, bob, cy = BotFactory(), BotFactory(), BotFactory()
    finished_match(bots=[ada, bob], places=[1, 2])
    finished_match(bots=[bob, ada], places=[1, 1])
    last = finished_match(bots=[ada, bob], places=[1, 2], outcomes=["timeout", "ok"])
    finished_match(bots=[ada, cy], places=[2, 1])
    body = api_client.get(f"/api/bots/{ada.id}/head-to-head/{bob.id}/").json()
    assert (body["wins"], body["draws"], body["losses"], body["games"], body["score"]) == (1, 1, 1, 3, 1.5)
    assert body["match_ids"][0] == last.id and len(body["match_ids"]) == 3
    mirrored = api_client.get(f"/api/bots/{bob.id}/head-to-head/{ada.id}/").json()
    assert (mirrored["wins"], mirrored["losses"]) == (1, 1)


def test_head_to_head_refusals(api_client):
    bot = BotFactory()
    other_game = BotFactory(game=Game.objects.get(slug="draftosaurus"))
    same = api_client.get(f"/api/bots/{bot.id}/head-to-head/{bot.id}/")
    assert same.status_code == 400 and "two different bots" in error_of(same)["detail"]
    apart = api_client.get(f"/api/bots/{bot.id}/head-to-head/{other_game.id}/")
    assert apart.status_code == 400 and "different games" in error_of(apart)["detail"]
    assert api_client.get(f"/api/bots/{bot.id}/head-to-head/999999/").status_code == 404


def test_uploads_are_throttled_per_user(auth_client, other_client, throttle_rates):
    throttle_rates(uploads="2/minute")
    assert upload(auth_client, name="one").status_code == 202
    bot_id = Bot.objects.get(name="one").id
    assert upload_version(auth_client, bot_id).status_code == 202
    refused = upload(auth_client, name="three")
    assert refused.status_code == 429
    assert "too many uploads: at most 2 per minute" in error_of(refused)["detail"]
    assert not Bot.objects.filter(name="three").exists()
    assert auth_client.get("/api/bots/").status_code == 200
    assert upload(other_client, name="four").status_code == 202


HOSTILE = Path(__file__).resolve().parents[1] / "bots" / "hostile"


def hostile_code(name: str, **constants) -> bytes:
    header = "".join(f"{key} = {value!r}\n" for key, value in constants.items())
    return (header + (HOSTILE / f"{name}.py").read_text()).encode()


@pytest.mark.parametrize(("code", "words"), [
    pytest.param(hostile_code("surrogate_crash"), "crash: the bot raised RuntimeError: lost ", id="surrogate-crash"),
    pytest.param(hostile_code("raw_protocol", LINE=b'{"type":"error","kind":"crash","message":"\\ud800\\u0000"}\n'),
                 "bad_output: the answer is not JSON", id="raw-surrogate-line"),
    pytest.param(hostile_code("deep_nesting", DEPTH=200000), "bad_output: the answer is nested deeper than",
                 id="deep-nesting"),
    pytest.param(hostile_code("deep_nesting", DEPTH=1000), "bad_output: the answer is nested deeper than",
                 id="deep-nesting-within-orjson"),
    pytest.param(hostile_code("huge_line"), "bad_output: answer longer than", id="endless-line"),
    pytest.param(hostile_code("start_staller", MODE="sleep", STALL_S=30), "timeout: no answer to start within",
                 id="start-staller"),
])
def test_upload_of_a_bot_whose_output_is_hostile_is_rejected_by_its_check_with_a_clear_message(
        auth_client, bots_allow_unsafe, code, words):
    """Its smoke match used to raise (deep nesting) or to put a lone surrogate into the refusal, which no
    JSON response can encode: a 500 instead of a message. Now the upload is stored for checking and the
    check (the worker's service, here in this process) rejects it, saying why, in storable text."""
    if bots_allow_unsafe:
        pytest.skip("no isolation on this machine: hostile bots run only in the sandbox")
    response = upload(auth_client, name="hostile", code=code)
    assert response.status_code == 202
    assert check_pending_uploads() == ["rejected"]
    version = auth_client.get(f"/api/bots/{response.json()['id']}/").json()["versions"][0]
    assert words in version["validation_message"]
    assert "\x00" not in version["validation_message"] + version["validation_log"]
