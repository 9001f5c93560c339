"""``bots.seat_io``: the referee's end of one seat: encoding protocol lines, parsing replies into
messages or forfeits, and a :class:`SeatedBot` talking to a fake bot (our own code in a thread, on real
pipes, ``fake_bots.py``): sending, receiving within a deadline, the log, and what the bot's exit means.

Deadline fairness (what waits is read before lateness is judged) is in ``test_referee_deadlines.py``.
"""

from __future__ import annotations

import json
import time

import pytest
from fake_bots import ScriptedProcess, honest

from bots.match_result import BotSpec
from bots.sandbox.policy import Limits
from bots.seat_io import Forfeit, SeatedBot, encode_line, parse_reply

LIMITS = Limits(start_ms=500, move_ms=500, bank_ms=0, match_ms=5000, log_bytes=64, max_message_bytes=200)


def test_encode_line_is_compact_json_with_a_newline():
    assert encode_line({"type": "act", "legal_actions": [1, "é"]}) == '{"type":"act","legal_actions":[1,"é"]}\n'.encode()
    # Keys that are not strings are written as strings, as json would.
    assert json.loads(encode_line({"view": {1: "a"}})) == {"view": {"1": "a"}}


def test_parse_reply_returns_the_message():
    assert parse_reply(b'{"type":"action","action":{"pick":1}}', 100) == {"type": "action", "action": {"pick": 1}}


@pytest.mark.parametrize(("line", "outcome"), [
    (b"not json", "bad_output"), (b"[1, 2]", "bad_output"), (b'{"type": 3}', "bad_output"),
    (b'{"type":"action","pad":"' + b"x" * 200 + b'"}', "bad_output"),
])
def test_unusable_replies_forfeit_as_bad_output(line, outcome):
    with pytest.raises(Forfeit) as caught:
        parse_reply(line, 100)
    assert caught.value.outcome == outcome and caught.value.reason == str(caught.value)


@pytest.mark.parametrize(("reply", "outcome", "reason"), [
    ({"type": "error", "kind": "crash", "message": "KeyError: 'x'"}, "crash", "the bot raised KeyError: 'x'"),
    ({"type": "error", "kind": "memory", "message": "MemoryError"}, "memory",
     "the bot ran out of memory: MemoryError"),
    ({"type": "error", "kind": "bad_output", "message": "not JSON"}, "bad_output", "not JSON"),
    ({"type": "error", "kind": "timeout", "message": "forged"}, "crash", "the bot raised forged"),
    ({"type": "error", "message": ["a", 1]}, "crash", "the bot raised ['a', 1]"),
])
def test_error_reports_forfeit_with_their_kind(reply, outcome, reason):
    with pytest.raises(Forfeit) as caught:
        parse_reply(json.dumps(reply).encode(), 1000)
    assert (caught.value.outcome, caught.value.reason) == (outcome, reason)


def seat_of(script) -> SeatedBot:
    return SeatedBot(0, BotSpec("fake", b""), LIMITS, process=ScriptedProcess(script))


def test_a_new_seat_has_its_budgets_and_is_live_with_a_process():
    seat = seat_of(honest)
    try:
        assert seat.live and seat.outcome == "ok" and seat.bank_left_ms == LIMITS.bank_ms
        assert seat.log.head_limit + seat.log.tail_limit == LIMITS.log_bytes
        assert not SeatedBot(1, BotSpec("none", b""), LIMITS).live
    finally:
        seat.stop()


def test_send_and_receive_speak_the_protocol_and_the_log_is_captured():
    seat = seat_of(honest)
    try:
        seat.send({"type": "start"}, time.monotonic() + 2)
        assert seat.receive(time.monotonic() + 2, "late") == {"type": "ready"}
        seat.deciding = True
        seat.decisions.open(0)
        seat.send({"type": "act", "legal_actions": [{"pick": 2}]}, time.monotonic() + 2)
        assert seat.receive(time.monotonic() + 2, "late") == {"type": "action", "action": {"pick": 2}}
        deadline = time.monotonic() + 2
        while "thinking" not in seat.log.text() and time.monotonic() < deadline:
            seat.drain_log()
        assert seat.log.text() == "thinking\n" and seat.decisions.to_json()[0]["log"] == "thinking\n"
    finally:
        seat.stop()


def test_a_bot_that_exits_without_answering_crashed():
    seat = seat_of(lambda ends, process: None)
    try:
        process = seat.process
        process._thread.join(timeout=2)
        with pytest.raises(Forfeit) as caught:
            seat.receive(time.monotonic() + 2, "late")
        assert (caught.value.outcome, caught.value.reason) == ("crash", "the bot's process ended without answering")
    finally:
        seat.stop()


def test_an_answer_longer_than_the_limit_is_bad_output():
    def chatty(ends, process):
        ends.write(ends.stdout, b"x" * 1000)
        ends.hang()

    seat = seat_of(chatty)
    try:
        with pytest.raises(Forfeit) as caught:
            seat.receive(time.monotonic() + 2, "late")
        assert caught.value.outcome == "bad_output" and "200 bytes" in caught.value.reason
    finally:
        seat.stop()


def test_two_lines_in_one_read_are_two_messages():
    def eager(ends, process):
        ends.write(ends.stdout, b'{"type":"ready"}\n{"type":"action","action":1}\n')
        ends.hang()

    seat = seat_of(eager)
    try:
        assert seat.receive(time.monotonic() + 2, "late") == {"type": "ready"}
        assert seat.receive(time.monotonic() - 1, "late") == {"type": "action", "action": 1}
    finally:
        seat.stop()


def test_forfeit_records_the_outcome_and_stops_the_bot():
    seat = seat_of(lambda ends, process: ends.hang())
    seat.forfeit("timeout", "too slow")
    assert (seat.outcome, seat.reason, seat.live) == ("timeout", "too slow", False)
    assert not seat.process._thread.is_alive()
    seat.stop()  # safe to repeat
