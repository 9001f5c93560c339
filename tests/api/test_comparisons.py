"""The comparison routes: create (owner only, validated, within the quota), read (owner and staff only),
list a bot's, and the body a reader polls while the SPRT runs."""

from __future__ import annotations

import pytest

from ladder.models import Comparison, Match
from tests.api.helpers import error_of, token_client
from tests.factories import BotVersionFactory, UserFactory
from tests.ladder.services.tournaments.test_version_comparisons import play, queued

pytestmark = pytest.mark.django_db


@pytest.fixture
def own_bot(auth_client, bot_factory):
    """A bot of ``auth_client``'s user with accepted versions 1 and 2."""
    bot = bot_factory(owner=auth_client.user)
    BotVersionFactory(bot=bot)
    return bot


def create(client, bot, **body):
    return client.post(f"/api/bots/{bot.id}/comparisons/", {"baseline": 1, "candidate": 2, **body}, format="json")


def test_the_owner_starts_a_comparison_and_gets_its_body(auth_client, own_bot, settings):
    settings.COMPARISON_PAIRS_IN_FLIGHT = 3
    response = create(auth_client, own_bot)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["id"] == Comparison.objects.get().id
    assert {key: body[key] for key in ("bot_id", "baseline", "candidate", "opponents", "elo0", "elo1", "alpha",
                                       "beta", "max_games", "status", "verdict", "games", "pairs")} == {
        "bot_id": own_bot.id, "baseline": 1, "candidate": 2, "opponents": [], "elo0": 0.0, "elo1": 20.0,
        "alpha": 0.05, "beta": 0.05, "max_games": settings.COMPARISON_DEFAULT_MAX_GAMES, "status": "running",
        "verdict": None, "games": 0, "pairs": [0, 0, 0, 0, 0]}
    assert body["llr"] == {"value": 0.0, "lower": pytest.approx(-2.944, abs=1e-3),
                           "upper": pytest.approx(2.944, abs=1e-3)}
    assert body["elo"] == {"estimate": None, "low": None, "high": None}
    assert body["llr_history"] == []
    assert body["progress"] == {"scheduled": 6, "queued": 6, "running": 0, "finished": 0, "failed": 0}


def test_the_body_follows_the_pairs_to_the_verdict(auth_client, own_bot, settings):
    settings.COMPARISON_PAIRS_IN_FLIGHT = 2
    comparison_id = create(auth_client, own_bot, elo1=50, max_games=200).json()["id"]
    comparison = Comparison.objects.get(pk=comparison_id)
    first, second = queued(comparison)[:2]
    play(first, winner=comparison.candidate_id)
    play(second, winner=None)
    body = auth_client.get(f"/api/comparisons/{comparison_id}/").json()
    assert (body["games"], body["pairs"], body["status"]) == (2, [0, 0, 0, 1, 0], "running")
    assert len(body["llr_history"]) == 1 and body["llr"]["value"] == body["llr_history"][0] > 0
    # One pair has no spread: the interval collapses to the estimate, which is finite (3/4 per game).
    assert body["elo"]["estimate"] == pytest.approx(190.8, abs=0.1)
    while (comparison := Comparison.objects.get(pk=comparison_id)).status == "running":
        for match in queued(comparison)[:2]:
            play(match, winner=comparison.candidate_id)
    body = auth_client.get(f"/api/comparisons/{comparison_id}/").json()
    assert body["status"] == "done" and body["verdict"] == "better" and body["finished_at"]
    assert body["llr"]["value"] >= body["llr"]["upper"]
    assert body["elo"]["low"] > 0 and body["games"] == 2 * sum(body["pairs"])
    assert body["progress"]["queued"] == 0


def test_others_get_404_and_staff_may_read(auth_client, own_bot, api_client):
    # Named users: the factory reuses a user by name, and other modules may leave staff users behind.
    other_client = token_client(UserFactory(username="stranger-to-comparisons", is_staff=False))
    staff_client = token_client(UserFactory(username="staff-for-comparisons", is_staff=True))
    comparison_id = create(auth_client, own_bot).json()["id"]
    assert other_client.get(f"/api/comparisons/{comparison_id}/").status_code == 404
    assert api_client.get(f"/api/comparisons/{comparison_id}/").status_code == 404
    assert staff_client.get(f"/api/comparisons/{comparison_id}/").status_code == 200
    assert error_of(other_client.get("/api/comparisons/999999/"))["code"] == "not_found"
    refused = create(other_client, own_bot)
    assert refused.status_code == 404 and error_of(refused)["code"] == "not_found"
    assert create(api_client, own_bot).status_code == 401
    assert Comparison.objects.count() == 1


def test_the_owner_lists_the_bots_comparisons_newest_first(auth_client, own_bot, other_client):
    first = create(auth_client, own_bot).json()["id"]
    second = create(auth_client, own_bot, baseline=2, candidate=1, max_games=10).json()["id"]
    listed = auth_client.get(f"/api/bots/{own_bot.id}/comparisons/")
    assert listed.status_code == 200
    assert [row["id"] for row in listed.json()["results"]] == [second, first]
    assert listed.json()["results"][0]["max_games"] == 10
    assert other_client.get(f"/api/bots/{own_bot.id}/comparisons/").status_code == 404


@pytest.mark.parametrize(("body", "field"), [
    ({"baseline": 7}, "baseline"),
    ({"candidate": 1}, "candidate"),
    ({"candidate": "two"}, "candidate"),
    ({"baseline": None}, "baseline"),
    ({"elo0": 5, "elo1": 5}, "elo1"),
    ({"elo1": "NaN"}, "elo1"),
    ({"alpha": 1.5}, "alpha"),
    ({"max_games": 1}, "max_games"),
    ({"max_games": 10**7}, "max_games"),
    ({"opponents": [10**9]}, "opponents"),
    ({"opponents": "all"}, "opponents"),
])
def test_bad_input_is_a_400_naming_the_field(auth_client, own_bot, body, field):
    response = create(auth_client, own_bot, **body)
    assert response.status_code == 400, response.json()
    assert field in error_of(response)["fields"]
    assert not Comparison.objects.exists()


def test_a_version_that_is_not_accepted_is_a_clear_400(auth_client, own_bot):
    BotVersionFactory(bot=own_bot, validation_status="rejected")
    response = create(auth_client, own_bot, candidate=3)
    assert response.status_code == 400
    assert "version 3 of" in error_of(response)["detail"] and "rejected" in error_of(response)["detail"]


def test_past_the_quota_a_429_with_retry_after(auth_client, own_bot, settings):
    settings.UNRATED_MATCHES_PER_DAY = 50
    assert create(auth_client, own_bot, max_games=30).status_code == 201
    refused = create(auth_client, own_bot, max_games=30)
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) >= 1 and error_of(refused)["code"] == "throttled"
    me = auth_client.get("/api/auth/me/").json()
    assert me["quotas"]["unrated_matches"]["used"] == 30


def test_past_the_worker_seconds_a_429_with_retry_after_and_the_rest_is_held(auth_client, own_bot, settings):
    settings.BOTS_MATCH_MS, settings.BOTS_LIMITS_BY_GAME, settings.WORKER_SECONDS_PER_DAY = 30000, {}, 1000
    settings.COMPARISON_PAIRS_IN_FLIGHT = 1
    assert create(auth_client, own_bot, max_games=10).status_code == 201
    # Two matches scheduled, eight held, all at 2 x (5 s + 30 s) + 10 s.
    quota = auth_client.get("/api/auth/me/").json()["quotas"]["worker_seconds"]
    assert (quota["used"], quota["reserved"]) == (800, 800)
    refused = create(auth_client, own_bot, max_games=4)
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "at most 1000 worker seconds per day" in error_of(refused)["detail"]
    too_big = create(auth_client, own_bot, max_games=14)
    assert too_big.status_code == 400 and "max_games" in error_of(too_big)["fields"]
    assert create(auth_client, own_bot, max_games=2).status_code == 201


def test_a_comparisons_match_is_its_owners_unrated_and_names_its_comparison(auth_client, own_bot, api_client):
    comparison_id = create(auth_client, own_bot).json()["id"]
    match = Match.objects.filter(comparison_id=comparison_id).order_by("index").first()
    body = auth_client.get(f"/api/matches/{match.id}/").json()
    assert (body["tournament_id"], body["comparison_id"], body["rated"]) == (None, comparison_id, False)
    assert body["seed"] == match.seed
    assert [seat["version"] for seat in body["seats"]] == [2, 1]
    assert api_client.get(f"/api/matches/{match.id}/").status_code == 404
    assert api_client.get(f"/api/matches/?bot={own_bot.id}").json()["count"] == 0


def test_the_staff_may_read_but_not_start_one_for_another_users_bot(own_bot, staff_client):
    assert create(staff_client, own_bot).status_code == 404



def test_comparisons_share_the_tournaments_rate_limit(auth_client, own_bot, throttle_rates):
    throttle_rates(tournaments="2/hour")
    assert create(auth_client, own_bot, max_games=10).status_code == 201
    assert create(auth_client, own_bot, max_games=10).status_code == 201
    refused = create(auth_client, own_bot, max_games=10)
    assert refused.status_code == 429 and "Retry-After" in refused
    assert "tournaments and comparisons created" in error_of(refused)["detail"]
    assert auth_client.get(f"/api/bots/{own_bot.id}/comparisons/").status_code == 200  # reads pass
