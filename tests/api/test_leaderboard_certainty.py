"""``GET /api/leaderboards/{game}/`` says how sure it is of every row: a 95% interval, a rank range and the
chance of being stronger than the next row, from the game's recorded rated history; in the schema too."""

from __future__ import annotations

import pytest
import yaml

from tests.factories import BotFactory, rated_field, rated_result

pytestmark = pytest.mark.django_db


def test_rows_say_how_sure_the_board_is_of_a_recorded_history(api_client):
    rated_field()
    board = api_client.get("/api/leaderboards/kingdomino/").json()
    by_name = {row["bot"]: row for row in board}
    assert [row["bot"] for row in board][0] == "top" and board[-1]["bot"] == "low"
    middle = board[1:3]
    assert {row["bot"] for row in middle} == {"mid-a", "mid-b"}

    assert by_name["top"]["rank_range"] == {"best": 1, "worst": 1}
    assert all(row["rank_range"] == {"best": 2, "worst": 3} for row in middle)
    assert by_name["low"]["rank_range"] == {"best": 4, "worst": 4}
    # Settled at both ends, a coin toss between the two middle bots (identical records), none below the last.
    assert board[0]["p_above"] >= 0.95 and board[2]["p_above"] >= 0.95
    assert board[1]["p_above"] == pytest.approx(0.5, abs=1e-6)
    assert board[3]["p_above"] is None

    for row in board:
        interval = row["elo_interval"]
        assert interval["low"] < interval["estimate"] < interval["high"]
    estimates = [row["elo_interval"]["estimate"] for row in board]
    assert estimates[0] > max(estimates[1:3]) and min(estimates[1:3]) > estimates[3]
    assert middle[0]["elo_interval"]["estimate"] == pytest.approx(middle[1]["elo_interval"]["estimate"])
    # Placed on the Elo scale: the field's fitted ratings average its online Elo.
    assert sum(estimates) / 4 == pytest.approx(sum(row["elo"] for row in board) / 4)


def test_a_new_result_moves_the_intervals_at_once(api_client):
    a, b = BotFactory(name="a"), BotFactory(name="b")
    before = {row["bot"]: row["elo_interval"] for row in api_client.get("/api/leaderboards/kingdomino/").json()}
    assert before["a"]["high"] - before["a"]["low"] > 700  # no games: the prior's width
    for _ in range(6):
        rated_result(bots=[a, b], places=[1, 2])
    after = {row["bot"]: row for row in api_client.get("/api/leaderboards/kingdomino/").json()}
    assert after["a"]["elo_interval"]["high"] - after["a"]["elo_interval"]["low"] < 700
    assert after["a"]["elo_interval"]["estimate"] > after["b"]["elo_interval"]["estimate"]
    assert after["a"]["p_above"] > 0.9


def test_an_inactive_bot_counts_in_the_fit_but_not_in_the_ranks(api_client):
    bots = rated_field()
    bots["mid-a"].active = False
    bots["mid-a"].save(update_fields=["active"])
    board = api_client.get("/api/leaderboards/kingdomino/").json()
    assert [row["bot"] for row in board] == ["top", "mid-b", "low"]
    assert [row["rank_range"] for row in board] == [{"best": r, "worst": r} for r in (1, 2, 3)]
    assert all(row["p_above"] >= 0.95 for row in board[:2])


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    from django.test import Client

    with django_db_blocker.unblock():
        response = Client().get("/api/schema/")
    assert response.status_code == 200
    return yaml.safe_load(response.content)


def _component(schema: dict, reference: dict) -> dict:
    if "allOf" in reference:  # a documented nested serializer is wrapped to carry its description
        reference = reference["allOf"][0]
    return schema["components"]["schemas"][reference["$ref"].rsplit("/", 1)[-1]]


def test_the_schema_documents_the_certainty_of_each_row(schema):
    operation = schema["paths"]["/api/leaderboards/{game}/"]["get"]
    row = _component(schema, operation["responses"]["200"]["content"]["application/json"]["schema"]["items"])
    assert {"elo_interval", "rank_range", "p_above"} <= set(row["required"])
    properties = row["properties"]
    interval = _component(schema, properties["elo_interval"])
    assert set(interval["properties"]) == {"low", "high", "estimate"}
    assert all(interval["properties"][key]["type"] == "number" for key in ("low", "high", "estimate"))
    ranks = _component(schema, properties["rank_range"])
    assert {key: value["type"] for key, value in ranks["properties"].items()} == {"best": "integer",
                                                                                  "worst": "integer"}
    assert properties["p_above"]["type"] == "number" and properties["p_above"]["nullable"] is True
    assert "95%" in properties["elo_interval"]["description"]
