"""A bot cannot tell its upload check's smoke match from a rated ladder match by what it is told: a spy
bot, in the real sandbox, records its ``start`` message (read out of the SDK's frame, as a hostile bot
would) and its first ``time_left_ms`` in both, and they are the same but for the seat, which is drawn."""

from __future__ import annotations

import json
import random

import pytest

from ladder.models import BotVersion, Match, Seat
from ladder.services.tournaments.ladder import ladder_tick
from ladder.services.uploads.validation import bot_version_validate
from tests.factories import BotFactory, BotVersionFactory
from workers.execution import match_execute

pytestmark = pytest.mark.django_db

#: Prints what it was told and forfeits at its first decision: the check rejects it with that in the log's
#: tail, and a rated match records it in the seat's log.
SPY_BOT = b'''import json
import sys

SEEN = {}


class Bot:
    def __init__(self, game, seat, players, options):
        frame = sys._getframe(1)
        while not (isinstance(frame.f_locals.get("message"), dict) and frame.f_locals["message"].get("type") == "start"):
            frame = frame.f_back
        SEEN["start"] = frame.f_locals["message"]

    def act(self, observation, legal_actions, time_left_ms=None):
        SEEN["time_left_ms"] = time_left_ms
        print("SEEN " + json.dumps(SEEN, sort_keys=True), flush=True)
        raise RuntimeError("seen enough")
'''


def _seen(log: str) -> dict:
    [line] = [line for line in log.splitlines() if line.startswith("SEEN ")]
    return json.loads(line[len("SEEN "):])


def test_the_smoke_match_tells_a_bot_what_a_rated_match_tells_it(settings):
    spy = BotFactory(code=SPY_BOT)
    BotFactory()
    assert ladder_tick(matches_per_game=1, rng=random.Random(1)) == {"kingdomino": 1}
    match = Match.objects.get(tournament__kind="ladder", seats__bot=spy)
    assert match_execute(match_id=match.id, worker="tests") == "recorded"
    rated = _seen(Seat.objects.get(match=match, bot=spy).log)

    check = BotVersionFactory(bot=spy, code=SPY_BOT + b"# version 2\n", validation_status="pending")
    assert bot_version_validate(version_id=check.id) == "rejected"
    smoke = _seen(BotVersion.objects.get(pk=check.pk).validation_log)

    # Before, the smoke match told it match_ms 2000 (and time_left_ms 2000) where a rated one told 30000
    # (and 21000).
    assert smoke["start"]["match_ms"] == rated["start"]["match_ms"] == settings.BOTS_MATCH_MS
    rated_seat, smoke_seat = rated["start"].pop("seat"), smoke["start"].pop("seat")
    assert smoke == rated
    assert {rated_seat, smoke_seat} <= set(range(rated["start"]["players"]))
