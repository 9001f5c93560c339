"""Deadlines are fair per seat: each seat's clock runs only on its own time, and what a bot wrote in time
is read before it is judged late. (Fake bots of ``fake_bots.py``; the sandboxed start staller is in
``test_hostile_boundary.py``.)"""

from __future__ import annotations

import time

import pytest
from fake_bots import FakeSandbox, ScriptedProcess, honest

from bots.referee import BotSpec, Limits, play_match
from bots.seat_io import Forfeit, SeatedBot

LIMITS = Limits(start_ms=300, move_ms=200, bank_ms=200, match_ms=3000)


def answered_then_hangs(ends, process):
    ends.write(ends.stdout, b'{"type":"ready"}\n')
    ends.hang()


def wait_until_readable(process, timeout_s: float = 2.0) -> None:
    import select

    readable, _, _ = select.select([process.from_bot], [], [], timeout_s)
    assert readable, "the fake bot did not write"


def test_an_answer_waiting_in_the_pipe_is_read_before_the_deadline_is_judged():
    """The referee looks only after the deadline (it was busy): the bot answered in time, so it is not late."""
    process = ScriptedProcess(answered_then_hangs)
    seat = SeatedBot(0, BotSpec("prompt", b""), LIMITS, process=process)
    try:
        wait_until_readable(process)
        assert seat.receive(time.monotonic() - 1, "late") == {"type": "ready"}
    finally:
        seat.stop()


def test_nothing_waiting_past_the_deadline_is_a_timeout():
    process = ScriptedProcess(lambda ends, process: ends.hang())
    seat = SeatedBot(0, BotSpec("silent", b""), LIMITS, process=process)
    try:
        with pytest.raises(Forfeit) as caught:
            seat.receive(time.monotonic() - 1, "late")
        assert (caught.value.outcome, caught.value.reason) == ("timeout", "late")
    finally:
        seat.stop()


def test_a_bot_that_answered_and_exited_is_not_blamed_for_its_exit():
    """Its answer and the end of its pipe arrive together: the answer counts, the exit comes after it."""
    process = ScriptedProcess(lambda ends, process: ends.write(ends.stdout, b'{"type":"ready"}\n'))
    seat = SeatedBot(0, BotSpec("quick", b""), LIMITS, process=process)
    try:
        process._thread.join(timeout=2)
        assert seat.receive(time.monotonic() - 1, "late") == {"type": "ready"}
        with pytest.raises(Forfeit) as caught:
            seat.receive(time.monotonic() + 1, "late")
        assert caught.value.outcome == "crash"
    finally:
        seat.stop()


@pytest.mark.parametrize("players", [2, 3, 4])
def test_a_seat_stalling_at_start_costs_no_other_seat_its_start(race, players):
    """Seat 0 never answers start; every other seat is told start only once seat 0 is out, so its own
    start time is whole."""
    told_start: dict[int, float] = {}

    def recording_honest(seat_index):
        def script(ends, process):
            first = ends.read_line()
            told_start[seat_index] = time.monotonic()
            ends.pending[:0] = first + b"\n"
            honest(ends, process)
        return script

    scripts = {b"staller": lambda ends, process: ends.hang()}
    scripts.update({f"honest{i}".encode(): recording_honest(i) for i in range(1, players)})
    bots = [BotSpec("staller", b"staller")] + [BotSpec(f"honest{i}", f"honest{i}".encode()) for i in range(1, players)]
    began = time.monotonic()
    result = play_match(race, bots, seed=2, limits=LIMITS, sandbox=FakeSandbox(scripts))
    staller, *others = result.seats
    assert (staller.outcome, staller.reason, staller.place) == ("timeout", "no answer to start within 300 ms",
                                                                 players)
    assert [seat.outcome for seat in others] == ["ok"] * (players - 1)
    assert all(seat.place < players for seat in others)
    assert min(told_start.values()) - began >= LIMITS.start_ms / 1000
