"""Hostile bots cannot void their match: played as the task plays it (claim, the real sandbox, recording
on the configured database), every match against them is recorded, the hostile seat forfeits and is placed
last, the honest seat is ``ok``, and the rating change is applied.

The bots are those of ``tests/bots/hostile/``: they only run through the sandbox, so the test is skipped
(failed in CI) where there is none.
"""

from pathlib import Path

import pytest

from ladder.models import Match, RatingChange
from ladder.services.tournaments.round_robins import tournament_create
from tests.factories import FIRST_LEGAL_BOT
from workers.execution import match_execute

pytestmark = pytest.mark.django_db

HOSTILE = Path(__file__).resolve().parents[1] / "bots" / "hostile"


def hostile(name: str, **constants) -> bytes:
    header = "".join(f"{key} = {value!r}\n" for key, value in constants.items())
    return (header + (HOSTILE / f"{name}.py").read_text()).encode()


@pytest.fixture
def isolated(bots_allow_unsafe):
    # (bots_allow_unsafe itself fails in CI when there is no sandbox.)
    if bots_allow_unsafe:
        pytest.skip("no isolation on this machine: hostile bots run only in the sandbox")


# (bot, outcome): each one voided its match on the referee of before (an exception out of play_match or
# out of the recording), or made the honest seat forfeit with it.
CASES = [
    (hostile("deep_nesting", DEPTH=200000), "bad_output"),
    (hostile("deep_nesting", DEPTH=1000), "bad_output"),
    (hostile("surrogate_crash"), "crash"),
    (hostile("raw_protocol", LINE=b'{"type":"error","kind":"crash","message":"\\ud800\\u0000"}\n'), "bad_output"),
    (hostile("start_staller", MODE="sleep", STALL_S=30), "timeout"),
]


@pytest.mark.parametrize(("code", "outcome"), CASES,
                         ids=["deep-200000", "deep-1000", "surrogate-crash", "raw-surrogate", "start-staller"])
def test_a_match_against_a_hostile_bot_is_recorded_with_the_hostile_seat_last(isolated, bot_factory, code,
                                                                                outcome):
    bad, honest = bot_factory(code=code), bot_factory(code=FIRST_LEGAL_BOT)
    # Rated (the server's own), so that recording it moves ratings.
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="t", bot_ids=[bad.id, honest.id],
                                   players_per_match=2, rated=True)
    for match in tournament.matches.all():
        assert match_execute(match_id=match.id, worker="here") == "recorded"
        match.refresh_from_db()
        assert match.status == Match.Status.FINISHED
        seats = {seat.bot_id: seat for seat in match.seats.all()}
        assert (seats[bad.id].outcome, seats[bad.id].place) == (outcome, 2), seats[bad.id].reason
        assert (seats[honest.id].outcome, seats[honest.id].place) == ("ok", 1), seats[honest.id].reason
        assert "\x00" not in seats[bad.id].reason + seats[bad.id].log
        assert RatingChange.objects.filter(match=match).count() == 2
