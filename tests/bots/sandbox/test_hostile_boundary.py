"""Hostile bots against the referee's boundary, in the real sandbox: what a bot writes never makes the
referee raise or the result unstorable, and a bot that stalls while starting never costs another seat its
match.

Each bot of ``tests/bots/hostile/`` used here attacks one of those promises (docs/bots.md, "What the sandbox
guarantees") and must get the outcome its test names; the honest seats must finish ``ok``. Like every hostile
bot they only ever run through the sandbox.
"""

from __future__ import annotations

import time

import pytest
from sandbox_helpers import GREEDY_BOT
from test_hostile import OPPONENT, bot_uid_processes, hostile

from bots.referee import BotSpec, Limits, play_match

LIMITS = Limits(move_ms=400, bank_ms=200, start_ms=5000, memory_mb=128, log_bytes=16384)


def assert_storable(text: str) -> None:
    """What PostgreSQL's text columns and a JSON response accept: valid UTF-8 without NUL, bounded."""
    text.encode("utf-8")  # raises on a lone surrogate
    assert "\x00" not in text
    assert len(text) <= 20000


def play(box, race, code: bytes, limits: Limits = LIMITS):
    """The hostile bot in seat 0 against an honest one; checks what every such match must give."""
    started = time.monotonic()
    result = play_match(race, [BotSpec("hostile", code), BotSpec("victim", OPPONENT)], seed=7, limits=limits,
                        sandbox=box)
    hostile_seat, victim = result.seats
    assert victim.outcome == "ok", victim.reason
    assert sum(result.actions) == 12  # the match finished
    for seat in result.seats:
        assert_storable(seat.reason)
        assert_storable(seat.log)
    assert time.monotonic() - started < 10
    assert bot_uid_processes(box) == []
    assert box.leftovers() == []
    if hostile_seat.outcome != "ok":
        assert (hostile_seat.place, victim.place) == (2, 1)
    return hostile_seat


@pytest.mark.parametrize("depth", [200000, 1000, 100])
def test_a_deeply_nested_answer_is_bad_output(sandbox, race, depth):
    """200000 levels break a recursive parser; 1000 pass orjson's limit but break a recursive encoder."""
    seat = play(sandbox, race, hostile("deep_nesting", DEPTH=depth))
    assert seat.outcome == "bad_output"
    assert "nested deeper than" in seat.reason


def test_an_endless_line_is_cut_off_as_bad_output(sandbox, race):
    seat = play(sandbox, race, hostile("huge_line"))
    assert seat.outcome == "bad_output"
    assert f"answer longer than {LIMITS.max_message_bytes} bytes" in seat.reason


def test_a_crash_message_with_a_lone_surrogate_and_nul_is_a_crash_with_storable_text(sandbox, race):
    seat = play(sandbox, race, hostile("surrogate_crash"))
    assert seat.outcome == "crash"
    assert seat.reason.startswith("the bot raised RuntimeError: lost ")
    assert "on purpose" in seat.reason
    assert "raw invalid utf-8 \ufffd" in seat.log
    assert "surrogate, NUL" in seat.log


# (line the bot writes instead of answering, outcome, words of the reason)
RAW_LINES = [
    (b'{"type":"error","kind":"crash","message":"\\ud800\\u0000 forged"}\n', "bad_output", "not JSON"),
    (b'{"type":"error","kind":"crash","message":"' + b"\\udfff" * 5000 + b'"}\n', "bad_output", "not JSON"),
    (b'{"type":"action","action":"\xff\xfe\xc0\xaf"}\n', "bad_output", "not JSON"),
    (b'{"type":"action","action":"\\u0000\\ud83d\\ude00"}\n', "illegal_action", "illegal action"),
    (b'{"type":"error","kind":"crash","message":"nul \\u0000 ' + b"x" * 100000 + b'"}\n', "crash", "nul"),
    (b'{"type":"error","kind":{"a":[1]},"message":[1,[2,[3]]]}\n', "crash", "[1, [2, [3]]]"),
    (b'{"type":"action","action":{"1":2, "1":3}}\n', "illegal_action", "illegal action"),
    (b'{"type":"action","action":true}\n', "illegal_action", "illegal action true"),
    (b'{"type":"action","action":1e400}\n', "bad_output", "not JSON"),
    (b'{"type":"action","action":123456789012345678901234567890}\n', "illegal_action", "illegal action"),
    (b'{"type":"action"}\n', "bad_output", "expected an action"),
    (b'{"type":"ready"}\n', "bad_output", "expected an action"),
    (b'{"type":["action"],"action":1}\n', "bad_output", "no type"),
    (b'["type","action"]\n', "bad_output", "not a JSON object"),
    (b"\x00" * 1000 + b"\n", "bad_output", "not JSON"),
]


@pytest.mark.parametrize(("line", "outcome", "words"), RAW_LINES,
                         ids=[f"{outcome}-{index}" for index, (_, outcome, _) in enumerate(RAW_LINES)])
def test_raw_protocol_lines_forfeit_with_a_storable_reason(sandbox, race, line, outcome, words):
    seat = play(sandbox, race, hostile("raw_protocol", LINE=line))
    assert seat.outcome == outcome
    assert words in seat.reason
    assert len(seat.reason) <= 1000


@pytest.mark.parametrize("players", [2, 3, 4])
@pytest.mark.parametrize("mode", ["sleep", "spin"])
def test_a_bot_stalling_at_start_forfeits_alone_and_last(sandbox, race, players, mode):
    """Seat 0 stalls far beyond its start allowance; the honest seats behind it keep their whole own."""
    limits = Limits(move_ms=400, bank_ms=200, start_ms=1000, memory_mb=128, log_bytes=16384)
    honest = [BotSpec("first", OPPONENT), BotSpec("greedy", GREEDY_BOT), BotSpec("first-again", OPPONENT)]
    bots = [BotSpec("staller", hostile("start_staller", MODE=mode, STALL_S=30))] + honest[: players - 1]
    started = time.monotonic()
    result = play_match(race, bots, seed=3, limits=limits, sandbox=sandbox)
    staller, *others = result.seats
    assert [seat.outcome for seat in others] == ["ok"] * (players - 1), [seat.reason for seat in others]
    assert staller.outcome == "timeout"
    assert staller.reason == "no answer to start within 1000 ms"
    assert staller.place == players
    assert all(seat.place < players for seat in others)
    assert sum(result.actions) == 12
    assert time.monotonic() - started < 10
    assert bot_uid_processes(sandbox) == []
