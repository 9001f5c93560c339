"""Hostile bots in a round robin played by a real worker: a hostile bot loses its match and nothing else.

Every bot of ``tests/bots/hostile/`` that breaks a rule of the protocol (garbage, illegal actions, answers
the referee cannot parse or store, stalls at start or on move, crashes with unstorable text, tries to
outlive its match) plays a two-player Kingdomino round robin with an honest bot, on a real ``celery
worker`` over the configured broker and database. Every match must finish (none failed, none stuck),
every hostile seat forfeits with the outcome its attack earns and is placed last, and the honest seat is
``ok`` in every one of its matches. Uploading any of them through the API is accepted for checking (202,
never a 5xx), and the worker's check rejects every one of them.

These bots run only through the sandbox: the test is skipped where isolation is unavailable (and fails
in CI, where it must be available).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from ladder.models import Match, Seat
from tests.conftest import wait_until, wait_until_checked
from tests.factories import FIRST_LEGAL_BOT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

HOSTILE = Path(__file__).resolve().parents[1] / "bots" / "hostile"

def hostile(name: str, **constants) -> bytes:
    header = "".join(f"{key} = {value!r}\n" for key, value in constants.items())
    return (header + (HOSTILE / f"{name}.py").read_text()).encode()


#: Hostile bot -> (its code, the outcomes its attack may earn: all of them forfeits).
FORFEITS: dict[str, tuple[bytes, set[str]]] = {
    # The protocol: garbage, illegal actions, silence, a forged sandbox failure, unstorable text.
    "garbage": (hostile("garbage"), {"bad_output"}),
    "illegal": (hostile("illegal"), {"illegal_action"}),
    "infinite_loop": (hostile("infinite_loop"), {"timeout"}),
    "sleeper": (hostile("sleeper"), {"timeout"}),
    "nul_writer": (hostile("nul_writer"), {"crash"}),
    "forger": (hostile("forger"), {"crash", "bad_output"}),
    "memory_hog": (hostile("memory_hog"), {"memory", "crash"}),
    # The referee's parsing boundary: answers it cannot parse or store.
    "deep": (hostile("deep_nesting", DEPTH=200000), {"bad_output"}),
    "deep1000": (hostile("deep_nesting", DEPTH=1000), {"bad_output"}),
    "endless": (hostile("huge_line"), {"bad_output"}),
    "surrogate": (hostile("surrogate_crash"), {"crash"}),
    "rawline": (hostile("raw_protocol", LINE=b'{"type":"error","kind":"crash","message":"\\ud800\\u0000"}\n'),
                {"bad_output"}),
    # Stalling at start, in the first seat, beside an honest bot that must not pay for it.
    "staller": (hostile("start_staller", MODE="spin", STALL_S=30), {"timeout"}),
    # Outliving the match, and a foreign syscall ABI.
    "immortal": (hostile("immortal", TOKEN="immortal-e2e"), {"timeout"}),
    "foreign_abi": (hostile("foreign_abi", ABI="x32"), {"crash"}),
}

#: Short clocks so that the bots that stall cost the test little, in the uploads' smoke matches (the
#: worker's settings) and in the round robin (resolved when its matches are scheduled, here).
GAME_LIMITS = {"kingdomino": {"start_ms": 1500, "move_ms": 300, "bank_ms": 0, "match_ms": 5000}}


@pytest.fixture
def mallory(user_factory):
    from rest_framework.test import APIClient

    from tests.factories import api_token_key

    user = user_factory(username="mallory")
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_key(user)}")
    client.user = user
    return client


def test_hostile_bots_forfeit_and_honest_bot_plays_every_match(worker_pool, settings, mallory, bot_factory,
                                                               bots_allow_unsafe):
    if bots_allow_unsafe:
        pytest.skip("hostile bots run only in the real sandbox, which is unavailable here")
    settings.BOTS_LIMITS_BY_GAME = GAME_LIMITS
    worker_pool.env["BOTS_LIMITS_BY_GAME"] = json.dumps(GAME_LIMITS)
    worker_pool.start(concurrency=2)

    uploaded = {}
    for name, (code, _) in FORFEITS.items():
        response = mallory.post("/api/bots/", {"game": "kingdomino", "name": f"upload-{name}",
                                               "code": SimpleUploadedFile("bot.py", code)},
                                format="multipart")
        assert response.status_code == 202, (name, response.status_code, response.content[:500])
        uploaded[response.json()["id"]] = name
    honest = mallory.post("/api/bots/", {"game": "kingdomino", "name": "honest",
                                         "code": SimpleUploadedFile("bot.py", FIRST_LEGAL_BOT)}, format="multipart")
    assert honest.status_code == 202, honest.json()
    honest_id = honest.json()["id"]
    # The worker's check plays each upload's smoke match: every hostile one ends rejected, none stays stuck.
    statuses = wait_until_checked(mallory, [honest_id, *uploaded], timeout=240)
    assert statuses.pop(honest_id) == "accepted"
    assert {uploaded[bot_id]: status for bot_id, status in statuses.items()} == dict.fromkeys(FORFEITS, "rejected")
    # The hostile bots could never pass their check, so they are stored as accepted with the factory.
    hostile_ids = {bot_factory(owner=mallory.user, name=f"hostile-{name}", code=code).id: name
                   for name, (code, _) in FORFEITS.items()}

    # The honest bot last: every hostile bot sits in the first seat, the one whose stall at start used to
    # cost the second seat its match.
    created = mallory.post("/api/tournaments/", {
        "game": "kingdomino", "name": "hostile round robin", "bots": [*hostile_ids, honest_id],
        "players_per_match": 2, "games_per_pairing": 1}, format="json")
    assert created.status_code == 201, created.json()
    tournament_id = created.json()["id"]
    bots = len(hostile_ids) + 1
    assert created.json()["progress"]["total"] == bots * (bots - 1) // 2

    def finished():
        body = mallory.get(f"/api/tournaments/{tournament_id}/").json()
        return body if body["status"] == "finished" else None

    try:
        body = wait_until(finished, timeout=480, interval=1, message="the hostile round robin to finish")
    except BaseException:
        print(worker_pool.logs())
        raise
    assert body["progress"]["failed"] == 0
    matches = Match.objects.filter(tournament_id=tournament_id)
    assert set(matches.values_list("status", flat=True)) == {"finished"}
    # Played once each: no hostile bot made its match fail or stick until its lease ran out.
    assert set(matches.values_list("attempts", flat=True)) == {1}

    seats = Seat.objects.filter(match__tournament_id=tournament_id)
    honest_matches = 0
    for seat in seats:
        bot_id = seat.bot_id
        if bot_id == honest_id:
            honest_matches += 1
            assert (seat.outcome, seat.place) == ("ok", 1), (seat.match_id, seat.reason)
            continue
        name = hostile_ids[bot_id]
        assert seat.outcome in FORFEITS[name][1], (name, seat.outcome, seat.reason)
        assert seat.place == 2, (name, seat.place)
        assert seat.reason and "\x00" not in seat.reason + seat.log
    assert honest_matches == len(hostile_ids)
