"""Rated and unrated play through the API: who may start a rated tournament, secret seeds of rated matches
until they finished (match detail, match lists, tournament detail, the ladder's tournament), and the
quotas a user can read in GET /api/auth/me/ and is refused past with 429 and Retry-After."""

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from bots.referee import MatchResult, SeatResult
from ladder.models import Match
from ladder.services.play.matches import match_claim, match_record_result
from ladder.services.tournaments.ladder import ladder_tick, ladder_tournament_get
from ladder.services.tournaments.round_robins import tournament_create
from ladder.services.tournaments.scheduling import derive_seed
from tests.api.helpers import error_of, upload
from tests.factories import BotFactory, StaffFactory

pytestmark = pytest.mark.django_db


def create(client, **changes):
    payload = {"game": "kingdomino", "name": "cup", "players_per_match": 2, **changes}
    return client.post("/api/tournaments/", payload, format="json")


def rated_tournament(bots, **changes):
    return tournament_create(created_by=StaffFactory(), game_slug="kingdomino", name="rated cup",
                             bot_ids=[b.id for b in bots], players_per_match=2, rated=True, **changes)


def finish(match_id: int, claim=None) -> None:
    claim = claim or match_claim(match_id=match_id)
    result = MatchResult(
        game=claim.game, players=claim.players, seed=claim.seed, options=claim.options, actions=[],
        seats=[SeatResult(bot=s.bot_name, score=0, place=i + 1, outcome="ok", reason="", time_used_ms=1, log="")
               for i, s in enumerate(claim.seats)],
        duration_s=0.1,
    )
    assert match_record_result(match_id=match_id, token=claim.token, result=result)


def api_pages(match: Match) -> list[str]:
    """Every API address that shows something of ``match`` or its tournament."""
    bot_id = match.seats.first().bot_id
    return [
        f"/api/matches/{match.id}/", "/api/matches/", f"/api/matches/?tournament={match.tournament_id}",
        f"/api/matches/?status={match.status}", f"/api/matches/?bot={bot_id}", f"/api/matches/{match.id}/replay/",
        f"/api/tournaments/{match.tournament_id}/", "/api/tournaments/", "/api/tournaments/?kind=ladder",
        f"/api/tournaments/{match.tournament_id}/standings/", f"/api/tournaments/{match.tournament_id}/crosstable/",
        f"/api/bots/{bot_id}/", f"/api/bots/{bot_id}/ratings/", "/api/leaderboards/kingdomino/",
    ]


def assert_no_secret(client, matches) -> None:
    """No API page shows the seed of any of ``matches`` (all rated and not finished), nor a replay."""
    for match in matches:
        for address in api_pages(match):
            response = client.get(address)
            assert response.status_code in (200, 409), (address, response.status_code)
            text = response.content.decode()
            for other in matches:
                assert str(other.seed) not in text, (address, other.id)
        replay = client.get(f"/api/matches/{match.id}/replay/")
        assert replay.status_code == 409 and "frames" not in replay.json()


def test_a_rated_match_shows_its_seed_only_once_it_finished(api_client):
    bots = BotFactory.create_batch(2)
    tournament = rated_tournament(bots, games_per_pairing=2)
    queued, running = tournament.matches.order_by("index")
    claim = match_claim(match_id=running.id)
    running.refresh_from_db()
    assert running.status == "running"
    assert_no_secret(api_client, [queued, running])

    detail = api_client.get(f"/api/matches/{queued.id}/").json()
    assert detail["rated"] is True and detail["seed"] is None
    listed = api_client.get(f"/api/matches/?tournament={tournament.id}").json()["results"]
    assert [row["seed"] for row in listed] == [None, None]
    body = api_client.get(f"/api/tournaments/{tournament.id}/").json()
    assert body["rated"] is True and body["seed"] is None

    finish(running.id, claim)
    shown = api_client.get(f"/api/matches/{running.id}/").json()
    assert shown["status"] == "finished" and shown["seed"] == running.seed
    assert api_client.get(f"/api/matches/{running.id}/replay/").status_code == 200
    assert api_client.get(f"/api/matches/{queued.id}/").json()["seed"] is None


def test_the_ladders_tournament_shows_no_seed_and_its_waiting_matches_none(api_client):
    BotFactory.create_batch(4)
    ladder_tick(matches_per_game=2)
    ladder = ladder_tournament_get(game=Match.objects.first().game)
    matches = list(ladder.matches.all())
    assert len(matches) == 2
    assert_no_secret(api_client, matches)
    body = api_client.get(f"/api/tournaments/{ladder.id}/").json()
    assert body["kind"] == "ladder" and body["rated"] is True and body["seed"] is None
    listed = api_client.get("/api/tournaments/?kind=ladder").json()["results"]
    assert [(row["id"], row["seed"]) for row in listed] == [(ladder.id, None)]


def test_an_unrated_matchs_seed_is_public_from_the_start(api_client, auth_client):
    bots = BotFactory.create_batch(2)
    created = create(auth_client, bots=[b.id for b in bots], seed=11)
    assert created.status_code == 201
    assert created.json()["rated"] is False and created.json()["seed"] == 11
    match = Match.objects.get(tournament_id=created.json()["id"])
    detail = api_client.get(f"/api/matches/{match.id}/").json()
    assert (detail["rated"], detail["status"], detail["seed"]) == (False, "queued", derive_seed(11, 0))
    rated = rated_tournament(bots)
    assert [row["id"] for row in api_client.get("/api/matches/?rated=false").json()["results"]] == [match.id]
    assert [row["id"] for row in api_client.get("/api/matches/?rated=true").json()["results"]] == [
        rated.matches.get().id]
    assert [row["id"] for row in api_client.get("/api/tournaments/?rated=true").json()["results"]] == [rated.id]


def test_only_staff_start_rated_tournaments_and_without_a_seed(auth_client, staff_client):
    bot_ids = [b.id for b in BotFactory.create_batch(2)]
    refused = create(auth_client, bots=bot_ids, rated=True)
    assert refused.status_code == 403
    body = error_of(refused)
    assert "only staff may start a rated tournament" in body["detail"] and body["fields"] == {
        "rated": [body["detail"]]}
    seeded = create(staff_client, bots=bot_ids, rated=True, seed=11)
    assert seeded.status_code == 400
    assert "a rated tournament has no chosen seed" in error_of(seeded)["fields"]["seed"][0]
    made = create(staff_client, bots=bot_ids, rated=True)
    assert made.status_code == 201
    assert (made.json()["rated"], made.json()["seed"]) == (True, None)


def test_past_the_daily_quota_of_unrated_matches_the_answer_is_429_with_retry_after(auth_client, settings):
    settings.UNRATED_MATCHES_PER_DAY = 3
    bot_ids = [b.id for b in BotFactory.create_batch(2)]
    assert create(auth_client, bots=bot_ids, games_per_pairing=2).status_code == 201
    quota = auth_client.get("/api/auth/me/").json()["quotas"]["unrated_matches"]
    assert {key: quota[key] for key in ("limit", "period", "used", "left")} == {
        "limit": 3, "period": "day", "used": 2, "left": 1}
    assert 86_000 < quota["frees_in_s"] <= 86_400
    refused = create(auth_client, bots=bot_ids, games_per_pairing=2)
    assert refused.status_code == 429
    body = error_of(refused)
    assert body["code"] == "throttled"
    assert "at most 3 matches per day in unrated tournaments" in body["detail"]
    assert 86_000 < int(refused["Retry-After"]) <= 86_400
    assert f"try again in {refused['Retry-After']} seconds" in body["detail"]
    assert Match.objects.count() == 2


def test_me_shows_the_worker_seconds_reserved_then_settled_at_what_the_matches_took(auth_client, settings):
    settings.BOTS_MATCH_MS, settings.BOTS_LIMITS_BY_GAME, settings.WORKER_SECONDS_PER_DAY = 30000, {}, 10000
    bot_ids = [b.id for b in BotFactory.create_batch(2)]
    before = auth_client.get("/api/auth/me/").json()["quotas"]["worker_seconds"]
    assert before == {"limit": 10000, "period": "day", "used": 0, "left": 10000, "reserved": 0, "frees_in_s": None}
    made = create(auth_client, bots=bot_ids, games_per_pairing=2)
    assert made.status_code == 201
    # Each two-player match reserves 2 x (5 s start + 30 s match) + 10 s until it is played.
    quota = auth_client.get("/api/auth/me/").json()["quotas"]["worker_seconds"]
    assert (quota["used"], quota["reserved"], quota["left"]) == (160, 160, 9840)
    for match_id in Match.objects.filter(tournament_id=made.json()["id"]).values_list("id", flat=True):
        finish(match_id)
    quota = auth_client.get("/api/auth/me/").json()["quotas"]["worker_seconds"]
    assert (quota["used"], quota["reserved"], quota["left"]) == (1, 0, 9999)  # 2 x 0.1 s, rounded up
    assert 86_000 < quota["frees_in_s"] <= 86_400


def test_past_the_daily_worker_seconds_the_answer_is_429_with_retry_after(auth_client, settings):
    settings.BOTS_MATCH_MS, settings.BOTS_LIMITS_BY_GAME, settings.WORKER_SECONDS_PER_DAY = 30000, {}, 200
    bot_ids = [b.id for b in BotFactory.create_batch(2)]
    assert create(auth_client, bots=bot_ids, games_per_pairing=2).status_code == 201
    refused = create(auth_client, bots=bot_ids)
    assert refused.status_code == 429
    body = error_of(refused)
    assert body["code"] == "throttled"
    assert "at most 200 worker seconds per day in unrated tournaments and comparisons" in body["detail"]
    assert refused["Retry-After"] == "60" and "try again in 60 seconds" in body["detail"]
    too_big = create(auth_client, bots=bot_ids, games_per_pairing=3)
    assert too_big.status_code == 400 and "games_per_pairing" in error_of(too_big)["fields"]
    # Tighter limits reserve less: 2 x (5 s + 0.1 s) + 10 s = 20.2 s fits in the 40 s left.
    assert create(auth_client, bots=bot_ids, limits={"match_ms": 100}).status_code == 201
    assert Match.objects.count() == 3


def test_staff_have_no_worker_seconds_quota(staff_client, settings):
    settings.WORKER_SECONDS_PER_DAY = 100
    assert staff_client.get("/api/auth/me/").json()["quotas"]["worker_seconds"] is None
    bot_ids = [b.id for b in BotFactory.create_batch(2)]
    assert create(staff_client, bots=bot_ids, games_per_pairing=3).status_code == 201


def test_me_shows_the_upload_limit_and_what_is_used(auth_client, throttle_rates):
    throttle_rates(uploads="2/hour")
    before = auth_client.get("/api/auth/me/").json()["quotas"]["uploads"]
    assert before == {"limit": 2, "period": "hour", "used": 0, "left": 2, "frees_in_s": None}
    assert upload(auth_client, name="first").status_code == 202
    after = auth_client.get("/api/auth/me/").json()["quotas"]["uploads"]
    assert (after["used"], after["left"]) == (1, 1) and 3500 < after["frees_in_s"] <= 3600
    assert upload(auth_client, name="second").status_code == 202
    refused = auth_client.post("/api/bots/", {"game": "kingdomino", "name": "third",
                                              "code": SimpleUploadedFile("bot.py", b"x = 1\n")}, format="multipart")
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "too many uploads: at most 2 per hour" in error_of(refused)["detail"]
