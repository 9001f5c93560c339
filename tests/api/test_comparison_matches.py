"""A version comparison's matches are as private as the comparison: its owner and staff see them (list,
detail, replay, logs, bundle); anyone else, the owner of an opponent bot included, gets the 404 of a match
that does not exist. The match list's filters say what they mean: ``?bot=`` lists a match once however
many of its seats the bot holds, and ``?rated=false`` lists every unrated match, a comparison's among them.
A comparison's games are no part of a bot's public record (head-to-head)."""

from __future__ import annotations

import pytest

from ladder.models import Match
from ladder.services.tournaments.comparisons import comparison_create
from tests.api.helpers import error_of, token_client
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    StaffFactory,
    TournamentFactory,
    UserFactory,
    finished_match,
)
from tests.ladder.services.tournaments.test_version_comparisons import play, queued

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(db):
    """``owner``'s bot with versions 1 and 2 compared against each other and against ``rival``'s bot;
    the first game of each pair kind finished, the rest queued; and an unrated and a rated tournament
    match of the same bot."""
    owner, rival = UserFactory(), UserFactory()
    bot = BotFactory(owner=owner)
    BotVersionFactory(bot=bot)
    opponent = BotFactory(owner=rival, game=bot.game)
    # Small comparisons: two of the default size would hold more than a day's worker seconds.
    self_play = comparison_create(user=owner, bot_id=bot.id, baseline=1, candidate=2, max_games=100)
    against = comparison_create(user=owner, bot_id=bot.id, baseline=1, candidate=2, opponents=[opponent.id],
                                max_games=100)
    finished = []
    for comparison in (self_play, against):
        match = queued(comparison)[0]
        assert play(match, winner=comparison.candidate_id)
        finished.append(Match.objects.get(pk=match.pk))
    unrated = finished_match(bots=[bot, opponent], tournament=TournamentFactory(bots=[bot, opponent]))
    rated = finished_match(bots=[bot, opponent])
    private = list(Match.objects.filter(comparison__isnull=False).values_list("id", flat=True))
    return {"owner": owner, "rival": rival, "bot": bot, "opponent": opponent, "finished": finished,
            "unrated": unrated, "rated": rated, "private": sorted(private)}


def listed(client, query: str = "") -> list[int]:
    response = client.get(f"/api/matches/?page_size=500{query}")
    assert response.status_code == 200, response.content[:200]
    return [match["id"] for match in response.json()["results"]]


def readers(setup, api_client):
    return {"owner": token_client(setup["owner"]), "staff": token_client(StaffFactory())}


def strangers(setup, api_client):
    return {"anonymous": api_client, "another user": token_client(UserFactory()),
            "the opponent's owner": token_client(setup["rival"])}


def test_the_list_shows_a_comparisons_matches_to_its_owner_and_staff_only(setup, api_client):
    public = sorted([setup["unrated"].id, setup["rated"].id])
    for who, client in strangers(setup, api_client).items():
        assert sorted(listed(client)) == public, who
        assert sorted(listed(client, f"&bot={setup['bot'].id}")) == public, who
    for who, client in readers(setup, api_client).items():
        assert sorted(listed(client)) == sorted(public + setup["private"]), who


@pytest.mark.parametrize("route", ["", "replay/", "bundle/", "logs/"])
def test_a_comparisons_match_is_a_404_for_anyone_but_its_owner_and_staff(setup, api_client, route):
    match = setup["finished"][1]  # the game against the rival's bot
    for who, client in strangers(setup, api_client).items():
        response = client.get(f"/api/matches/{match.id}/{route}")
        expected = 401 if (route == "logs/" and who == "anonymous") else 404
        assert response.status_code == expected, (who, response.content[:200])
        if expected == 404:
            missing = error_of(client.get(f"/api/matches/999999/{route}"))["detail"]
            assert error_of(response)["detail"] == missing.replace("999999", str(match.id)), who
    for who, client in readers(setup, api_client).items():
        response = client.get(f"/api/matches/{match.id}/{route}")
        assert response.status_code == 200, (who, response.content[:200])


def test_a_queued_comparison_match_is_hidden_as_well(setup, api_client):
    match = Match.objects.filter(comparison__isnull=False, status=Match.Status.QUEUED).first()
    assert token_client(UserFactory()).get(f"/api/matches/{match.id}/").status_code == 404
    assert api_client.get(f"/api/matches/{match.id}/replay/").status_code == 404
    assert token_client(setup["owner"]).get(f"/api/matches/{match.id}/replay/").status_code == 409


def test_the_bot_filter_lists_each_match_once(setup):
    owner = token_client(setup["owner"])
    ids = listed(owner, f"&bot={setup['bot'].id}")
    assert len(ids) == len(set(ids))
    # Every match of the bot: both comparisons' (two of its versions in the self-play ones) and both
    # tournaments'.
    assert sorted(ids) == sorted(setup["private"] + [setup["unrated"].id, setup["rated"].id])
    response = owner.get(f"/api/matches/?bot={setup['bot'].id}&page_size=1")
    assert response.json()["count"] == len(ids)


def test_the_rated_filter_says_what_it_filters(setup):
    owner = token_client(setup["owner"])
    assert sorted(listed(owner, "&rated=false")) == sorted(setup["private"] + [setup["unrated"].id])
    assert listed(owner, "&rated=true") == [setup["rated"].id]
    bodies = {m["id"]: m["rated"] for m in owner.get("/api/matches/?page_size=500").json()["results"]}
    assert {match_id for match_id, rated in bodies.items() if not rated} == set(listed(owner, "&rated=false"))


def test_a_comparisons_games_are_no_part_of_the_public_head_to_head(setup, api_client):
    bot, opponent = setup["bot"], setup["opponent"]
    for client in (api_client, token_client(setup["owner"])):
        record = client.get(f"/api/bots/{bot.id}/head-to-head/{opponent.id}/").json()
        assert sorted(record["match_ids"]) == sorted([setup["unrated"].id, setup["rated"].id])
        assert record["games"] == 2
