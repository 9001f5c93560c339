"""The bulk export of a game's history (``GET /api/exports/{game}/matches/``): finished public matches only,
in id order, one JSON object per line with what replays it; resumable with ``after``; the same for every
reader; hostile input refused with a 400 or a 404; memory bounded by chunks, not by the history."""

from __future__ import annotations

import json

import pytest

import engines
from ladder.models import Match
from ladder.selectors import exports
from ladder.services.tournaments.comparisons import comparison_create
from tests.api.helpers import error_of, token_client
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    MatchFactory,
    RatedTournamentFactory,
    StaffFactory,
    TournamentFactory,
    finished_match,
)
from tests.ladder.services.tournaments.test_version_comparisons import play, queued

pytestmark = pytest.mark.django_db


def exported(client, game: str = "kingdomino", query: str = "") -> list[dict]:
    response = client.get(f"/api/exports/{game}/matches/{query}")
    assert response.status_code == 200, response.content[:300]
    assert response["Content-Type"] == "application/x-ndjson" and response.streaming
    body = b"".join(response.streaming_content)
    assert body == b"" or body.endswith(b"\n")
    return [json.loads(line) for line in body.splitlines()]


@pytest.fixture
def history(db):
    """Finished matches of a rated and an unrated round robin, one still queued, a comparison's finished
    game, and a rotation of a rated duplicate deal whose tournament still plays."""
    bots = BotFactory.create_batch(2)
    BotVersionFactory(bot=bots[0])
    rated = [finished_match(bots=bots) for _ in range(2)]
    unrated = finished_match(bots=bots[::-1], tournament=TournamentFactory(bots=bots))
    MatchFactory(tournament=unrated.tournament)
    comparison = comparison_create(user=bots[0].owner, bot_id=bots[0].id, baseline=1, candidate=2, max_games=10)
    compared = queued(comparison)[0]
    assert play(compared, winner=comparison.candidate_id)
    duplicate = RatedTournamentFactory(game=bots[0].game, bots=bots, duplicate=True)
    MatchFactory(tournament=duplicate, deal=0, seed=77, index=10**6)
    secret = finished_match(bots=bots, tournament=duplicate, deal=0, seed=77)
    return {"bots": bots, "public": sorted([m.id for m in rated] + [unrated.id]), "comparison": compared.id,
            "secret": secret}


def test_the_export_holds_each_finished_public_match_once_in_id_order(history, api_client):
    lines = exported(api_client)
    assert [line["id"] for line in lines] == history["public"]
    assert history["comparison"] not in {line["id"] for line in lines}
    first = lines[0]
    assert set(first) == {"id", "game", "rules_version", "tournament_id", "rated", "deal", "players", "seed",
                          "options", "finished_at", "seats", "actions"}
    match = Match.objects.get(pk=first["id"])
    assert (first["game"], first["seed"], first["options"], first["rules_version"], first["rated"]) == (
        "kingdomino", match.seed, match.options, match.rules_version, True)
    assert [set(seat) for seat in first["seats"]] == [
        {"position", "bot", "bot_id", "version", "owner", "score", "place", "outcome"}] * 2
    assert first["seats"][0]["owner"] == history["bots"][0].owner.username


def test_an_exported_match_replays_to_its_scores_with_the_engine(history, api_client):
    for line in exported(api_client):
        state = engines.get(line["game"]).new_state(line["players"], line["seed"], line["options"])
        for action in line["actions"]:
            state.apply(action)
        assert state.is_terminal()
        assert state.scores() == [seat["score"] for seat in line["seats"]]


def test_a_rated_deals_rotation_is_exported_once_its_tournament_finished(history, api_client):
    secret = history["secret"]
    assert secret.id not in {line["id"] for line in exported(api_client)}
    secret.tournament.matches.exclude(pk=secret.pk).delete()
    type(secret.tournament).objects.filter(pk=secret.tournament_id).update(status="finished",
                                                                          finished_at=secret.finished_at)
    lines = exported(api_client, query=f"?after={secret.id - 1}")
    assert [(line["id"], line["seed"]) for line in lines] == [(secret.id, 77)]


def test_after_resumes_and_every_reader_gets_the_same_lines(history, api_client):
    public = history["public"]
    assert [line["id"] for line in exported(api_client, query=f"?after={public[0]}")] == public[1:]
    assert exported(api_client, query=f"?after={public[-1]}") == []
    owner = token_client(history["bots"][0].owner)
    staff = token_client(StaffFactory())
    assert exported(owner) == exported(staff) == exported(api_client)


def test_the_export_reads_in_chunks_until_the_history_ends(history, api_client, monkeypatch,
                                                           django_assert_num_queries):
    monkeypatch.setattr(exports, "EXPORT_CHUNK", 1)
    game = exports.export_game_get(slug="kingdomino")
    # Two queries (matches, seats) per chunk of one, and one that finds the end: 3 * 2 + 1 after the game.
    with django_assert_num_queries(7):
        assert [m["id"] for m in exports.exported_matches(game=game, chunk=1)] == history["public"]


def test_a_response_holds_at_most_its_limit_and_says_so(history, api_client, settings):
    settings.EXPORT_MATCHES_PER_RESPONSE = 2
    public = history["public"]
    response = api_client.get("/api/exports/kingdomino/matches/")
    assert response["X-Export-Limit"] == "2"
    assert [line["id"] for line in exported(api_client)] == public[:2]
    # As many lines as the limit: the client asks again after the last, and fewer lines end the history.
    assert [line["id"] for line in exported(api_client, query=f"?after={public[1]}")] == public[2:]
    assert [line["id"] for line in exported(api_client, query="?limit=1")] == public[:1]
    response = api_client.get("/api/exports/kingdomino/matches/?limit=3")
    assert response.status_code == 400 and "at most 2 matches a response" in error_of(response)["fields"]["limit"][0]


@pytest.mark.parametrize(("query", "field"), [
    ("?after=x", "after"), ("?after=-1", "after"), (f"?after={1 << 63}", "after"), ("?after=1.5", "after"),
    ("?limit=0", "limit"), ("?limit=many", "limit")])
def test_a_bad_after_or_limit_is_a_400_naming_it(api_client, query, field):
    response = api_client.get(f"/api/exports/kingdomino/matches/{query}")
    assert response.status_code == 400
    assert field in error_of(response)["fields"]


def test_an_unknown_game_is_a_404(api_client):
    response = api_client.get("/api/exports/chess/matches/")
    assert response.status_code == 404 and "chess" in error_of(response)["detail"]
    assert api_client.get("/api/exports/../matches/").status_code == 404


def test_exports_are_throttled_per_reader_with_the_wait(api_client, auth_client, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "exports": "2/hour"}}
    for _ in range(2):
        assert exported(api_client) == []
    response = api_client.get("/api/exports/kingdomino/matches/")
    assert response.status_code == 429 and int(response["Retry-After"]) > 3500
    body = error_of(response)
    assert body["code"] == "throttled" and "too many exports: at most 2 per hour" in body["detail"]
    # Another reader (a user, counted by account) has exports of their own left.
    assert exported(auth_client) == []
