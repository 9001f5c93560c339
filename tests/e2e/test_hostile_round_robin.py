"""A round robin on a real ``celery worker`` (configured broker and database) between an honest bot and
hostile bots that attack the referee's boundary: deep nesting, an endless line, a crash message with a lone
surrogate and NUL, a raw protocol line with surrogate escapes, a start staller. Every match finishes at
its first attempt (none failed, none stuck); every hostile seat forfeits and is placed below the honest
seat, which is ``ok`` in every match.

The hostile bots could never pass an upload's smoke match, so they are stored with the factory; they only
run through the sandbox (the test is skipped, and fails in CI, where there is none).
"""

from pathlib import Path

import pytest

from ladder.models import Match, Seat
from ladder.services.tournaments import tournament_create
from tests.conftest import FIRST_LEGAL_BOT, wait_until
from tests.factories import BotFactory

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

HOSTILE = Path(__file__).resolve().parents[1] / "bots" / "hostile"


def hostile(name: str, **constants) -> bytes:
    header = "".join(f"{key} = {value!r}\n" for key, value in constants.items())
    return (header + (HOSTILE / f"{name}.py").read_text()).encode()


HOSTILE_BOTS = {
    "deep": hostile("deep_nesting", DEPTH=200000),
    "deep1000": hostile("deep_nesting", DEPTH=1000),
    "endless": hostile("huge_line"),
    "surrogate": hostile("surrogate_crash"),
    "rawline": hostile("raw_protocol", LINE=b'{"type":"error","kind":"crash","message":"\\ud800\\u0000"}\n'),
    "staller": hostile("start_staller", MODE="spin", STALL_S=30),
}


def test_a_round_robin_against_hostile_bots_finishes_every_match(worker_pool, bots_allow_unsafe):
    if bots_allow_unsafe:
        pytest.skip("no isolation on this machine: hostile bots run only in the sandbox")
    worker_pool.start(concurrency=2)
    honest = BotFactory(name="honest", code=FIRST_LEGAL_BOT)
    bad = [BotFactory(name=name, code=code) for name, code in HOSTILE_BOTS.items()]
    tournament = tournament_create(created_by=honest.owner, game_slug="kingdomino", name="hostile",
                                   bot_ids=[honest.id] + [bot.id for bot in bad], players_per_match=2, seed=5)
    matches = Match.objects.filter(tournament=tournament)
    total = matches.count()

    def done():
        return matches.filter(status__in=["finished", "failed"]).count() == total

    try:
        wait_until(done, timeout=280, interval=1, message="every match to finish")
    except BaseException:
        print(worker_pool.logs())
        raise
    assert list(matches.exclude(status="finished").values_list("id", "status", "failure_reason")) == []
    assert set(matches.values_list("attempts", flat=True)) == {1}
    honest_seats = Seat.objects.filter(match__tournament=tournament, bot=honest)
    assert honest_seats.count() == len(bad)
    assert [(s.outcome, s.place) for s in honest_seats] == [("ok", 1)] * len(bad), \
        [s.reason for s in honest_seats]
    hostile_seats = Seat.objects.filter(match__tournament=tournament).exclude(bot=honest)
    assert hostile_seats.filter(outcome="ok").count() == 0
    assert set(hostile_seats.filter(match__seats__bot=honest).values_list("place", flat=True)) == {2}
    for seat in hostile_seats:
        assert "\x00" not in seat.reason + seat.log
