"""A match's decision records on its logs route (owner only), and the bundle to take home: the match as
data, with the code of the requester's own bots."""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json

import pytest

import engines
from ladder.core.limits import sandbox_limits
from ladder.models import Game
from tests.api.helpers import error_of, token_client
from tests.factories import (
    LAST_LEGAL_BOT,
    BotFactory,
    MatchFactory,
    RatedTournamentFactory,
    SeatFactory,
    TournamentFactory,
    UserFactory,
    finished_match,
)


@pytest.fixture
def rival_client(db):
    """A second user with a name of their own (``auth_client``'s factory may hand out ``other_client``'s)."""
    return token_client(UserFactory(username="rival"))


pytestmark = pytest.mark.django_db

MY_DECISIONS = [{"step": 0, "ms": 12, "log": "my plan at step 0\n"}, {"step": 2, "ms": 30, "log": ""}]
THEIR_DECISIONS = [{"step": 1, "ms": 5, "log": "their plan\n"}]


def test_logs_give_the_owners_seats_their_decisions(auth_client, rival_client, staff_client, api_client):
    mine, theirs = BotFactory(owner=auth_client.user), BotFactory(owner=rival_client.user)
    match = finished_match(bots=[mine, theirs], decisions=[MY_DECISIONS, THEIR_DECISIONS])
    seats = auth_client.get(f"/api/matches/{match.id}/logs/").json()["seats"]
    assert [(s["position"], s["decisions"]) for s in seats] == [(0, MY_DECISIONS)]
    assert [s["decisions"] for s in rival_client.get(f"/api/matches/{match.id}/logs/").json()["seats"]] == [
        THEIR_DECISIONS]
    assert [s["decisions"] for s in staff_client.get(f"/api/matches/{match.id}/logs/").json()["seats"]] == [
        MY_DECISIONS, THEIR_DECISIONS]
    assert api_client.get(f"/api/matches/{match.id}/logs/").status_code == 401
    # No public route shows a decision's text.
    for route in (f"/api/matches/{match.id}/", "/api/matches/", f"/api/matches/{match.id}/replay/",
                  f"/api/matches/{match.id}/bundle/"):
        assert b"plan" not in api_client.get(route).content


def test_logs_of_someone_elses_match_stay_404_with_decisions_stored(auth_client):
    match = finished_match(bots=BotFactory.create_batch(2), decisions=[MY_DECISIONS, THEIR_DECISIONS])
    assert auth_client.get(f"/api/matches/{match.id}/logs/").status_code == 404


def _bundle(client, match_id):
    response = client.get(f"/api/matches/{match_id}/bundle/")
    assert response.status_code == 200, response.content
    assert response["Content-Disposition"] == f'attachment; filename="match-{match_id}.json"'
    return json.loads(response.content)


def test_the_bundle_is_the_match_as_data_with_the_requesters_own_code(auth_client, rival_client, api_client):
    mine = BotFactory(owner=auth_client.user, code=LAST_LEGAL_BOT)
    theirs = BotFactory(owner=rival_client.user)
    match = finished_match(bots=[mine, theirs])
    bundle = _bundle(auth_client, match.id)
    game = engines.get("kingdomino")
    assert bundle["format"] == "bot-ladder-match" and bundle["format_version"] == 1
    assert (bundle["match"], bundle["game"], bundle["rules_version"], bundle["players"], bundle["seed"]) == (
        match.id, "kingdomino", game.rules_version, 2, match.seed)
    assert bundle["options"] == match.options and bundle["actions"] == match.actions
    # Every limit the match was played under, whole (a match stored without them: the settings').
    assert bundle["limits"] == dataclasses.asdict(sandbox_limits(game="kingdomino", overrides=match.limits))
    seats = bundle["seats"]
    assert [(s["position"], s["bot"], s["bot_id"], s["version"], s["outcome"]) for s in seats] == [
        (0, mine.name, mine.id, 1, "ok"), (1, theirs.name, theirs.id, 1, "ok")]
    assert [s["score"] for s in seats] == [seat.score for seat in match.seats.order_by("position")]
    assert seats[0]["code"] == {"kind": "py", "sha256": hashlib.sha256(LAST_LEGAL_BOT).hexdigest(),
                                "base64": base64.b64encode(LAST_LEGAL_BOT).decode()}
    assert seats[1]["code"] is None
    # The other owner gets their own code and not mine; a visitor gets none.
    assert [s["code"] is None for s in _bundle(rival_client, match.id)["seats"]] == [True, False]
    anonymous = _bundle(api_client, match.id)
    assert [s["code"] for s in anonymous["seats"]] == [None, None]
    assert anonymous["actions"] == match.actions


def test_a_bundle_costs_three_queries_after_the_token(auth_client, django_assert_num_queries):
    match = finished_match(bots=[BotFactory(owner=auth_client.user), *BotFactory.create_batch(3)])
    with django_assert_num_queries(4):
        assert len(_bundle(auth_client, match.id)["seats"]) == 4


def test_staff_bundles_carry_every_seats_code(staff_client):
    match = finished_match(bots=BotFactory.create_batch(2))
    assert all(s["code"]["kind"] == "py" for s in _bundle(staff_client, match.id)["seats"])


def test_no_bundle_before_the_match_finished(auth_client, api_client):
    mine = BotFactory(owner=auth_client.user)
    match = MatchFactory(tournament=RatedTournamentFactory(game=mine.game, bots=[mine]))
    SeatFactory(match=match, position=0, bot=mine)
    response = auth_client.get(f"/api/matches/{match.id}/bundle/")
    assert response.status_code == 409
    body = error_of(response)
    assert body["code"] == "conflict" and "queued" in body["detail"] and "once it finished" in body["detail"]
    assert api_client.get("/api/matches/999999/bundle/").status_code == 404


def test_a_rated_deals_rotation_has_no_bundle_until_its_tournament_finished(api_client):
    bots = BotFactory.create_batch(2)
    tournament = RatedTournamentFactory(game=bots[0].game, bots=bots, duplicate=True)
    # Its next rotation (a later index), still queued, shares the seed.
    MatchFactory(tournament=tournament, deal=0, seed=77, index=10**6)
    match = finished_match(bots=bots, tournament=tournament, deal=0, seed=77)
    response = api_client.get(f"/api/matches/{match.id}/bundle/")
    assert response.status_code == 409
    assert "secret seed" in error_of(response)["detail"]


def test_an_unrated_matchs_bundle_has_its_chosen_seed(api_client):
    bots = BotFactory.create_batch(2)
    tournament = TournamentFactory(game=Game.objects.get(slug="kingdomino"), seed=5)
    match = finished_match(bots=bots, tournament=tournament)
    assert _bundle(api_client, match.id)["seed"] == match.seed
