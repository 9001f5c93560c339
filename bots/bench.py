"""``manage.py bench``: what the sandbox costs, measured side by side in one run on this machine.

* ``sandbox.fresh_start_ms``: median time from asking for a bot to its ``ready`` answer when every bot
  gets a fresh sandboxed interpreter (the usual approach), ``sandbox.zygote_start_ms`` the same with the
  warm zygote, ``sandbox.start_speedup`` their ratio.
* ``match.in_process_ms``: median wall time of a 2-player Kingdomino match between the random bots called
  in-process (no isolation, no clock), ``match.sandboxed_ms`` the same matches through the sandbox (start,
  every decision over the protocol, teardown), ``match.ratio`` their ratio. The bots are paused while not
  on move, as in every match (the cgroup freezer as root).
* ``match.sandboxed_unfrozen_ms`` and ``match.ratio_unfrozen``: the same sandboxed matches with the bots
  never paused; ``match.sandboxed_sigstop_ms`` and ``match.ratio_sigstop`` with SIGSTOP/SIGCONT of each
  bot's first process instead of the freezer. ``pause.match_cost_per_decision_us`` is what pausing adds
  to a match (frozen against unfrozen), per decision (``match.decisions`` per match).
* ``pause.freezer_pair_us`` and ``pause.sigstop_pair_us``: median host time of one pause and resume of an
  idle bot, by the freezer and by signals; ``pause.freezer_decision_us``, ``pause.sigstop_decision_us``
  and ``pause.none_decision_us``: median round trip of one decision (resume, ``act``, answer, pause) with
  each, and without pausing.

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
_ACT = b'{"type":"act","observation":{},"legal_actions":[1,2],"time_left_ms":1000}\n'
_FIRST_BOT = b"def act(observation, legal_actions):\n    return legal_actions[0]\n"
#: Pausing mechanisms measured against the one matches use (the freezer as root).
_OTHER_PAUSES = ("sigstop", "none")


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


def _started_bot(sandbox: ZygoteSandbox, code: bytes):
    bot = sandbox.spawn(code, Limits())
    os.set_blocking(bot.to_bot, True)
    os.write(bot.to_bot, _START)
    reply = _read_line(bot.from_bot, 30)
    if b'"ready"' not in reply:
        bot.close()
        raise RuntimeError(f"the benchmark bot did not start: {reply[:200]!r}")
    return bot


def _pause_figures(sandboxes: dict[str, ZygoteSandbox], repeats: int) -> dict:
    """Pause and resume pairs, and decisions paused in between, by each mechanism, interleaved."""
    bots = {name: _started_bot(sandbox, _FIRST_BOT) for name, sandbox in sandboxes.items()}
    pairs: dict[str, list[float]] = {name: [] for name in bots}
    decisions: dict[str, list[float]] = {name: [] for name in bots}
    try:
        for bot in bots.values():
            bot.pause()
        for _ in range(repeats * 5):
            for name, bot in bots.items():
                # A moment of quiet first, as between two decisions of a match: the bot is asleep again.
                time.sleep(0.0005)
                began = time.perf_counter()
                bot.resume()
                bot.pause()
                pairs[name].append((time.perf_counter() - began) * 1e6)
                time.sleep(0.0005)
                began = time.perf_counter()
                bot.resume()
                os.write(bot.to_bot, _ACT)
                reply = _read_line(bot.from_bot, 30)
                bot.pause()
                decisions[name].append((time.perf_counter() - began) * 1e6)
                if b'"action"' not in reply:
                    raise RuntimeError(f"the benchmark bot did not answer: {reply[:200]!r}")
    finally:
        for bot in bots.values():
            bot.close()
    figures = {}
    for name in bots:
        if name != "none":
            figures[f"pause.{name}_pair_us"] = statistics.median(pairs[name])
        figures[f"pause.{name}_decision_us"] = statistics.median(decisions[name])
    return figures


def bench_sandbox(*, repeats: int = 40) -> dict:
    """The figures above as a flat dict (milliseconds, microseconds and ratios, rounded)."""
    code = random_bot_path(BENCH_GAME).read_bytes()
    bots = [BotSpec("random", code), BotSpec("random", code)]
    with tempfile.TemporaryDirectory(prefix="botladder-bench-") as cache_dir:
        fresh = ZygoteSandbox(cache_dir, mode="fresh").start()
        zygote = ZygoteSandbox(cache_dir, mode="zygote").start()
        used = zygote.pause_mechanism
        paused = {used: zygote}
        try:
            for name in _OTHER_PAUSES:
                if name not in paused:
                    paused[name] = ZygoteSandbox(cache_dir, mode="zygote", pause=name).start()
            fresh_ms, zygote_ms = [], []
            for _ in range(repeats):
                fresh_ms.append(_start_ms(fresh, code))
                zygote_ms.append(_start_ms(zygote, code))
            fresh.close()
            in_process_ms: list[float] = []
            sandboxed_ms: dict[str, list[float]] = {name: [] for name in paused}
            decisions = []
            play_match_in_process(BENCH_GAME, bots, seed=0)  # warm the engine's caches alike for all
            for sandbox in paused.values():
                play_match(BENCH_GAME, bots, seed=0, sandbox=sandbox)
            for seed in range(repeats):
                for name, sandbox in paused.items():
                    # The reaper threads of the sandboxes live in this process: while one cleans up after
                    # the last sandboxed match it would slow the next match down, whichever it is.
                    for other in paused.values():
                        other.wait_idle()
                    if name == used:
                        began = time.perf_counter()
                        play_match_in_process(BENCH_GAME, bots, seed=seed)
                        in_process_ms.append((time.perf_counter() - began) * 1000)
                    began = time.perf_counter()
                    result = play_match(BENCH_GAME, bots, seed=seed, sandbox=sandbox)
                    sandboxed_ms[name].append((time.perf_counter() - began) * 1000)
                    if any(seat.outcome != "ok" for seat in result.seats):
                        raise RuntimeError(f"a benchmark match went wrong: {result.seats}")
                decisions.append(len(result.actions))
            pause_figures = _pause_figures(paused, repeats)
        finally:
            fresh.close()
            for sandbox in paused.values():
                sandbox.close()
    figures = {
        "sandbox.fresh_start_ms": statistics.median(fresh_ms),
        "sandbox.zygote_start_ms": statistics.median(zygote_ms),
        "match.in_process_ms": statistics.median(in_process_ms),
        "match.sandboxed_ms": statistics.median(sandboxed_ms[used]),
        "match.sandboxed_sigstop_ms": statistics.median(sandboxed_ms["sigstop"]),
        "match.sandboxed_unfrozen_ms": statistics.median(sandboxed_ms["none"]),
        "match.decisions": statistics.median(decisions),
        **pause_figures,
    }
    figures["sandbox.start_speedup"] = figures["sandbox.fresh_start_ms"] / figures["sandbox.zygote_start_ms"]
    figures["match.ratio"] = figures["match.sandboxed_ms"] / figures["match.in_process_ms"]
    figures["match.ratio_sigstop"] = figures["match.sandboxed_sigstop_ms"] / figures["match.in_process_ms"]
    figures["match.ratio_unfrozen"] = figures["match.sandboxed_unfrozen_ms"] / figures["match.in_process_ms"]
    figures["pause.match_cost_per_decision_us"] = (
        (figures["match.sandboxed_ms"] - figures["match.sandboxed_unfrozen_ms"]) * 1000 / figures["match.decisions"])
    figures["match.repeats"] = repeats
    return {key: round(value, 2) if isinstance(value, float) else value for key, value in sorted(figures.items())}


def format_table(figures: dict) -> str:
    """A human-readable table of :func:`bench_sandbox`'s figures."""
    width = max(len(key) for key in figures)
    return "\n".join(f"{key.ljust(width)}  {value}" for key, value in figures.items()) + "\n"
