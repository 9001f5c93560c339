"""``manage.py bench``: what the sandbox costs, measured side by side in one run on this machine.

* ``sandbox.fresh_start_ms``: median time from asking for a bot to its ``ready`` answer when every bot
  gets a fresh sandboxed interpreter (the usual approach), ``sandbox.zygote_start_ms`` the same with the
  warm zygote, ``sandbox.start_speedup`` their ratio.
* ``match.in_process_ms``: median wall time of a 2-player Kingdomino match between the random bots called
  in-process (no isolation, no clock), ``match.sandboxed_ms`` the same matches through the sandbox (start,
  every decision over the protocol, teardown), ``match.ratio`` their ratio.

Both sides of each ratio run interleaved, so that a busy machine slows both alike. Each match is timed
as one match on a worker with nothing else to do: the sandbox's work after a match (reaping its bots,
preparing their successors in the background) is left out of both sides, and must not land on the
in-process match that follows. What that work costs when matches follow each other is in the pipeline
figures (``pipeline.referee_matches_per_s``).
"""

from __future__ import annotations

import os
import statistics
import tempfile
import time

from bots.referee import BotSpec, Limits, play_match, play_match_in_process
from bots.sandbox.zygote import ZygoteSandbox, _read_line
from bots.validate import random_bot_path

BENCH_GAME = "kingdomino"
_START = b'{"type":"start","game":"kingdomino","seat":0,"players":2,"options":{}}\n'


def _start_ms(sandbox: ZygoteSandbox, code: bytes) -> float:
    """Milliseconds from spawning a bot to its ``ready`` answer."""
    began = time.perf_counter()
    bot = sandbox.spawn(code, Limits())
    try:
        os.set_blocking(bot.to_bot, True)
        os.write(bot.to_bot, _START)
        reply = _read_line(bot.from_bot, 30)
        elapsed = (time.perf_counter() - began) * 1000
    finally:
        bot.close()
    if b'"ready"' not in reply:
        raise RuntimeError(f"the benchmark bot did not start: {reply[:200]!r}")
    return elapsed


def bench_sandbox(*, repeats: int = 40) -> dict:
    """The figures above as a flat dict (milliseconds and ratios, rounded)."""
    code = random_bot_path(BENCH_GAME).read_bytes()
    bots = [BotSpec("random", code), BotSpec("random", code)]
    with tempfile.TemporaryDirectory(prefix="botladder-bench-") as cache_dir:
        fresh = ZygoteSandbox(cache_dir, mode="fresh").start()
        zygote = ZygoteSandbox(cache_dir, mode="zygote").start()
        try:
            fresh_ms, zygote_ms = [], []
            for _ in range(repeats):
                fresh_ms.append(_start_ms(fresh, code))
                zygote_ms.append(_start_ms(zygote, code))
            fresh.close()
            in_process_ms, sandboxed_ms = [], []
            play_match_in_process(BENCH_GAME, bots, seed=0)  # warm the engine's caches alike for both
            play_match(BENCH_GAME, bots, seed=0, sandbox=zygote)
            for seed in range(repeats):
                # The reaper thread of the sandbox lives in this process: while it cleans up after the
                # last sandboxed match it would slow the in-process match down, flattering the ratio.
                zygote.wait_idle()
                began = time.perf_counter()
                play_match_in_process(BENCH_GAME, bots, seed=seed)
                in_process_ms.append((time.perf_counter() - began) * 1000)
                began = time.perf_counter()
                result = play_match(BENCH_GAME, bots, seed=seed, sandbox=zygote)
                sandboxed_ms.append((time.perf_counter() - began) * 1000)
                if any(seat.outcome != "ok" for seat in result.seats):
                    raise RuntimeError(f"a benchmark match went wrong: {result.seats}")
        finally:
            fresh.close()
            zygote.close()
    figures = {
        "sandbox.fresh_start_ms": statistics.median(fresh_ms),
        "sandbox.zygote_start_ms": statistics.median(zygote_ms),
        "match.in_process_ms": statistics.median(in_process_ms),
        "match.sandboxed_ms": statistics.median(sandboxed_ms),
    }
    figures["sandbox.start_speedup"] = figures["sandbox.fresh_start_ms"] / figures["sandbox.zygote_start_ms"]
    figures["match.ratio"] = figures["match.sandboxed_ms"] / figures["match.in_process_ms"]
    figures["match.repeats"] = repeats
    return {key: round(value, 2) if isinstance(value, float) else value for key, value in sorted(figures.items())}


def format_table(figures: dict) -> str:
    """A human-readable table of :func:`bench_sandbox`'s figures."""
    width = max(len(key) for key in figures)
    return "\n".join(f"{key.ljust(width)}  {value}" for key, value in figures.items()) + "\n"
