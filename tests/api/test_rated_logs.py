"""The logs and decisions of a rated match stay hidden, from its bots' owners and from staff alike, for as
long as its seed does (``rated_play.match_seed_visible``): a rotation of a rated duplicate deal until its
tournament finished (what a bot printed in one rotation, its dominoes or dice, is the deal its other
rotations still play), any other rated match until it finished. The answer is a 409 that says when they
become readable; an unrated match's logs are readable as before."""

from __future__ import annotations

import pytest
from django.utils import timezone

from ladder.models import Match, Tournament
from ladder.services.play.matches import match_claim
from tests.api.helpers import error_of, token_client
from tests.factories import (
    BotFactory,
    MatchFactory,
    RatedTournamentFactory,
    SeatFactory,
    StaffFactory,
    TournamentFactory,
    finished_match,
)
from tests.ladder.services.tournaments.test_version_comparisons import play

pytestmark = pytest.mark.django_db

DEAL_LINE = "dominoes this round: 12 31 7 44\n"
DECISIONS = [{"step": 0, "ms": 9, "log": DEAL_LINE}]


@pytest.fixture
def rotation():
    """A rated duplicate round robin whose deal 0 has one rotation finished (its bots printed the deal)
    and the other still queued."""
    bots = BotFactory.create_batch(2)
    tournament = RatedTournamentFactory(game=bots[0].game, bots=bots, duplicate=True)
    # The next rotation (a later index) waits queued: rotations of a rated deal play one after another.
    sibling = MatchFactory(tournament=tournament, deal=0, seed=77, index=10**6)
    for position, bot in enumerate(reversed(bots)):
        SeatFactory(match=sibling, position=position, bot=bot)
    match = finished_match(bots=bots, tournament=tournament, deal=0, seed=77, logs=[DEAL_LINE, DEAL_LINE],
                           decisions=[DECISIONS, DECISIONS], outcomes=["bad_output", "ok"])
    return {"bots": bots, "tournament": tournament, "match": match, "sibling": sibling}


def readers(bots) -> dict:
    return {"owner": token_client(bots[0].owner), "staff": token_client(StaffFactory())}


def test_a_finished_rotations_logs_stay_hidden_from_everyone_until_its_tournament_finished(rotation):
    match, tournament = rotation["match"], rotation["tournament"]
    for who, client in readers(rotation["bots"]).items():
        response = client.get(f"/api/matches/{match.id}/logs/")
        assert response.status_code == 409, (who, response.content[:300])
        body = error_of(response)
        assert body["code"] == "conflict" and DEAL_LINE not in response.content.decode()
        assert f"until tournament {tournament.id} finished" in body["detail"], who
        assert f"GET /api/tournaments/{tournament.id}/" in body["detail"]
        # The bundle, which would carry what the logs show, waits as well.
        assert client.get(f"/api/matches/{match.id}/bundle/").status_code == 409, who

    assert play(Match.objects.get(pk=rotation["sibling"].pk), winner=None)
    assert Tournament.objects.get(pk=tournament.pk).status == Tournament.Status.FINISHED
    for who, client in readers(rotation["bots"]).items():
        seats = client.get(f"/api/matches/{match.id}/logs/").json()["seats"]
        assert seats and all(seat["log"] == DEAL_LINE and seat["decisions"] == DECISIONS for seat in seats), who
        assert client.get(f"/api/matches/{match.id}/bundle/").status_code == 200, who


def test_who_may_read_no_logs_still_gets_the_404_first(rotation):
    stranger = token_client(BotFactory().owner)
    response = stranger.get(f"/api/matches/{rotation['match'].id}/logs/")
    assert response.status_code == 404


def test_a_rated_match_still_playing_shows_no_logs_and_says_when_they_come(api_client):
    bots = BotFactory.create_batch(2)
    match = MatchFactory(tournament=RatedTournamentFactory(game=bots[0].game, bots=bots), seed=5)
    for position, bot in enumerate(bots):
        SeatFactory(match=match, position=position, bot=bot)
    assert match_claim(match_id=match.pk, worker="tests") is not None  # running now
    response = token_client(bots[0].owner).get(f"/api/matches/{match.id}/logs/")
    assert response.status_code == 409
    assert "once it finished" in error_of(response)["detail"]


def test_a_rated_match_outside_a_deal_shows_its_logs_once_it_finished():
    bots = BotFactory.create_batch(2)
    match = finished_match(bots=bots, logs=["mine\n", "theirs\n"])  # a rated round robin, no deal
    assert match.tournament.rated and match.tournament.status == Tournament.Status.FINISHED
    seats = token_client(bots[0].owner).get(f"/api/matches/{match.id}/logs/").json()["seats"]
    assert [seat["log"] for seat in seats] == ["mine\n"]


def test_an_unrated_match_shows_its_logs_while_its_tournament_runs():
    bots = BotFactory.create_batch(2)
    tournament = TournamentFactory(game=bots[0].game, bots=bots, duplicate=True)
    MatchFactory(tournament=tournament, deal=0, seed=3)
    match = finished_match(bots=bots, tournament=tournament, deal=0, seed=3, logs=["mine\n", "theirs\n"])
    seats = token_client(bots[0].owner).get(f"/api/matches/{match.id}/logs/").json()["seats"]
    assert [seat["log"] for seat in seats] == ["mine\n"]


def test_a_finished_rotations_forfeit_reason_stays_hidden_with_its_logs(rotation, api_client, client):
    # A reason may quote what the bot sent; a bot could forfeit on purpose to show the deal there.
    match, tournament = rotation["match"], rotation["tournament"]
    seat = match.seats.get(position=0)
    assert seat.reason == "bad_output on move 1"
    withheld = f"(withheld until tournament {tournament.id} finished)"
    detail = api_client.get(f"/api/matches/{match.id}/").json()
    assert [s["reason"] for s in detail["seats"]] == [withheld, ""]
    listed = api_client.get(f"/api/matches/?tournament={tournament.id}").json()["results"]
    assert seat.reason not in str(listed)
    page = client.get(f"/matches/{match.id}/").content.decode()
    assert seat.reason not in page and withheld in page
    Tournament.objects.filter(pk=tournament.pk).update(status=Tournament.Status.FINISHED,
                                                       finished_at=timezone.now())
    detail = api_client.get(f"/api/matches/{match.id}/").json()
    assert detail["seats"][0]["reason"] == "bad_output on move 1"
