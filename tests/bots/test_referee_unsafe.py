"""The referee's rules with benign bots, in the unsafe launcher (hostile bots never run there)."""

import pytest
from sandbox_helpers import FIRST_BOT, GREEDY_BOT, bot_source

from bots.referee import BotSpec, Limits, play_match
from bots.sandbox.unsafe import UnsafeSandbox

FAST = Limits(move_ms=300, bank_ms=300, start_ms=5000)


@pytest.fixture(scope="module")
def unsafe():
    return UnsafeSandbox()


def test_plays_a_match_and_ranks_the_greedy_bot_first(race, unsafe):
    result = play_match(race, [BotSpec("first", FIRST_BOT), BotSpec("greedy", GREEDY_BOT)], seed=1,
                        limits=FAST, sandbox=unsafe)
    assert [s.outcome for s in result.seats] == ["ok", "ok"]
    assert sum(result.actions) == 12
    assert result.seats[1].place == 1 and result.seats[0].place == 2
    assert "seat 1 sees 1" in result.seats[1].log
    assert result.to_json()["seats"][1] == {"bot": "greedy", "score": result.seats[1].score, "place": 1,
                                           "outcome": "ok", "reason": ""}


def test_illegal_action_forfeits_and_first_legal_action_is_played(race, unsafe):
    illegal = bot_source("""
        def act(observation, legal_actions):
            return 7
    """)
    result = play_match(race, [BotSpec("bad", illegal), BotSpec("greedy", GREEDY_BOT)], seed=1,
                        limits=FAST, sandbox=unsafe)
    bad = result.seats[0]
    assert bad.outcome == "illegal_action" and "7" in bad.reason
    assert bad.place == 2
    assert result.actions[0] == 1 and sum(result.actions) == 12
