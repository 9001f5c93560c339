"""Why did my bot lose: a real ``celery worker`` plays a round robin, and each seat's owner reads what their
bot printed decision by decision, against the steps of the match's stored actions, with think times."""

from __future__ import annotations

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

import engines
from tests.conftest import wait_until_checked
from tests.e2e.test_round_robin import registered, wait_finished
from tests.factories import FIRST_LEGAL_BOT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

# Numbers its decisions: a line on stdout and, without a newline, a mark on stderr, which reach the log
# only through the SDK's flush before each answer. Its import line belongs to no decision.
COUNTING_BOT = b"""\
import sys

print("loaded")
count = 0


def act(observation, legal_actions):
    global count
    print(f"decision {count}")
    sys.stderr.write(f"[{count}]")
    count += 1
    return legal_actions[-1]
"""


def _movers(match: dict, actions: list) -> list[int]:
    """Whose turn it was at each step of the stored match, from the engine."""
    state = engines.get(match["game"]).new_state(match["players"], match["seed"], match["options"])
    movers = []
    for action in actions:
        movers.append(state.current_player())
        state.apply(action)
    return movers


def test_each_owner_reads_their_bots_decisions_against_the_matchs_steps(workers):
    ada, bob, carol = registered("ada"), registered("bob"), registered("carol")
    bot_ids = {}
    for client, name, code in ((ada, "counter", COUNTING_BOT), (bob, "plain", FIRST_LEGAL_BOT)):
        response = client.post("/api/bots/", {"game": "kingdomino", "name": name,
                                              "code": SimpleUploadedFile("bot.py", code)}, format="multipart")
        assert response.status_code == 202, response.json()
        bot_ids[name] = response.json()["id"]
    assert set(wait_until_checked(ada, list(bot_ids.values())).values()) == {"accepted"}
    created = ada.post("/api/tournaments/", {"game": "kingdomino", "name": "why", "bots": list(bot_ids.values()),
                                             "players_per_match": 2, "games_per_pairing": 2, "seed": 5},
                       format="json")
    assert created.status_code == 201, created.json()
    body = wait_finished(ada, created.json()["id"], workers)
    assert body["progress"]["failed"] == 0
    matches = ada.get(f"/api/matches/?tournament={created.json()['id']}").json()["results"]
    assert len(matches) == 2
    # The counter sits in each seat once.
    assert sorted(seat["position"] for match in matches for seat in match["seats"]
                  if seat["bot_id"] == bot_ids["counter"]) == [0, 1]

    for match in matches:
        seat_of = {seat["bot_id"]: seat["position"] for seat in match["seats"]}
        actions = ada.get(f"/api/matches/{match['id']}/replay/").json()["actions"]
        movers = _movers(match, actions)

        logs = ada.get(f"/api/matches/{match['id']}/logs/")
        assert logs.status_code == 200
        [seat] = logs.json()["seats"]
        position = seat_of[bot_ids["counter"]]
        assert seat["position"] == position and seat["outcome"] == "ok"
        decisions = seat["decisions"]
        # One record per step on which the counter was on move, in order, each with what it printed then.
        assert [d["step"] for d in decisions] == [step for step, mover in enumerate(movers) if mover == position]
        assert [d["log"] for d in decisions] == [f"decision {n}\n[{n}]" for n in range(len(decisions))]
        assert all(isinstance(d["ms"], int) and 0 <= d["ms"] < 1000 for d in decisions)
        assert sum(d["ms"] for d in decisions) <= match["seats"][position]["time_used_ms"]
        # Each record's step is an action the counter produced: the last legal one there.
        state = engines.get(match["game"]).new_state(match["players"], match["seed"], match["options"])
        for step, action in enumerate(actions):
            if movers[step] == position:
                assert action == state.legal_actions()[-1]
            state.apply(action)
        # The import's line is in the seat's whole log only.
        assert seat["log"].startswith("loaded\ndecision 0\n[0]decision 1\n")

        # Bob reads his own bot's records (silent: empty texts), never Ada's.
        [theirs] = bob.get(f"/api/matches/{match['id']}/logs/").json()["seats"]
        assert theirs["position"] == seat_of[bot_ids["plain"]]
        assert {d["log"] for d in theirs["decisions"]} == {""}
        assert [d["step"] for d in theirs["decisions"]] == [
            step for step, mover in enumerate(movers) if mover == theirs["position"]]
        # Nobody else reads them.
        assert carol.get(f"/api/matches/{match['id']}/logs/").status_code == 404
        assert APIClient().get(f"/api/matches/{match['id']}/logs/").status_code == 401
        for client in (carol, APIClient()):
            assert b"decision 0" not in client.get(f"/api/matches/{match['id']}/").content
            assert b"decision 0" not in client.get(f"/api/matches/{match['id']}/bundle/").content
