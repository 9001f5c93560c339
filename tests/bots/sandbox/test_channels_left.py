"""The channels between bots that the sandbox does not close, each measured by a pair of hostile bots
through the real sandbox at the rate the README states as a floor: if one of these tests fails, the
channel has narrowed or closed, and the README's sandbox section must say so.

- Think time: a bot has the clock, so a seat can count how long the others thought.
- The kernel's inode counter: pipes and sockets get their inode numbers from one sequence for the whole
  machine (socket cookies likewise), which any process moves by creating them.
"""

from __future__ import annotations

import random
from pathlib import Path

from bots.referee import BotSpec, Limits, play_match

HOSTILE = Path(__file__).parent.parent / "hostile"
SYMBOLS = 20


def _symbols_right(sandbox, race, source: str, bits: int, extra: str) -> int:
    """Plays the pair ``source`` sending ``SYMBOLS`` symbols of ``bits`` bits and returns how many the
    reading seat got right."""
    code = f"BITS = {bits}\n{extra}\nSEED = 11\n{source}".encode()
    result = play_match(race, [BotSpec("sends", code), BotSpec("reads", code)], seed=1,
                        options={"target": 2 * (SYMBOLS + 5)}, limits=Limits(match_ms=60000), sandbox=sandbox)
    assert [seat.outcome for seat in result.seats] == ["ok", "ok"], [seat.reason for seat in result.seats]
    rng = random.Random(11)
    sent = [rng.randrange(2 ** bits) for _ in range(SYMBOLS)]
    read = {int(line.split()[1]): int(line.split()[2])
            for line in result.seats[1].log.splitlines() if line.startswith("SYMBOL ")}
    assert sandbox.leftovers() == []
    return sum(read.get(index) == symbol for index, symbol in enumerate(sent))


def test_think_time_carries_four_bits_a_move(sandbox, race):
    """20 ms a step, 0 to 300 ms a move: the seat that reads gets nearly every symbol, even on a busy
    machine."""
    right = _symbols_right(sandbox, race, (HOSTILE / "think_time.py").read_text(), 4, "STEP_MS = 20.0")
    assert right >= SYMBOLS * 4 // 5, right


def test_the_kernel_s_pipe_inode_counter_carries_four_bits_a_move(sandbox, race):
    """64 pipes a step, at most 960 a move (milliseconds of work)."""
    right = _symbols_right(sandbox, race, (HOSTILE / "pipe_counter.py").read_text(), 4, "SPACING = 64")
    assert right >= SYMBOLS * 4 // 5, right
