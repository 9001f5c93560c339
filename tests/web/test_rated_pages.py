"""The site on rated and unrated play: no page shows the seed of a rated match that is not finished (match
pages, match lists, tournament pages, the ladder's tournament), the pages say which games are rated and
why, and an upload past the hourly limit is a 429 with Retry-After."""

import pytest
from django.core.cache import cache
from django.core.files.uploadedfile import SimpleUploadedFile

from ladder.models import Match
from ladder.services.play.matches import match_claim
from ladder.services.tournaments.ladder import ladder_tick, ladder_tournament_get
from tests.factories import FIRST_LEGAL_BOT
from tests.web.conftest import finish_match

pytestmark = pytest.mark.django_db


def site_pages(match: Match) -> list[str]:
    bot_id = match.seats.first().bot_id
    return ["/", f"/games/{match.game.slug}/", "/tournaments/", f"/tournaments/{match.tournament_id}/",
            f"/tournaments/{match.tournament_id}/progress/", f"/matches/{match.id}/", f"/bots/{bot_id}/"]


def assert_no_secret(client, matches) -> None:
    for match in matches:
        for address in site_pages(match):
            response = client.get(address)
            assert response.status_code == 200, address
            for other in matches:
                assert str(other.seed) not in response.content.decode(), (address, other.id)
        page = client.get(f"/matches/{match.id}/")
        assert "seed secret until the match finished" in page.content.decode()
        assert "frame" not in page.context
        # The opening position derives from the seed: no frame of it either, the API's answer for its replay.
        assert client.get(f"/matches/{match.id}/frame/", {"step": 0}).status_code == 409


def test_no_page_shows_a_rated_matchs_seed_before_it_finished(client, tournament_factory):
    tournament = tournament_factory(bots=3, rated=True, finish=False)
    first, second, *rest = tournament.matches.order_by("index")
    match_claim(match_id=second.id)
    finish_match(rest[0].id)  # a finished one among them: its seed may be shown
    assert_no_secret(client, [first, Match.objects.get(id=second.id)])
    finished = Match.objects.get(id=rest[0].id)
    assert f"seed {finished.seed}" in client.get(f"/matches/{finished.id}/").content.decode()
    page = client.get(f"/tournaments/{tournament.id}/").content.decode()
    assert "<strong>Rated:</strong>" in page and "· seed" not in page


def test_the_ladders_page_shows_no_seed_and_says_why(client, bot_factory):
    for _ in range(4):
        bot_factory()
    ladder_tick(matches_per_game=2)
    ladder = ladder_tournament_get(game=Match.objects.first().game)
    assert_no_secret(client, list(ladder.matches.all()))
    page = client.get(f"/tournaments/{ladder.id}/").content.decode()
    assert "the server chose these games, so they move the" in page


def test_an_unrated_round_robin_shows_its_seed_and_that_it_leaves_the_leaderboard_alone(client,
                                                                                        tournament_factory):
    tournament = tournament_factory(bots=2, seed=4242, finish=False)
    page = client.get(f"/tournaments/{tournament.id}/").content.decode()
    assert "seed 4242" in page and "<strong>Unrated:</strong>" in page and "leaves the leaderboard alone" in page
    match = tournament.matches.get()
    assert f"seed {match.seed}" in client.get(f"/matches/{match.id}/").content.decode()


def test_the_leaderboard_says_which_games_are_rated(client, bot_factory):
    bot_factory()
    page = client.get("/games/kingdomino/").content.decode()
    assert "Only rated games move this leaderboard" in page and "Round robins that users start are unrated" in page


def test_uploads_on_the_site_share_the_apis_hourly_limit(client, user_factory, settings):
    cache.clear()
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "uploads": "1/hour"}}
    client.force_login(user_factory())
    first = client.post("/bots/new/", {"game": "kingdomino", "name": "one",
                                       "code": SimpleUploadedFile("bot.py", FIRST_LEGAL_BOT)})
    assert first.status_code == 302
    second = client.post("/bots/new/", {"game": "kingdomino", "name": "two",
                                        "code": SimpleUploadedFile("bot.py", FIRST_LEGAL_BOT)})
    assert second.status_code == 429 and 3500 < int(second["Retry-After"]) <= 3600
    assert "too many uploads: at most 1 per hour" in second.content.decode()
    cache.clear()


def test_the_admin_keeps_a_rated_matchs_seed_secret_and_refuses_a_rated_seed(client, tournament_factory):
    from tests.factories import StaffFactory

    staff = StaffFactory(is_superuser=True)
    client.force_login(staff)
    match = tournament_factory(bots=2, rated=True, finish=False).matches.get()
    page = client.get(f"/admin/ladder/match/{match.id}/change/")
    assert page.status_code == 200
    assert str(match.seed) not in page.content.decode()
    assert "secret until the match finished" in page.content.decode()

    bot_ids = [seat.bot_id for seat in match.seats.all()]
    form = {"game": match.game_id, "name": "staff cup", "kind": "round_robin", "status": "running",
            "players_per_match": 2, "games_per_pairing": 1, "options": "{}", "limits": "{}", "bots": bot_ids,
            "rated": "on", "seed": "11"}
    refused = client.post("/admin/ladder/tournament/add/", form)
    assert refused.status_code == 200
    assert "a rated tournament has no chosen seed" in refused.content.decode()
    assert not type(match.tournament).objects.filter(name="staff cup").exists()


def test_a_rated_deals_finished_rotation_keeps_the_shared_seed_and_replay_secret_until_the_tournament_finished(
        client, api_client, tournament_factory):
    tournament = tournament_factory(bots=2, rated=True, finish=False, duplicate=True)
    first, second = tournament.matches.order_by("index")
    assert first.deal == second.deal == 0 and first.seed == second.seed
    finish_match(first.id)
    page = client.get(f"/matches/{first.id}/")
    html = page.content.decode()
    assert str(first.seed) not in html and "seed secret until the tournament finished (deal 0)" in html
    assert "frame" not in page.context
    step = client.get(f"/matches/{first.id}/frame/", {"step": 0})
    assert step.status_code == 409 and "once its tournament finished" in step.json()["detail"]
    assert api_client.get(f"/api/matches/{first.id}/").json()["seed"] is None
    refused = api_client.get(f"/api/matches/{first.id}/replay/")
    assert refused.status_code == 409 and refused.json()["detail"] == step.json()["detail"]

    finish_match(second.id)
    assert api_client.get(f"/api/matches/{first.id}/").json()["seed"] == first.seed
    assert api_client.get(f"/api/matches/{first.id}/replay/").status_code == 200
    page = client.get(f"/matches/{first.id}/")
    assert str(first.seed) in page.content.decode() and "frame" in page.context
