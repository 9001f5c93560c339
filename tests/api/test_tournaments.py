"""Tournaments: create (validation, throttling), list (filters, ordering, pagination), detail with
progress and standings carrying the Bradley-Terry ratings, standings and crosstable routes."""

import pytest

from ladder.models import Game, Match
from ladder.ratings.elo import INITIAL_RATING
from tests.api.helpers import error_of
from tests.factories import BotFactory, TournamentFactory, finished_match

pytestmark = pytest.mark.django_db


def create(client, **changes):
    payload = {"game": "kingdomino", "name": "cup", "players_per_match": 2, "games_per_pairing": 2, **changes}
    return client.post("/api/tournaments/", payload, format="json")


def test_create_schedules_every_pairing(auth_client):
    bots = BotFactory.create_batch(3)
    response = create(auth_client, bots=[b.id for b in bots], seed=11)
    assert response.status_code == 201
    body = response.json()
    assert body["status"] == "running" and body["created_by"] == auth_client.user.username
    assert body["progress"]["total"] == body["progress"]["queued"] == 6
    assert sorted(body["bots"]) == sorted(b.id for b in bots)
    assert {line["bot_id"] for line in body["standings"]} == {b.id for b in bots}
    assert Match.objects.filter(tournament_id=body["id"]).count() == 6


@pytest.mark.parametrize(
    "change,field,fragment",
    [
        ({"players_per_match": 11}, "players_per_match", "less than or equal to 10"),
        ({"players_per_match": 5}, "players_per_match", "2 to 4 players"),
        ({"bots": "other_game"}, "bots", "another game"),
        ({"bots": "unknown"}, "bots", "no bots with ids"),
        ({"bots": []}, "bots", "may not be empty"),
        ({"bots": ["x"]}, "bots.0", "valid integer"),
        ({"games_per_pairing": 999}, "games_per_pairing", "the limit is"),
        ({"options": {"initial_pick": "no-such-pick"}}, "options", "refused"),
        ({"options": [1, 2]}, "options", "dictionary"),
        ({"game": "chess"}, "game", "unknown game"),
        ({"name": ""}, "name", "blank"),
        ({"limits": {"cpu_seconds": 5}}, "limits.cpu_seconds", "a tournament may set move_ms, bank_ms"),
        ({"limits": {"move_ms": "fast"}}, "limits.move_ms", "valid integer"),
        ({"limits": {"move_ms": 1.5}}, "limits.move_ms", "valid integer"),
        ({"limits": {"move_ms": 5001}}, "limits.move_ms", "at most 5000 (the server's cap)"),
        ({"limits": {"memory_mb": 4096}}, "limits.memory_mb", "at most 1024 (the server's cap)"),
        ({"limits": {"bank_ms": -1}}, "limits.bank_ms", "at least 0"),
        ({"limits": {"match_ms": 40001}}, "limits.match_ms", "at most 40000 (the server's cap)"),
        ({"limits": {"match_ms": 0}}, "limits.match_ms", "at least 10"),
        ({"limits": [500]}, "limits", "Expected a dictionary"),
        ({"duplicate": "sometimes"}, "duplicate", "valid boolean"),
        ({"duplicate": True, "games_per_pairing": 51}, "games_per_pairing", "would play 306 matches"),
    ],
)
def test_create_refusals_name_the_field(auth_client, settings, change, field, fragment):
    settings.TOURNAMENT_MAX_MATCHES = 100
    settings.BOTS_MAX_MOVE_MS, settings.BOTS_MAX_MEMORY_MB, settings.BOTS_MAX_MATCH_MS = 5000, 1024, 40000
    bot_ids = [b.id for b in BotFactory.create_batch(3)]
    if change.get("bots") == "other_game":
        change = {"bots": bot_ids + [BotFactory(game=Game.objects.get(slug="draftosaurus")).id]}
    elif change.get("bots") == "unknown":
        change = {"bots": bot_ids + [987654]}
    response = create(auth_client, **{"bots": bot_ids, **change})
    assert response.status_code == 400
    body = error_of(response)
    assert fragment in " ".join(body["fields"][field]), body
    assert not Match.objects.exists()


def test_a_round_robin_is_not_duplicate_unless_asked(auth_client):
    bot_ids = [b.id for b in BotFactory.create_batch(2)]
    body = create(auth_client, bots=bot_ids).json()
    assert body["duplicate"] is False and body["deals"] == []
    assert body["progress"]["total"] == 2
    matches = auth_client.get(f"/api/matches/?tournament={body['id']}").json()["results"]
    assert [m["deal"] for m in matches] == [None, None]


def test_a_duplicate_round_robin_plays_each_deal_from_both_seats_and_lists_points_per_deal(auth_client, api_client):
    a, b = BotFactory.create_batch(2)
    response = create(auth_client, bots=[a.id, b.id], games_per_pairing=2, seed=9, duplicate=True)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert body["duplicate"] is True and body["games_per_pairing"] == 2
    assert body["progress"]["total"] == 4 and body["deals"] == []
    matches = api_client.get(f"/api/matches/?tournament={body['id']}&ordering=id").json()["results"]
    by_deal = {}
    for match in matches:
        by_deal.setdefault(match["deal"], []).append((match["seed"], [seat["bot_id"] for seat in match["seats"]]))
    assert sorted(by_deal) == [0, 1]
    for rotations in by_deal.values():
        assert rotations[0][0] == rotations[1][0]
        assert sorted(order for _, order in rotations) == sorted([[a.id, b.id], [b.id, a.id]])
    assert by_deal[0][0][0] != by_deal[1][0][0]

    tournament = TournamentFactory(duplicate=True, bots=[a, b])
    finished_match(bots=[a, b], tournament=tournament, deal=5, seed=1, places=[1, 2])
    finished_match(bots=[b, a], tournament=tournament, deal=5, seed=1, places=[2, 1])
    [deal] = api_client.get(f"/api/tournaments/{tournament.id}/").json()["deals"]
    assert deal == {"deal": 5, "games": 2, "rotations": 2, "complete": True,
                    "bots": [{"bot_id": a.id, "bot": a.name, "points": 2.0},
                             {"bot_id": b.id, "bot": b.name, "points": 0.0}]}


def test_create_with_limits_shows_them_on_the_tournament_and_its_matches(auth_client, api_client, settings):
    settings.BOTS_MEMORY_MB = 300
    settings.BOTS_LIMITS_BY_GAME = {"kingdomino": {"log_bytes": 2048}}
    bot_ids = [b.id for b in BotFactory.create_batch(2)]
    response = create(auth_client, bots=bot_ids, games_per_pairing=1, limits={"move_ms": 200, "bank_ms": 0})
    assert response.status_code == 201
    body = response.json()
    assert body["limits"] == {"move_ms": 200, "bank_ms": 0}
    assert api_client.get(f"/api/tournaments/{body['id']}/").json()["limits"] == {"move_ms": 200, "bank_ms": 0}
    [match] = api_client.get(f"/api/matches/?tournament={body['id']}").json()["results"]
    # The match shows every limit it is played under: the tournament's over the game's over the defaults.
    assert match["limits"] == {"move_ms": 200, "bank_ms": 0, "match_ms": 30000, "memory_mb": 300, "log_bytes": 2048,
                               "cpu_seconds": 60, "max_processes": 16, "tmp_mb": 16, "start_ms": 5000,
                               "max_message_bytes": 1048576, "file_mb": 16, "max_open_files": 64}
    assert api_client.get(f"/api/matches/{match['id']}/").json()["limits"] == match["limits"]
    without = create(auth_client, bots=bot_ids, name="plain")
    assert without.status_code == 201 and without.json()["limits"] == {}


def test_staff_may_give_match_time_up_to_the_cap(staff_client, api_client, settings):
    settings.BOTS_MATCH_MS, settings.BOTS_MAX_MATCH_MS = 30000, 35000
    bot_ids = [b.id for b in BotFactory.create_batch(2)]
    refused = create(staff_client, bots=bot_ids, limits={"match_ms": 35001})
    assert refused.status_code == 400
    assert error_of(refused)["fields"]["limits.match_ms"] == ["may be at most 35000 (the server's cap)"]
    response = create(staff_client, bots=bot_ids, games_per_pairing=1, limits={"match_ms": 35000})
    assert response.status_code == 201 and response.json()["limits"] == {"match_ms": 35000}
    [match] = api_client.get(f"/api/matches/?tournament={response.json()['id']}").json()["results"]
    assert (match["limits"]["match_ms"], match["limits"]["move_ms"]) == (35000, settings.BOTS_MOVE_MS)


@pytest.mark.parametrize("name,own,loosened", [
    ("move_ms", 1000, 5000),
    ("bank_ms", 20000, 30000),
    ("match_ms", 30000, 40000),
    ("memory_mb", 256, 1024),
    ("log_bytes", 65536, 1048576),
])
def test_a_users_tournament_may_tighten_each_limit_but_not_loosen_it(auth_client, settings, name, own, loosened):
    settings.BOTS_MOVE_MS, settings.BOTS_BANK_MS, settings.BOTS_MATCH_MS = 1000, 20000, 30000
    settings.BOTS_MEMORY_MB, settings.BOTS_LOG_BYTES, settings.BOTS_LIMITS_BY_GAME = 256, 65536, {}
    settings.BOTS_MAX_MOVE_MS, settings.BOTS_MAX_BANK_MS, settings.BOTS_MAX_MATCH_MS = 5000, 30000, 40000
    settings.BOTS_MAX_MEMORY_MB, settings.BOTS_MAX_LOG_BYTES = 1024, 1048576
    bot_ids = [b.id for b in BotFactory.create_batch(2)]
    refused = create(auth_client, bots=bot_ids, limits={name: loosened})
    assert refused.status_code == 400
    [message] = error_of(refused)["fields"][f"limits.{name}"]
    assert message.startswith(f"{name} may be at most {own} (kingdomino's own limit)")
    assert "only staff may loosen them" in message
    just_over = create(auth_client, bots=bot_ids, limits={name: own + 1})
    assert f"limits.{name}" in error_of(just_over)["fields"]
    assert not Match.objects.exists()
    at_own = create(auth_client, bots=bot_ids, games_per_pairing=1, limits={name: own})
    assert at_own.status_code == 201 and at_own.json()["limits"] == {name: own}
    tighter = create(auth_client, bots=bot_ids, games_per_pairing=1, name="tight", limits={name: own // 2})
    assert tighter.status_code == 201
    assert Match.objects.get(tournament_id=tighter.json()["id"]).limits[name] == own // 2


def test_a_users_tournament_is_held_to_the_games_own_limits_not_the_global_ones(auth_client, settings):
    settings.BOTS_MOVE_MS = 1000
    settings.BOTS_LIMITS_BY_GAME = {"kingdomino": {"move_ms": 400, "log_bytes": 1024}}
    bot_ids = [b.id for b in BotFactory.create_batch(2)]
    refused = create(auth_client, bots=bot_ids, limits={"move_ms": 401})
    assert error_of(refused)["fields"]["limits.move_ms"][0].startswith("move_ms may be at most 400")
    refused = create(auth_client, bots=bot_ids, limits={"log_bytes": 1048576})
    assert error_of(refused)["fields"]["limits.log_bytes"][0].startswith("log_bytes may be at most 1024")
    assert create(auth_client, bots=bot_ids, games_per_pairing=1, limits={"move_ms": 400}).status_code == 201


def test_create_needs_a_login_and_is_throttled(api_client, auth_client, throttle_rates):
    bot_ids = [b.id for b in BotFactory.create_batch(2)]
    assert create(api_client, bots=bot_ids).status_code == 401
    throttle_rates(tournaments="1/day")
    assert create(auth_client, bots=bot_ids).status_code == 201
    refused = create(auth_client, bots=bot_ids, name="again")
    assert refused.status_code == 429
    assert "too many tournaments created: at most 1 per day" in error_of(refused)["detail"]
    assert Match.objects.count() == 2


def test_list_filters_orders_and_pages(api_client, django_assert_max_num_queries):
    bots = BotFactory.create_batch(2)
    first = TournamentFactory(name="b-first", bots=bots)
    second = TournamentFactory(name="a-second", bots=bots[:1])
    third = TournamentFactory(name="c-third", game=Game.objects.get(slug="draftosaurus"))

    def ids(query):
        response = api_client.get(f"/api/tournaments/{query}")
        assert response.status_code == 200
        return [row["id"] for row in response.json()["results"]]

    assert ids("") == [third.id, second.id, first.id]
    assert ids("?game=kingdomino") == [second.id, first.id]
    assert ids(f"?bot={bots[1].id}") == [first.id]
    assert ids("?status=finished") == []
    assert ids("?ordering=name") == [second.id, first.id, third.id]
    assert ids("?page_size=1&page=2") == [second.id]
    bad = api_client.get("/api/tournaments/?status=paused")
    assert bad.status_code == 400 and "status" in error_of(bad)["fields"]
    TournamentFactory.create_batch(5, bots=bots)
    with django_assert_max_num_queries(3):
        assert len(ids("?page_size=50")) == 8


def test_standings_carry_the_order_independent_rating_with_an_interval(api_client, django_assert_max_num_queries):
    strong, middle, weak = BotFactory(), BotFactory(), BotFactory()
    tournament = TournamentFactory(bots=[strong, middle, weak])
    for winner, loser in [(strong, middle), (strong, weak), (middle, weak), (middle, strong), (strong, middle)]:
        finished_match(tournament=tournament, bots=[winner, loser], places=[1, 2])
    with django_assert_max_num_queries(6):
        detail = api_client.get(f"/api/tournaments/{tournament.id}/").json()
    assert detail["progress"]["finished"] == detail["progress"]["total"] == 5
    table = detail["standings"]
    assert [line["bot_id"] for line in table] == [strong.id, middle.id, weak.id]
    assert [line["rank"] for line in table] == [1, 2, 3]
    assert (table[0]["wins"], table[0]["losses"], table[0]["points"]) == (3, 1, 3.0)
    assert table[2]["games"] == 2 and table[2]["wins"] == 0
    assert sum(line["rating"] for line in table) == pytest.approx(3 * INITIAL_RATING)
    assert table[0]["rating"] > table[1]["rating"] > table[2]["rating"]
    for line in table:
        assert line["rating_low"] < line["rating"] < line["rating_high"]
        assert line["rating_high"] - line["rating_low"] == pytest.approx(2 * 1.959964 * line["rating_stderr"],
                                                                         rel=1e-4)
    # The weak bot lost every game, yet its rating is finite.
    assert table[2]["rating"] > 0
    standings = api_client.get(f"/api/tournaments/{tournament.id}/standings/").json()
    assert standings == table


def test_entrants_without_finished_matches_are_listed_last(api_client):
    played, waiting = BotFactory(), BotFactory()
    tournament = TournamentFactory(bots=[played, waiting])
    table = api_client.get(f"/api/tournaments/{tournament.id}/standings/").json()
    assert [(line["bot_id"], line["games"]) for line in table] == [(played.id, 0), (waiting.id, 0)]
    assert table[0]["rating"] == pytest.approx(1500.0)


def test_crosstable_mirrors_pairwise_results(api_client):
    ada, bob, cy = BotFactory(), BotFactory(), BotFactory()
    tournament = TournamentFactory(bots=[ada, bob, cy], players_per_match=3)
    finished_match(tournament=tournament, bots=[ada, bob, cy], places=[1, 2, 2])
    finished_match(tournament=tournament, bots=[ada, bob], places=[2, 1])
    body = api_client.get(f"/api/tournaments/{tournament.id}/crosstable/").json()
    assert [b["id"] for b in body["bots"]] == [ada.id, bob.id, cy.id]
    rows = {row["bot_id"]: {r["opponent_id"]: r for r in row["results"]} for row in body["rows"]}
    assert (rows[ada.id][bob.id]["wins"], rows[ada.id][bob.id]["losses"]) == (1, 1)
    assert (rows[bob.id][ada.id]["wins"], rows[bob.id][ada.id]["losses"]) == (1, 1)
    assert rows[bob.id][cy.id]["draws"] == rows[cy.id][bob.id]["draws"] == 1
    assert rows[cy.id][ada.id]["score"] == 0.0 and rows[ada.id][cy.id]["score"] == 1.0


def test_unknown_tournament_is_a_404_everywhere(api_client):
    for suffix in ("", "standings/", "crosstable/"):
        response = api_client.get(f"/api/tournaments/424242/{suffix}")
        assert response.status_code == 404
        assert error_of(response)["detail"] == "no tournament with id 424242"
