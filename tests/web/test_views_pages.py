"""Every page through Django's test client: what it shows, who sees logs, forms and their errors."""

from __future__ import annotations

import io
import json
import re
import zipfile

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.urls import reverse

from ladder.models import Bot, BotVersion
from tests.api.helpers import check_pending_uploads

pytestmark = pytest.mark.django_db

HOSTILE = "<script>alert(1)</script>"
GOOD_BOT = b"def act(observation, legal_actions):\n    return legal_actions[0]\n"


def test_home_lists_games_running_tournaments_and_recent_matches(client, tournament_factory):
    done = tournament_factory(name="Done cup")
    running = tournament_factory("draftosaurus", name="Running cup", finish=False)
    html = client.get("/").content.decode()
    for title in ("Kingdomino", "Draftosaurus", "Carcassonne: The Dice Game", "King of the Dice"):
        assert title in html
    assert reverse("tournament", args=[running.id]) in html
    assert reverse("match", args=[done.matches.first().id]) in html
    assert reverse("api-docs") in html


def test_leaderboard_ranks_bots_with_record_and_trend(client, tournament_factory):
    tournament_factory(bots=4, rated=True)
    response = client.get("/games/kingdomino/")
    board = response.context["board"]
    assert [line["rank"] for line in board] == sorted(line["rank"] for line in board)
    assert [line["elo"] for line in board] == sorted((line["elo"] for line in board), reverse=True)
    assert all(line["games"] == 3 == line["wins"] + line["draws"] + line["losses"] for line in board)
    assert all(len(line["trend"]) == 4 for line in board)
    assert b'class="spark"' in response.content


def test_leaderboard_filters_hide_rows_but_keep_ranks(client, tournament_factory):
    tournament_factory(bots=4, rated=True)
    full = client.get("/games/kingdomino/").context["board"]
    last = full[-1]
    filtered = client.get("/games/kingdomino/", {"search": last["bot"].name}).context["board"]
    assert [(line["bot"].id, line["rank"]) for line in filtered] == [(last["bot"].id, last["rank"])]
    assert client.get("/games/kingdomino/", {"min_games": 4}).context["board"] == []
    assert client.get("/games/kingdomino/", {"owner": full[0]["owner"]}).context["board"][0]["owner"] == full[0]["owner"]


def test_unknown_pages_are_404(client):
    for url in ("/games/chess/", "/bots/999999/", "/tournaments/999999/", "/matches/999999/",
                "/matches/999999/frame/", "/tournaments/999999/progress/"):
        assert client.get(url).status_code == 404, url


def test_bot_page_shows_versions_history_chart_head_to_head_and_matches(client, tournament_factory):
    tournament = tournament_factory(bots=3, rated=True)
    bot = tournament.bots.order_by("id").first()
    response = client.get(f"/bots/{bot.id}/")
    html = response.content.decode()
    assert "v1" in html and "accepted" in html
    assert '<svg class="chart"' in html and "<polyline" in html
    assert len(response.context["ratings_over_time"]) == 3  # start + two rated games
    assert {row["opponent"].id for row in response.context["head_to_head"]} == set(
        tournament.bots.exclude(id=bot.id).values_list("id", flat=True))
    assert len(response.context["recent"]) == 2
    assert "says" not in html  # logs are the owner's


def test_bot_page_says_why_a_bot_whose_only_opponents_are_its_owners_bots_gets_no_ladder_games(client, bot_factory,
                                                                                             user_factory):
    ada = user_factory()
    mine = bot_factory(owner=ada)
    bot_factory(owner=ada)
    page = client.get(f"/bots/{mine.id}/").content.decode()
    assert 'data-state="own_bots_only"' in page
    assert "its only possible opponents are its owner&#x27;s other bots" in page
    bot_factory()
    assert 'data-state="playing"' in client.get(f"/bots/{mine.id}/").content.decode()


def test_bot_page_counts_its_ladder_games_of_the_last_hour_and_day(client, bot_factory):
    import random

    from ladder.services.tournaments.ladder import ladder_tick

    bot = bot_factory()
    bot_factory()
    assert 'data-last-hour="0" data-last-day="0"' in client.get(f"/bots/{bot.id}/").content.decode()
    ladder_tick(matches_per_game=2, rng=random.Random(0))
    page = client.get(f"/bots/{bot.id}/").content.decode()
    assert 'data-last-hour="2" data-last-day="2"' in page
    assert "Ladder games: 2 in the last hour, 2 in the last day." in page


def test_bot_owner_sees_logs_and_the_new_version_form(client, tournament_factory):
    bot = tournament_factory(bots=2).bots.first()
    client.force_login(bot.owner)
    html = client.get(f"/bots/{bot.id}/").content.decode()
    assert f"{bot.name} says &lt;script&gt;" in html
    assert "Upload a new version" in html


def test_owner_uploads_a_new_version_that_a_worker_then_accepts(client, bot_factory):
    bot = bot_factory()
    client.force_login(bot.owner)
    response = client.post(f"/bots/{bot.id}/versions/", {"code": SimpleUploadedFile("bot.py", GOOD_BOT)})
    assert response.status_code == 302
    assert list(bot.versions.values_list("number", "validation_status")) == [(1, "accepted"), (2, "pending")]
    assert "a worker is checking it now" in client.get(response.url).content.decode()
    assert check_pending_uploads() == ["accepted"]
    assert list(bot.versions.values_list("number", "validation_status")) == [(1, "accepted"), (2, "accepted")]


def test_a_version_the_check_rejects_shows_the_reason_in_the_versions_table(client, bot_factory):
    bot = bot_factory()
    client.force_login(bot.owner)
    response = client.post(f"/bots/{bot.id}/versions/", {"code": SimpleUploadedFile("bot.py", b"def nothing(:\n")})
    assert response.status_code == 302
    assert check_pending_uploads() == ["rejected"]
    html = client.get(reverse("bot", args=[bot.id])).content.decode()
    assert 'data-status="rejected"' in html and "syntax error in bot.py, line 1" in html


def test_a_bad_version_shows_the_refusal_beside_the_field(client, bot_factory):
    bot = bot_factory()
    client.force_login(bot.owner)
    response = client.post(f"/bots/{bot.id}/versions/", {"code": SimpleUploadedFile("bot.txt", b"notes\n")})
    assert response.status_code == 200
    assert response.context["version_form"].errors["code"]
    assert 'class="field-error"' in response.content.decode()
    assert bot.versions.count() == 1


@pytest.mark.parametrize(("members", "message"), [
    pytest.param({".": b"x"}, "&#x27;.&#x27;: &#x27;.&#x27; is not allowed in zip paths", id="dot"),
    pytest.param({"x": b"1", "x/y.py": b""},
                 "&#x27;x&#x27; is a file and also a folder (of &#x27;x/y.py&#x27;): rename one", id="file-and-folder"),
])
def test_a_zip_whose_members_are_not_one_tree_is_refused_beside_the_field(client, bot_factory, members, message):
    # Such zips were stored as pending versions whose check then failed on the worker for good.
    bot = bot_factory()
    client.force_login(bot.owner)
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        for name, data in {"bot.py": GOOD_BOT, **members}.items():
            archive.writestr(name, data)
    response = client.post(f"/bots/{bot.id}/versions/", {"code": SimpleUploadedFile("bot.zip", buffer.getvalue())})
    assert response.status_code == 200
    assert response.context["version_form"].errors["code"]
    assert message in response.content.decode()
    assert bot.versions.count() == 1


def test_only_the_owner_may_upload_versions(client, bot_factory, user_factory):
    bot = bot_factory()
    client.force_login(user_factory())
    response = client.post(f"/bots/{bot.id}/versions/", {"code": SimpleUploadedFile("bot.py", GOOD_BOT)})
    assert response.status_code == 404
    assert bot.versions.count() == 1


def test_signup_logs_in_and_leads_to_the_upload_form(client):
    response = client.post("/accounts/signup/", {"username": "ada", "password": "a-long-passphrase"})
    assert response.status_code == 302 and response.url == reverse("bot-upload")
    assert client.get("/bots/mine/").context["user"].username == "ada"


def test_signup_errors_are_beside_the_field(client, user_factory):
    user_factory(username="taken")
    response = client.post("/accounts/signup/", {"username": "taken", "password": "a-long-passphrase"})
    assert response.status_code == 200
    assert "is taken" in response.context["form"].errors["username"][0]
    weak = client.post("/accounts/signup/", {"username": "bob", "password": "short"})
    assert weak.context["form"].errors["password"]


def test_login_and_logout(client, user_factory):
    user_factory(username="cy")
    response = client.post("/accounts/login/", {"username": "cy", "password": "correct-horse-battery"})
    assert response.status_code == 302 and response.url == reverse("my-bots")
    assert client.post("/accounts/logout/").status_code == 302
    assert client.get("/bots/mine/").status_code == 302  # back to the login page


def test_upload_creates_a_pending_bot_listed_in_my_bots_that_a_worker_accepts(client, user_factory):
    client.force_login(user_factory())
    response = client.post("/bots/new/", {"game": "dice_king", "name": "first-try",
                                          "code": SimpleUploadedFile("bot.py", GOOD_BOT)})
    bot = Bot.objects.get(name="first-try")
    assert response.status_code == 302 and response.url == reverse("bot", args=[bot.id])
    assert bot.versions.get().validation_status == BotVersion.Validation.PENDING
    assert "first-try" in client.get("/bots/mine/").content.decode()
    assert check_pending_uploads() == ["accepted"]
    assert bot.versions.get().validation_status == BotVersion.Validation.ACCEPTED


def test_upload_refuses_a_hostile_name_beside_the_name_field_escaped(client, user_factory):
    client.force_login(user_factory())
    response = client.post("/bots/new/", {"game": "kingdomino", "name": HOSTILE,
                                          "code": SimpleUploadedFile("bot.py", GOOD_BOT)})
    html = response.content.decode()
    assert response.status_code == 200
    assert response.context["form"].errors["name"]
    assert HOSTILE not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert not Bot.objects.exists()


def test_upload_requires_login(client):
    response = client.get("/bots/new/")
    assert response.status_code == 302 and response.url.startswith(reverse("login"))


def test_tournament_page_has_progress_standings_fit_and_crosstable(client, tournament_factory):
    tournament = tournament_factory(bots=4)
    response = client.get(f"/tournaments/{tournament.id}/")
    standings = response.context["standings"]
    assert len(standings) == 4
    assert all(row["rating_low"] < row["rating"] < row["rating_high"] for row in standings)
    assert sum(row["rating"] for row in standings) == pytest.approx(4 * 1500.0)
    assert len(response.context["crosstable"]) == 4
    assert response.context["progress"]["percent"] == 100
    progress = client.get(f"/tournaments/{tournament.id}/progress/").json()
    assert (progress["status"], progress["finished"], progress["total"]) == ("finished", 6, 6)
    assert "tournaments/" in client.get("/tournaments/").content.decode()


def test_a_duplicate_tournament_page_shows_each_deals_points(client, tournament_factory):
    tournament = tournament_factory(bots=2, names=["alpha", "beta"], duplicate=True, games_per_pairing=2)
    response = client.get(f"/tournaments/{tournament.id}/")
    deals = response.context["deals"]
    assert [(row["deal"], row["games"], row["complete"]) for row in deals] == [(0, 2, True), (1, 2, True)]
    # Two rotations of a two-player deal hand out two points between the pair.
    assert all(sum(line["points"] for line in row["bots"]) == 2.0 for row in deals)
    html = response.content.decode()
    assert "2 deals per pairing, each played from every seat" in html
    table = html.split("Results per deal", 1)[1].split("</table>", 1)[0]
    assert table.count("<tr>") == 3 and "alpha" in table and "beta" in table and "2 / 2" in table


def test_a_plain_tournament_page_has_no_deals_table(client, tournament_factory):
    tournament = tournament_factory(bots=2)
    response = client.get(f"/tournaments/{tournament.id}/")
    assert response.context["deals"] == []
    assert "Results per deal" not in response.content.decode()


def test_progress_endpoint_follows_finished_matches(client, tournament_factory):
    from tests.web.conftest import finish_match

    tournament = tournament_factory(bots=3, finish=False)
    url = f"/tournaments/{tournament.id}/progress/"
    assert client.get(url).json()["percent"] == 0
    finish_match(tournament.matches.order_by("index").first().id)
    assert client.get(url).json() | {"estimated_finish": None} == {
        "status": "running", "total": 3, "finished": 1, "failed": 0, "running": 0, "queued": 2, "percent": 33,
        "estimated_finish": None}


@pytest.mark.parametrize("game", ["kingdomino", "draftosaurus", "carcassonne_dice", "dice_king"])
def test_match_page_replays_every_game(client, tournament_factory, game):
    match = tournament_factory(game, bots=2).matches.get()
    last = len(match.actions)
    response = client.get(f"/matches/{match.id}/", {"step": 3})
    html = response.content.decode()
    assert response.context["frame"].step.step == 3
    assert response.context["last_step"] == last
    assert "<svg" in html and 'id="timeline"' in html
    frame = client.get(f"/matches/{match.id}/frame/", {"step": last}).json()
    assert frame["step"]["to_move"] is None and frame["svg"].startswith("<svg")
    assert frame["svg"] != client.get(f"/matches/{match.id}/frame/", {"step": 0}).json()["svg"]


def test_match_timeline_names_actor_action_and_scores(client, tournament_factory):
    match = tournament_factory(bots=2).matches.get()
    timeline = client.get(f"/matches/{match.id}/").context["timeline_json"]
    assert timeline[0]["action"] is None and timeline[0]["actor"] is None
    assert timeline[1]["action"] == json.dumps(match.actions[0], separators=(", ", ": "), sort_keys=True)
    assert timeline[-1]["scores"] == list(match.seats.order_by("position").values_list("score", flat=True))


def test_steps_out_of_range_are_clamped(client, tournament_factory):
    match = tournament_factory(bots=2).matches.get()
    assert client.get(f"/matches/{match.id}/", {"step": 10**6}).context["frame"].step.step == len(match.actions)
    assert client.get(f"/matches/{match.id}/", {"step": "abc"}).context["frame"].step.step == 0


def test_match_logs_only_for_the_owner(client, tournament_factory):
    match = tournament_factory(bots=2).matches.get()
    seat = match.seats.order_by("position").first()
    assert "says" not in client.get(f"/matches/{match.id}/").content.decode()
    client.force_login(seat.bot.owner)
    html = client.get(f"/matches/{match.id}/").content.decode()
    assert f"{seat.bot.name} says &lt;script&gt;" in html
    other = match.seats.order_by("position").last()
    assert f"{other.bot.name} says" not in html


def test_a_match_whose_actions_do_not_fit_shows_them_as_text(client, tournament_factory):
    match = tournament_factory(bots=2).matches.get()
    match.actions = [{"not": "an action"}]
    match.save(update_fields=["actions"])
    response = client.get(f"/matches/{match.id}/")
    assert response.status_code == 200
    assert "does not fit" in response.context["replay_error"]
    assert client.get(f"/matches/{match.id}/frame/", {"step": 1}).status_code == 409


def test_a_hostile_bot_name_is_escaped_on_every_page_and_inside_svg(client, tournament_factory):
    # The upload service refuses such names; a bot renamed by staff could still carry one.
    tournament = tournament_factory(bots=2, names=["plain", "x"], name=HOSTILE)
    Bot.objects.filter(name="x").update(name=HOSTILE)
    bot = Bot.objects.get(name=HOSTILE)
    match = tournament.matches.get()
    client.force_login(bot.owner)
    pages = ["/", "/games/kingdomino/", f"/bots/{bot.id}/", f"/tournaments/{tournament.id}/", "/tournaments/",
             f"/matches/{match.id}/", f"/matches/{match.id}/?step=5", "/bots/mine/"]
    for url in pages:
        html = client.get(url).content.decode()
        assert HOSTILE not in html, url
        assert "<script>alert" not in html, url
    frame = client.get(f"/matches/{match.id}/frame/", {"step": 2}).json()
    assert "<script" not in frame["svg"] and "&lt;script&gt;" in frame["svg"]


def test_a_match_not_yet_played_has_seats_but_no_replay(client, tournament_factory):
    match = tournament_factory(bots=2, finish=False).matches.get()
    response = client.get(f"/matches/{match.id}/")
    assert response.status_code == 200
    assert "frame" not in response.context
    assert "The replay appears once the match has finished." in response.content.decode()
    step = client.get(f"/matches/{match.id}/frame/")
    assert step.status_code == 409 and "once it finished" in step.json()["detail"]


def test_pages_load_scripts_and_styles_only_from_this_site(client, tournament_factory):
    tournament = tournament_factory(bots=2)
    match = tournament.matches.get()
    for url in ("/", "/games/kingdomino/", f"/tournaments/{tournament.id}/", f"/matches/{match.id}/",
                "/accounts/login/", "/accounts/signup/"):
        html = client.get(url).content.decode()
        sources = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', html)
        assert sources and all(source.startswith("/static/") for source in sources), (url, sources)


def test_the_api_docs_linked_from_every_page_are_served(client):
    assert reverse("api-docs") in client.get("/").content.decode()
    assert client.get(reverse("api-docs")).status_code == 200
