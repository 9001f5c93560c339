"""Matches: list with filters (game, bot, tournament, status, dates), ordering and pagination, detail,
replay, and bot logs that only their owner reads."""

from datetime import timedelta

import pytest
from django.utils import timezone

import engines
from ladder.models import Game, Match
from tests.api.helpers import error_of
from tests.factories import BotFactory, MatchFactory, SeatFactory, TournamentFactory, finished_match

pytestmark = pytest.mark.django_db


def ids(client, query=""):
    response = client.get(f"/api/matches/{query}")
    assert response.status_code == 200, response.json()
    return [row["id"] for row in response.json()["results"]]


def test_list_filters(api_client):
    ada, bob, cy = BotFactory(), BotFactory(), BotFactory()
    long_ago = timezone.now() - timedelta(days=30)
    old = finished_match(bots=[ada, bob], finished_at=long_ago)
    recent = finished_match(bots=[bob, cy])
    queued = MatchFactory(tournament=recent.tournament)
    SeatFactory(match=queued, position=0, bot=bob)
    SeatFactory(match=queued, position=1, bot=cy)
    draft = BotFactory(game=Game.objects.get(slug="draftosaurus"))
    other_game = MatchFactory(tournament=TournamentFactory(game=draft.game))

    assert ids(api_client) == [other_game.id, queued.id, recent.id, old.id]
    assert ids(api_client, "?game=kingdomino") == [queued.id, recent.id, old.id]
    assert ids(api_client, f"?bot={ada.id}") == [old.id]
    assert ids(api_client, f"?bot={cy.id}&status=finished") == [recent.id]
    assert ids(api_client, f"?tournament={recent.tournament_id}") == [queued.id, recent.id]
    assert ids(api_client, "?status=queued&game=draftosaurus") == [other_game.id]
    cutoff = (timezone.now() - timedelta(days=1)).isoformat()
    assert ids(api_client, f"?finished_before={cutoff}".replace("+", "%2B")) == [old.id]
    assert ids(api_client, f"?finished_after={cutoff}".replace("+", "%2B")) == [recent.id]


@pytest.mark.parametrize("query,field", [("?status=paused", "status"), ("?bot=abc", "bot"), ("?bot=0", "bot"),
                                         ("?tournament=1.5", "tournament"), ("?finished_after=yesterday",
                                                                            "finished_after")])
def test_bad_filters_are_400s_naming_the_filter(api_client, query, field):
    response = api_client.get(f"/api/matches/{query}")
    assert response.status_code == 400
    assert field in error_of(response)["fields"]


def test_list_orders_and_pages(api_client):
    bots = BotFactory.create_batch(2)
    matches = [finished_match(bots=bots) for _ in range(3)]
    assert ids(api_client, "?ordering=id") == [m.id for m in matches]
    page = api_client.get("/api/matches/?page_size=2&ordering=id").json()
    assert page["count"] == 3 and [r["id"] for r in page["results"]] == [m.id for m in matches[:2]]
    assert [r["id"] for r in api_client.get(page["next"]).json()["results"]] == [matches[2].id]


def test_list_query_count_does_not_grow_with_matches_or_seats(api_client, django_assert_max_num_queries):
    bots = BotFactory.create_batch(4)
    tournament = TournamentFactory(bots=bots, players_per_match=4)
    for _ in range(6):
        finished_match(tournament=tournament, bots=bots)
    with django_assert_max_num_queries(3):
        results = api_client.get("/api/matches/?page_size=50").json()["results"]
    assert len(results) == 6 and all(len(row["seats"]) == 4 for row in results)


def test_detail_has_seats_with_results_and_rating_changes(api_client, django_assert_max_num_queries):
    winner, loser = BotFactory(), BotFactory()
    match = finished_match(bots=[winner, loser], places=[1, 2])
    with django_assert_max_num_queries(2):
        body = api_client.get(f"/api/matches/{match.id}/").json()
    assert body["status"] == "finished" and body["game"] == "kingdomino" and body["players"] == 2
    first, second = body["seats"]
    assert (first["bot_id"], first["version"], first["place"], first["outcome"]) == (winner.id, 1, 1, "ok")
    assert first["rating_before"] == second["rating_before"] == 1500.0
    assert first["rating_after"] > 1500.0 > second["rating_after"]
    assert "log" not in first
    missing = api_client.get("/api/matches/999999/")
    assert missing.status_code == 404 and error_of(missing)["detail"] == "no match with id 999999"


def test_replay_recomputes_every_frame(api_client):
    match = finished_match(bots=BotFactory.create_batch(2))
    body = api_client.get(f"/api/matches/{match.id}/replay/").json()
    assert body["actions"] == match.actions
    assert body["frames"] == engines.replay("kingdomino", 2, match.seed, match.options, match.actions)
    assert len(body["frames"]) == len(body["actions"]) + 1


def test_replay_of_an_unfinished_match_is_a_409_that_says_when(api_client):
    queued = MatchFactory()
    response = api_client.get(f"/api/matches/{queued.id}/replay/")
    assert response.status_code == 409
    body = error_of(response)
    assert body["code"] == "conflict" and "once it finished" in body["detail"]
    assert api_client.get("/api/matches/999999/replay/").status_code == 404


def test_logs_show_only_the_requesting_owners_seats(auth_client, other_client, staff_client, api_client):
    mine, theirs = BotFactory(owner=auth_client.user), BotFactory(owner=other_client.user)
    match = finished_match(bots=[mine, theirs], logs=["my secret plan\n", "their secret plan\n"])
    own = auth_client.get(f"/api/matches/{match.id}/logs/")
    assert own.status_code == 200
    assert own.json() == {"match": match.id, "seats": [
        {"position": 0, "bot": mine.name, "bot_id": mine.id, "version": 1, "outcome": "ok", "reason": "",
         "log": "my secret plan\n", "decisions": []}]}
    assert [s["log"] for s in other_client.get(f"/api/matches/{match.id}/logs/").json()["seats"]] == [
        "their secret plan\n"]
    assert len(staff_client.get(f"/api/matches/{match.id}/logs/").json()["seats"]) == 2
    assert api_client.get(f"/api/matches/{match.id}/logs/").status_code == 401
    # Nobody else's logs leak through the public routes either.
    for route in (f"/api/matches/{match.id}/", "/api/matches/", f"/api/matches/{match.id}/replay/"):
        assert b"secret plan" not in api_client.get(route).content


def test_logs_of_a_match_without_my_bots_answer_like_a_missing_match(auth_client):
    match = finished_match(bots=BotFactory.create_batch(2))
    theirs = auth_client.get(f"/api/matches/{match.id}/logs/")
    missing = auth_client.get("/api/matches/999999/logs/")
    assert theirs.status_code == missing.status_code == 404
    assert "readable by the bot's owner only" in error_of(theirs)["detail"]


@pytest.mark.parametrize("moment", ["2000-01-01T00:00:00-23:51", "2000-01-01T00:00:00+23:59"])
def test_date_filters_take_any_iso_offset(api_client, moment):
    match = finished_match(bots=BotFactory.create_batch(2))
    response = api_client.get("/api/matches/", {"finished_after": moment})
    assert [row["id"] for row in response.json()["results"]] == [match.id]


def test_date_filters_refuse_moments_beyond_year_9999(api_client):
    response = api_client.get("/api/matches/", {"finished_after": "9999-12-31T23:59:00-23:00"})
    assert response.status_code == 400
    assert "out of range" in error_of(response)["fields"]["finished_after"][0]


def _walk(client, url: str, *, link: str = "next") -> list[list[int]]:
    pages = []
    while url:
        body = client.get(url).json()
        pages.append([row["id"] for row in body["results"]])
        url = body[link]
    return pages


@pytest.mark.parametrize("ordering", ["-id", "id", "finished_at", "-finished_at", "duration_s", "-duration_s"])
def test_the_list_pages_by_keyset_in_every_ordering_both_ways(api_client, ordering):
    """Walking ``next`` then ``previous`` visits every match once, in the ordering (then id the same way,
    matches without a value last), whatever ties and missing values the ordering field has."""
    bots = BotFactory.create_batch(2)
    tournament = TournamentFactory(bots=bots)
    played = [finished_match(bots=bots, tournament=tournament) for _ in range(5)]
    queued = [MatchFactory(tournament=tournament) for _ in range(2)]  # no finish time, no duration
    Match.objects.filter(pk__in=[m.pk for m in played[:3]]).update(duration_s=1.0)  # a tie of three
    field = ordering.lstrip("-")
    rows = list(Match.objects.values_list("id", field))
    present = sorted((r for r in rows if r[1] is not None), key=lambda r: (r[1], r[0]),
                     reverse=ordering.startswith("-"))
    absent = sorted((r for r in rows if r[1] is None), key=lambda r: r[0], reverse=ordering.startswith("-"))
    expected = [r[0] for r in present + absent]
    assert len(expected) == len(played) + len(queued)
    pages = _walk(api_client, f"/api/matches/?ordering={ordering}&page_size=2")
    assert [i for page in pages for i in page] == expected
    assert [len(page) for page in pages] == [2, 2, 2, 1]
    # From the last page back to the first with the previous links.
    last = api_client.get(f"/api/matches/?ordering={ordering}&page_size=2").json()
    while last["next"]:
        last = api_client.get(last["next"]).json()
    back = _walk(api_client, last["previous"], link="previous")
    assert [i for page in reversed(back) for i in page] == expected[:-1]


def test_the_list_counts_exactly_up_to_a_bound_and_estimates_past_it(api_client, monkeypatch):
    from ladder.api import pagination

    bots = BotFactory.create_batch(2)
    for _ in range(3):
        finished_match(bots=bots)
    body = api_client.get("/api/matches/").json()
    assert (body["count"], body["count_exact"]) == (3, True)
    monkeypatch.setattr(pagination, "COUNT_EXACT_UP_TO", 2)
    body = api_client.get("/api/matches/").json()
    assert body["count_exact"] is False and body["count"] >= 3


def test_deep_page_numbers_and_foreign_cursors_are_400s(api_client):
    assert api_client.get("/api/matches/?page=1").status_code == 200
    response = api_client.get("/api/matches/?page=2")
    assert response.status_code == 400 and "page" in error_of(response)["fields"]
    response = api_client.get("/api/matches/?cursor=garbage")
    assert response.status_code == 400 and "cursor" in error_of(response)["fields"]
    from ladder.api.pagination import keyset_cursor

    other = keyset_cursor(ordering="finished_at", value=None, id=5)
    response = api_client.get(f"/api/matches/?cursor={other}")
    assert response.status_code == 400 and "cursor" in error_of(response)["fields"]
