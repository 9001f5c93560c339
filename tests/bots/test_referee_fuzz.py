"""``play_match`` never raises because of what a bot did: property tests with fake bots.

A fake sandbox (``fake_bots.py``) hands the referee real pipes, with a thread of this test at the far end
playing a script that hypothesis writes (random bytes, huge and deep lines, lines with
lone surrogate escapes, NUL and invalid UTF-8, a partial line then a close, closing at once, never
reading, "ready" then garbage, hanging). The fakes are our own trusted code, so they run without the
sandbox; hostile *bots* are tested in the sandbox elsewhere. Whatever the script, the match must finish
with a result: the scripted seat ``ok`` or forfeited and placed last, every honest seat ``ok``, every text
storable.
"""

from __future__ import annotations

import json
import time

import pytest
from fake_bots import BotEnds, FakeSandbox, ScriptedProcess
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.referee import OUTCOMES, BotSpec, Limits, play_match
from bots.untrusted import REASON_CHARS

MAX_MESSAGE = 4096
# Short, but with room for the honest fakes on a loaded machine: a hang costs at most start_ms or
# move_ms + bank_ms.
LIMITS = Limits(start_ms=300, move_ms=100, bank_ms=300, match_ms=3000, max_message_bytes=MAX_MESSAGE,
                log_bytes=2048)


# --- What a scripted bot does ------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(min_value=-5, max_value=2**70) | st.floats() | st.text(max_size=12),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=6), inner, max_size=4),
    max_leaves=12,
)


def _message(kind, payload, extra) -> bytes:
    # json.dumps escapes lone surrogates as \ud800, writes NaN and Infinity: all things a bot may send.
    body = {"type": kind, "action": payload, "kind": extra, "message": payload}
    return json.dumps(body).encode() + b"\n"


def _deep(depth: int, wrapped: bool) -> bytes:
    nested = b"[" * depth + b"]" * depth
    return (b'{"type":"action","action":' + nested + b"}\n") if wrapped else nested + b"\n"


lines = st.one_of(
    st.binary(max_size=64),
    st.binary(max_size=64).map(lambda data: data + b"\n"),
    st.just(b'{"type":"ready"}\n'),
    st.sampled_from([1, 2, 3, 4, True, 1.0, "1", [1], None]).map(
        lambda action: json.dumps({"type": "action", "action": action}).encode() + b"\n"),
    st.builds(_message, st.sampled_from(["ready", "action", "error", "start", ""]) | json_values, json_values,
              st.sampled_from(["crash", "memory", "bad_output", "timeout"]) | json_values),
    st.builds(_deep, st.integers(min_value=1, max_value=3000), st.booleans()),
    st.integers(min_value=MAX_MESSAGE - 64, max_value=3 * MAX_MESSAGE).map(lambda size: b"x" * size),
    st.integers(min_value=MAX_MESSAGE - 64, max_value=MAX_MESSAGE + 64).map(
        lambda size: b'{"type":"action","action":"' + b"y" * size + b'"}\n'),
    st.text(max_size=20).map(lambda text: json.dumps({"type": "error", "kind": "crash", "message": text},
                                                      ensure_ascii=bool(len(text) % 2)).encode("utf-8", "surrogatepass")
                             + b"\n"),
    st.sampled_from([b'{"type":"error","kind":"crash","message":"\\ud800\\u0000"}\n',
                     b'{"type":"action","action":"\xff\xfe"}\n', b"\x00" * 10 + b"\n", b'{"type":"act', b"\n"]),
)

steps = st.one_of(
    st.tuples(st.just("read"), st.none()),
    st.tuples(st.just("write"), lines),
    st.tuples(st.just("log"), st.binary(max_size=3000)),
    st.tuples(st.just("close_stdout"), st.none()),
    st.tuples(st.just("pause"), st.floats(min_value=0, max_value=0.05)),
)

scripts = st.tuples(st.lists(steps, max_size=8), st.sampled_from(["exit", "hang", "echo_garbage", "play"]))


def scripted(plan) -> object:
    """A fake bot that plays ``plan``: its steps, then its ending."""
    steps_, ending = plan

    def script(ends: BotEnds, process: ScriptedProcess) -> None:
        for step, argument in steps_:
            if step == "read":
                ends.read_line()
            elif step == "write" and ends.stdout not in process.closed_ends:
                ends.write(ends.stdout, argument)
            elif step == "log":
                ends.write(ends.log, argument)
            elif step == "close_stdout":
                process.close_end(ends.stdout)
            elif step == "pause":
                time.sleep(argument)
        if ends.stdout in process.closed_ends or ending == "exit":
            return
        if ending == "hang":
            ends.hang()
        while ends.read_line() is not None:
            # "play" answers like an honest bot from now on; "echo_garbage" answers with what it was sent.
            ends.write(ends.stdout, b'{"type":"action","action":1}\n' if ending == "play" else b"[garbage]\n")

    return script


def assert_storable(text: str) -> None:
    text.encode("utf-8")
    assert "\x00" not in text


def check_result(result, bad_seat: int, players: int) -> None:
    bad = result.seats[bad_seat]
    assert bad.outcome in OUTCOMES
    assert len(bad.reason) <= REASON_CHARS
    for index, seat in enumerate(result.seats):
        assert_storable(seat.reason)
        assert_storable(seat.log)
        if index != bad_seat:
            assert seat.outcome == "ok", seat.reason
            assert seat.place < players or bad.outcome == "ok"
    if bad.outcome != "ok":
        assert bad.place == players
    assert sum(result.actions) == 12  # the match finished: every decision was taken


# The race game is registered once for all examples, which is what a function-scoped fixture gives here.
@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(plan=scripts, players=st.integers(min_value=2, max_value=3), data=st.data())
def test_play_match_returns_a_result_whatever_a_bot_writes(race, plan, players, data):
    bad_seat = data.draw(st.integers(min_value=0, max_value=players - 1), label="bad_seat")
    sandbox = FakeSandbox({b"scripted": scripted(plan)})
    bots = [BotSpec(f"honest{index}", b"honest") for index in range(players)]
    bots[bad_seat] = BotSpec("scripted", b"scripted")
    result = play_match(race, bots, seed=1, limits=LIMITS, sandbox=sandbox)
    check_result(result, bad_seat, players)
    assert all(not process._thread.is_alive() for process in sandbox.spawned)


@pytest.mark.parametrize("plan", [
    ([], "exit"),  # closes its pipes at once
    ([("read", None), ("write", b'{"type":"ready"}\n'), ("read", None), ("write", b'{"type":"act')], "exit"),
    ([("read", None), ("write", b'{"type":"ready"}\n'), ("write", b"garbage\n")], "hang"),
    ([("write", b"[" * 200000 + b"\n")], "hang"),
    ([("read", None), ("write", b'{"type":"ready"}\n'), ("read", None),
      ("write", b'{"type":"action","action":' + b"[" * 1000 + b"1" + b"]" * 1000 + b"}\n")], "hang"),
    ([("write", b"z" * 200000)], "hang"),  # a line longer than the pipe and the message limit
    ([("log", b"\xff\x00" * 5000), ("close_stdout", None)], "hang"),
], ids=["closes-at-once", "partial-line-then-close", "ready-then-garbage", "deep-at-start", "deep-action",
        "huge-line", "closes-stdout-keeps-log"])
def test_known_hostile_scripts(race, plan):
    for bad_seat in (0, 1):
        bots = [BotSpec("honest", b"honest"), BotSpec("honest", b"honest")]
        bots[bad_seat] = BotSpec("scripted", b"scripted")
        result = play_match(race, bots, seed=1, limits=LIMITS, sandbox=FakeSandbox({b"scripted": scripted(plan)}))
        check_result(result, bad_seat, 2)
        assert result.seats[bad_seat].outcome != "ok"


def test_a_bot_that_never_reads_its_input_times_out_when_the_pipe_is_full(race):
    """A long race fills the smallest pipe the kernel gives: the referee's write waits out the move time."""

    def never_reads(ends, process):
        ends.write(ends.stdout, b'{"type":"ready"}\n' + b'{"type":"action","action":1}\n' * 1000)
        ends.hang()

    sandbox = FakeSandbox({b"deaf": never_reads}, pipe_bytes=4096)
    limits = Limits(start_ms=500, move_ms=100, bank_ms=0, match_ms=5000)
    result = play_match(race, [BotSpec("deaf", b"deaf"), BotSpec("honest", b"honest")], seed=1,
                        options={"target": 400}, limits=limits, sandbox=sandbox)
    deaf, honest_seat = result.seats
    assert (deaf.outcome, deaf.reason) == ("timeout", "the bot stopped reading its input")
    assert (honest_seat.outcome, deaf.place, honest_seat.place) == ("ok", 2, 1)
    assert sum(result.actions) == 400


def test_answers_written_ahead_in_one_write_are_taken_one_per_decision(race):
    """A bot may write several answers at once: the referee reads up to the first line's end, and each
    later line answers a later decision, whether it waited in the referee's inbox or in the pipe."""

    def ahead(ends, process):
        ends.read_line()
        # ready, then the answers to the first three decisions, the third split across two writes.
        ends.write(ends.stdout, b'{"type":"ready"}\n')
        ends.read_line()
        ends.write(ends.stdout, b'{"type":"action","action":2}\n{"type":"action","action":1}\n{"type":')
        ends.write(ends.stdout, b'"action","action":2}\n')
        while (line := ends.read_line()) is not None:
            message = json.loads(line)
            if message["type"] == "end":
                return
            ends.write(ends.stdout, json.dumps({"type": "action", "action": 1}).encode() + b"\n")

    result = play_match(race, [BotSpec("ahead", b"ahead"), BotSpec("honest", b"honest")], seed=1, limits=LIMITS,
                        sandbox=FakeSandbox({b"ahead": ahead}))
    assert [seat.outcome for seat in result.seats] == ["ok", "ok"]
    assert result.actions[0::2][:3] == [2, 1, 2]
