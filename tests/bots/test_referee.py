"""The referee's clock and results with well-behaved bots in the real sandbox."""

from __future__ import annotations

import os

import pytest
from sandbox_helpers import FIRST_BOT, bot_source

from bots.referee import BotSpec, Limits, play_match

SLOW_BOT = bot_source("""
    import time

    def act(observation, legal_actions):
        time.sleep(0.3)
        return legal_actions[0]
""")


def test_time_beyond_each_move_is_drawn_from_the_bank(sandbox, race):
    """300 ms per move against 200 ms per move and a 250 ms bank: the third move runs out of time."""
    limits = Limits(move_ms=200, bank_ms=250)
    result = play_match(race, [BotSpec("slow", SLOW_BOT), BotSpec("first", FIRST_BOT)], seed=1, limits=limits,
                        sandbox=sandbox)
    slow, first = result.seats
    assert slow.outcome == "timeout"
    assert slow.reason.startswith("no answer within 200 ms plus a bank of ")
    assert 750 <= slow.time_used_ms < 1200
    assert (slow.place, first.place) == (2, 1)
    assert result.actions == [1] * 12


def test_a_move_within_its_allowance_costs_no_bank(sandbox, race):
    limits = Limits(move_ms=1000, bank_ms=100)
    result = play_match(race, [BotSpec("slow", SLOW_BOT), BotSpec("first", FIRST_BOT)], seed=1, limits=limits,
                        sandbox=sandbox)
    assert [seat.outcome for seat in result.seats] == ["ok", "ok"]
    assert result.seats[0].time_used_ms >= 6 * 300


# 150 ms per decision: inside a 200 ms move, so it never touches its bank; six decisions take 900 ms.
STEADY_BOT = bot_source("""
    import time

    def act(observation, legal_actions):
        time.sleep(0.15)
        return legal_actions[0]
""")

# Logs the allowance of each decision beside the time its own calls took before it. The SDK does not pass
# ``time_left_ms`` to ``act``; its caller's frame holds the message as received.
CLOCK_READER = bot_source("""
    import sys
    import time

    spent = 0.0

    def act(observation, legal_actions):
        global spent
        began = time.monotonic()
        message = sys._getframe(1).f_locals["message"]
        print("left", message["time_left_ms"], "spent", int(spent * 1000))
        time.sleep(0.1)
        spent += time.monotonic() - began
        return legal_actions[0]
""")


def test_a_seat_that_spends_its_match_time_forfeits(sandbox, race):
    """150 ms per move fits a 200 ms move, but six of them do not fit 500 ms for the whole match."""
    limits = Limits(move_ms=200, bank_ms=5000, match_ms=500)
    result = play_match(race, [BotSpec("steady", STEADY_BOT), BotSpec("first", FIRST_BOT)], seed=1,
                        limits=limits, sandbox=sandbox)
    steady, first = result.seats
    assert (steady.outcome, steady.reason) == ("timeout", "the bot used its 500 ms for the whole match")
    assert 500 <= steady.time_used_ms < 700
    assert (first.outcome, first.reason) == ("ok", "")
    assert (steady.place, first.place) == (2, 1)
    assert result.actions == [1] * 12


def test_a_bot_within_its_match_time_is_unaffected(sandbox, race):
    limits = Limits(move_ms=200, bank_ms=0, match_ms=2000)
    result = play_match(race, [BotSpec("steady", STEADY_BOT), BotSpec("first", FIRST_BOT)], seed=1,
                        limits=limits, sandbox=sandbox)
    assert [(seat.outcome, seat.reason) for seat in result.seats] == [("ok", ""), ("ok", "")]
    assert 900 <= result.seats[0].time_used_ms < 2000


def test_time_left_is_never_more_than_the_match_time_left(sandbox, race):
    """A 1.2 s allowance per move (move and bank) is cut to what is left of 450 ms for the match."""
    limits = Limits(move_ms=200, bank_ms=1000, match_ms=450)
    result = play_match(race, [BotSpec("reader", CLOCK_READER), BotSpec("first", FIRST_BOT)], seed=1,
                        limits=limits, sandbox=sandbox)
    reader = result.seats[0]
    told = [(int(left), int(spent)) for _, left, _, spent in (line.split() for line in reader.log.splitlines())]
    assert told[0] == (450, 0)
    # The referee's clock also counts the protocol, so what is left is below 450 ms less the bot's own time.
    assert all(left <= 450 - spent for left, spent in told)
    assert [left for left, _ in told] == sorted({left for left, _ in told}, reverse=True)
    assert 4 <= len(told) <= 5
    assert (reader.outcome, reader.reason) == ("timeout", "the bot used its 450 ms for the whole match")


@pytest.mark.skipif(os.geteuid() != 0, reason="as an ordinary user every bot has that user's uid")
def test_seats_of_one_match_run_as_different_users(sandbox, race):
    whoami = bot_source("""
        import os

        def act(observation, legal_actions):
            print("uid", os.getuid(), "pid", os.getpid())
            return legal_actions[0]
    """)
    result = play_match(race, [BotSpec("a", whoami), BotSpec("b", whoami)], seed=1, sandbox=sandbox)
    first_lines = [seat.log.splitlines()[0] for seat in result.seats]
    assert first_lines[0] != first_lines[1]
    assert all(line.endswith("pid 1") for line in first_lines)


def test_a_dead_zygote_is_replaced_by_the_shared_sandbox(sandbox, race):
    from bots.sandbox import get_sandbox

    first = get_sandbox(cache_dir=None)
    first._process.kill()
    first._process.wait()
    assert not first.alive()
    second = get_sandbox(cache_dir=None)
    assert second is not first and second.alive()
    result = play_match(race, [BotSpec("a", FIRST_BOT), BotSpec("b", FIRST_BOT)], seed=1)
    assert [seat.outcome for seat in result.seats] == ["ok", "ok"]


def test_bots_may_import_the_allowed_packages_and_the_sdk_parses_with_orjson(sandbox, race):
    probe = bot_source("""
        import sys

        import numpy
        import orjson

        def act(observation, legal_actions):
            print("orjson parses:", sys.modules["bots.sdk"]._parse_line is orjson.loads, numpy.int64(1) + 1)
            return legal_actions[0]
    """)
    result = play_match(race, [BotSpec("probe", probe), BotSpec("first", FIRST_BOT)], seed=1, sandbox=sandbox)
    assert result.seats[0].outcome == "ok", result.seats[0].reason
    assert result.seats[0].log.splitlines()[0] == "orjson parses: True 2"


def test_protocol_lines_are_compact_utf8_json_with_string_keys():
    import json

    from bots.seat_io import encode_line

    message = {"type": "act", "observation": {"names": ["Zoë", "Åsa"], 3: [1.5, None, True]}}
    line = encode_line(message)
    assert line.endswith(b"\n") and line.count(b"\n") == 1
    assert line == json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"
    # Without a non-string key (the usual message, encoded on the fast path) the same JSON.
    del message["observation"][3]
    assert encode_line(message) == json.dumps(message, separators=(",", ":"), ensure_ascii=False).encode() + b"\n"


def test_an_act_taking_time_left_ms_is_given_its_allowance(sandbox, race):
    timed = bot_source("""
        class Bot:
            def __init__(self, game, seat, players, options):
                pass

            def act(self, observation, legal_actions, time_left_ms):
                print("allowance", time_left_ms)
                return legal_actions[0]
    """)
    limits = Limits(move_ms=300, bank_ms=200, match_ms=10000)
    result = play_match(race, [BotSpec("timed", timed), BotSpec("first", FIRST_BOT)], seed=1, limits=limits,
                        sandbox=sandbox)
    assert [seat.outcome for seat in result.seats] == ["ok", "ok"]
    allowances = [int(line.split()[1]) for line in result.seats[0].log.splitlines()]
    assert len(allowances) == 6
    assert all(400 <= allowance <= 500 for allowance in allowances)


def test_bots_start_from_the_bytecode_the_code_cache_wrote(sandbox, race):
    """Proven by changing the cached source behind the bytecode's back: the bot still runs what was
    compiled (hash-based bytecode is never checked against its source)."""
    code = bot_source("""
        def act(observation, legal_actions):
            print("compiled version")
            return legal_actions[0]
    """)
    folder = sandbox.cache.path_for(code)
    source = folder / "bot.py"
    source.chmod(0o644)
    source.write_text(source.read_text().replace("compiled version", "source version"))
    result = play_match(race, [BotSpec("cached", code), BotSpec("first", FIRST_BOT)], seed=1, sandbox=sandbox)
    assert result.seats[0].outcome == "ok"
    assert result.seats[0].log.splitlines()[0] == "compiled version"
