"""``manage.py bench``: what the sandbox costs, measured side by side in one run on this machine.

* ``sandbox.fresh_start_ms``: median time from asking for a bot to its ``ready`` answer when every bot
  gets a fresh sandboxed interpreter (the usual approach), ``sandbox.zygote_start_ms`` the same with the
  warm zygote, ``sandbox.start_speedup`` their ratio; each start on a worker with nothing else to do
  (the sandboxes' clean-up after the previous start done). ``sandbox.zygote_start_ms.after_fresh``: a
  warm start right after a fresh one, whose clean-up (the interpreter's exit, its cell's next shell)
  then competes with it for the CPUs.
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
* ``sandbox.pipe_round_trip_us``: the floor, a bare pipe round trip between two unpinned processes (the
  sandbox's are unpinned too), beside it ``.same_cpu`` and ``.cross_cpu`` with both pinned
  (:func:`pipe_placement_figures`): the unpinned figure is one of the two, as the scheduler placed them.
* ``match.cpu_ms.in_process``, ``match.cpu_ms.sandboxed`` and ``match.cpu_ratio``: the machine's CPU time
  per match, back to back, the sandbox's background work included (:func:`cpu_figures`).
* ``sandbox.stop_us.paused`` and ``sandbox.stop_us.running``: what ending a bot costs the match, paused
  (the seat not on move at the end) and running (:func:`stop_figures`).

Both sides of each ratio run interleaved, so that a busy machine slows both alike. Each match is timed
as one match on a worker with nothing else to do: the sandbox's work after a match (reaping its bots,
preparing their successors in the background) is left out of both sides, and must not land on the
in-process match that follows. What that work costs when matches follow each other is in the pipeline
figures (``pipeline.referee_matches_per_s``).
"""

from __future__ import annotations

import functools
import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time

import engines
from bots.match_result import MatchResult, SeatResult
from bots.referee import BotSpec, Limits, _await_ready, play_match
from bots.sandbox import launch
from bots.sandbox.zygote import ZygoteSandbox, _read_line
from bots.seat_io import SeatedBot, encode_line, parse_reply
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


def _settle(*sandboxes: ZygoteSandbox) -> None:
    """Wait until every bot of ``sandboxes`` is reaped and their cells have had the time to prepare their
    next shells (``sandbox.prepare_us``: a few milliseconds)."""
    for sandbox in sandboxes:
        sandbox.wait_idle()
    time.sleep(0.02)


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


def _machine_cpu_s() -> float:
    """CPU seconds the whole machine has spent busy since boot (every process and the kernel), from
    ``/proc/stat``; 0.0 where there is no such file."""
    try:
        with open("/proc/stat") as stat:
            fields = [int(value) for value in stat.readline().split()[1:]]
    except (OSError, ValueError):
        return 0.0
    idle = fields[3] + (fields[4] if len(fields) > 4 else 0)
    return (sum(fields) - idle) / os.sysconf("SC_CLK_TCK")


def cpu_figures(sandbox: ZygoteSandbox, bots: list[BotSpec], matches: int) -> dict:
    """``match.cpu_ms.in_process`` and ``match.cpu_ms.sandboxed``: the machine's CPU time per match, for
    ``matches`` matches played back to back, as a worker plays them: in-process, then through the
    sandbox, the background work after each match (reaping its bots, preparing their cells' next
    shells) included; ``match.cpu_ratio`` their ratio. What a worker machine can play is its cores over
    this, not over a match's wall time. Machine-wide: whatever else runs meanwhile is counted too
    (``machine.load_1m``)."""
    sandbox.wait_idle()
    # Ten times as many in-process matches: the kernel counts CPU time in ticks of some 10 ms.
    began = _machine_cpu_s()
    for seed in range(matches * 10):
        play_match_in_process(BENCH_GAME, bots, seed=seed % matches)
    in_process = (_machine_cpu_s() - began) / 10
    began = _machine_cpu_s()
    for seed in range(matches):
        play_match(BENCH_GAME, bots, seed=seed, sandbox=sandbox)
    sandbox.wait_idle()
    # The cells' next shells are made after the reaper hands them back: waited for too.
    time.sleep(0.05)
    sandboxed = _machine_cpu_s() - began
    figures = {"match.cpu_ms.in_process": in_process * 1000 / matches,
               "match.cpu_ms.sandboxed": sandboxed * 1000 / matches}
    figures["match.cpu_ratio"] = figures["match.cpu_ms.sandboxed"] / max(figures["match.cpu_ms.in_process"], 1e-3)
    return figures


def stop_figures(sandbox: ZygoteSandbox, repeats: int) -> dict:
    """``sandbox.stop_us.paused`` and ``sandbox.stop_us.running``: median host time of ending a started bot
    (:meth:`~bots.sandbox.process.BotProcess.close`: its kill and its pipes) while it is paused, as the
    seat not on move is when a match ends, and while it runs. The sandbox's clean-up of the cell after
    (the reaper's thaw and wait) is not on this path, and is waited out between samples."""
    times: dict[str, list[float]] = {"paused": [], "running": []}
    for _ in range(repeats):
        for state, paused in (("paused", True), ("running", False)):
            bot = _started_bot(sandbox, _FIRST_BOT)
            if paused:
                bot.pause()
            time.sleep(0.0005)
            began = time.perf_counter()
            bot.close()
            times[state].append((time.perf_counter() - began) * 1e6)
            sandbox.wait_idle()
    return {f"sandbox.stop_us.{state}": statistics.median(values) for state, values in times.items()}


# ---------------------------------------------------------------------------------------------------
# Where the time goes: a decision's parts, a start's parts, and the floor (a bare pipe round trip)

_ECHO = ("import os\n"
         "while True:\n"
         "    data = os.read(0, 65536)\n"
         "    if not data:\n"
         "        break\n"
         "    os.write(1, data)\n")


def pipe_round_trip_us(samples: int, cpus: tuple[int, int] | None = None) -> float:
    """Median microseconds of one line sent to another Python process on this machine and echoed back
    over two pipes, each side blocked in ``read`` meanwhile: two wake-ups, four system calls, no sandbox.
    No exchange of a bot's decision can be cheaper.

    ``cpus`` (this process's, the echo's) pins both for the measurement; unpinned, the scheduler places
    them, and the figure is then whichever placement it chose: a wake-up on the same CPU is a context
    switch, one on another CPU an interrupt to it (on a virtual machine several times dearer)."""
    mine = os.sched_getaffinity(0)
    child = subprocess.Popen([sys.executable, "-I", "-S", "-c", _ECHO], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, bufsize=0)
    try:
        if cpus is not None:
            os.sched_setaffinity(0, {cpus[0]})
            os.sched_setaffinity(child.pid, {cpus[1]})
        to_child, from_child = child.stdin.fileno(), child.stdout.fileno()
        times = []
        for _ in range(samples + 20):
            began = time.perf_counter()
            os.write(to_child, _ACT)
            got = os.read(from_child, 65536)
            times.append((time.perf_counter() - began) * 1e6)
            if got != _ACT:
                raise RuntimeError(f"the echo process answered {got[:80]!r}")
        return statistics.median(times[20:])
    finally:
        os.sched_setaffinity(0, mine)
        child.stdin.close()
        child.stdout.close()
        child.wait()


def pipe_placement_figures(samples: int) -> dict:
    """``sandbox.pipe_round_trip_us.same_cpu`` and ``.cross_cpu``: the floor with both processes pinned
    to one CPU, and to two (where this process may run on two), so that a run's unpinned floor can be
    read against both."""
    allowed = sorted(os.sched_getaffinity(0))
    figures = {"sandbox.pipe_round_trip_us.same_cpu": pipe_round_trip_us(samples, (allowed[0], allowed[0]))}
    if len(allowed) > 1:
        figures["sandbox.pipe_round_trip_us.cross_cpu"] = pipe_round_trip_us(samples, (allowed[0], allowed[1]))
    return figures


def _recorded_decisions(seed: int) -> list[tuple[int, dict, list]]:
    """(player, observation, legal actions) of every decision of one in-process match, as asked."""
    state = engines.get(BENCH_GAME).new_state(2, seed, None)
    steps = []
    while not state.is_terminal():
        player = state.current_player()
        legal = state.legal_actions()
        steps.append((player, state.observation(player), legal))
        state.apply(legal[len(steps) % len(legal)])
    return steps


def _bot_side_us(code: bytes, steps, lines: list[bytes]) -> list[float]:
    """What the bot's side of each decision costs without a sandbox: the SDK's parse of the ``act`` line,
    the random bot's ``act`` and the encoding of its answer, in this process."""
    from bots import sdk
    from bots.loader import load_bot
    from bots.sandbox.unpacked_code import CodeCache

    act = load_bot(CodeCache().path_for(code), game=BENCH_GAME, seat=0, players=2, options={},
                   module_name="_bench_bot_side")
    times = []
    for line in lines:
        began = time.perf_counter()
        message = sdk._parse_line(line)
        action = act(message["observation"], message["legal_actions"])
        (json.dumps({"type": "action", "action": action}, separators=(",", ":")) + "\n").encode()
        times.append((time.perf_counter() - began) * 1e6)
    return times


def decision_breakdown(sandbox: ZygoteSandbox, repeats: int) -> dict:
    """``sandbox.decision_us.<part>``: the referee's steps of a decision (:func:`bots.referee._decide`)
    timed one by one, median microseconds, over the decisions of ``repeats`` recorded Kingdomino matches
    replayed to two sandboxed random bots, paused between their turns as in a match.

    ``drain_log`` (both looks at the log pipe), ``encode`` (the ``act`` line), ``write`` (into the pipe,
    while the bot is still paused), ``wait`` (from the bot resumed to the whole answer in hand: the bot's wake-up, its work, the referee's
    wake-up and reads), ``memory_check``, ``parse`` (the answer, bounded), ``find_action``;
    ``pause_resume`` is the freezer's thaw (with what of the line the pipe did not take before) and
    freeze, averaged over every decision (a seat that moves
    again is not paused in between); ``total`` the median of whole decisions, ``total_mean`` and
    ``total_p90`` their mean and 90th percentile. Of ``wait``,
    ``bot_work`` is what the bot's side (the SDK's parse, a random ``act``, its answer's encoding) costs
    in this process, and ``exchange`` the rest: what the pipes and the wake-ups cost, to be set against
    ``sandbox.pipe_round_trip_us``."""
    code = random_bot_path(BENCH_GAME).read_bytes()
    limits = Limits()
    parts = ("drain_log", "encode", "write", "resume", "wait", "memory_check", "parse", "find_action", "pause")
    times: dict[str, list[float]] = {part: [] for part in parts}
    totals: list[float] = []
    lines: list[bytes] = []
    all_steps = []
    for seed in range(repeats):
        steps = _recorded_decisions(seed)
        all_steps.extend(steps)
        seats = [SeatedBot(index, BotSpec("random", code), limits) for index in range(2)]
        try:
            for seat in seats:
                seat.process = sandbox.spawn(code, limits)
            _await_ready(seats, BENCH_GAME, {})
            for step, (player, observation, legal) in enumerate(steps):
                seat = seats[player]
                process = seat.process
                clock = time.perf_counter
                t0 = clock()
                seat.drain_log()
                t1 = clock()
                seat.decisions.open(step)
                seat.deciding = True
                line = encode_line({"type": "act", "observation": observation, "legal_actions": legal,
                                     "time_left_ms": 1000})
                t2 = clock()
                pending = seat.offer(line)
                t3 = clock()
                process.resume()
                seat.send_rest(pending, time.monotonic() + 30)
                t4 = clock()
                deadline = time.monotonic() + 30
                while (newline := seat.inbox.find(b"\n")) < 0:
                    readable, _, _ = select.select([process.from_bot, process.log], [], [], deadline - time.monotonic())
                    if not readable:
                        raise RuntimeError("the benchmark bot did not answer")
                    if process.log in readable:
                        seat.drain_log()
                    if process.from_bot in readable:
                        seat._read_waiting()
                answer = bytes(seat.inbox[:newline])
                del seat.inbox[: newline + 1]
                t5 = clock()
                seat.drain_log()
                t6 = clock()
                seat.check_memory()
                t7 = clock()
                reply = parse_reply(answer, limits.max_message_bytes)
                t8 = clock()
                engines.find_action(legal, reply["action"])
                t9 = clock()
                if step + 1 == len(steps) or steps[step + 1][0] != player:
                    process.pause()
                t10 = clock()
                lines.append(line)
                for part, took in zip(parts, (t1 - t0 + t6 - t5, t2 - t1, t3 - t2, t4 - t3, t5 - t4, t7 - t6,
                                              t8 - t7, t9 - t8, t10 - t9)):
                    times[part].append(took * 1e6)
                totals.append((t10 - t0) * 1e6)
        finally:
            for seat in seats:
                seat.stop()
        sandbox.wait_idle()
    figures = {f"sandbox.decision_us.{part}": statistics.median(values) for part, values in times.items()
               if part not in ("resume", "pause")}
    # Most decisions pause nobody: the median would say 0. The mean says what pausing costs a decision.
    figures["sandbox.decision_us.pause_resume"] = statistics.fmean(
        [a + b for a, b in zip(times["resume"], times["pause"])])
    figures["sandbox.decision_us.total"] = statistics.median(totals)
    # A match pays the mean, and on a busy machine the slowest tenth (a bot or the referee waiting for a
    # CPU after its wake-up) outweighs the rest.
    figures["sandbox.decision_us.total_mean"] = statistics.fmean(totals)
    figures["sandbox.decision_us.total_p90"] = statistics.quantiles(totals, n=10)[-1]
    bot_side = _bot_side_us(code, all_steps, lines)
    figures["sandbox.decision_us.bot_work"] = statistics.median(bot_side)
    figures["sandbox.decision_us.exchange"] = statistics.median(
        [wait - work for wait, work in zip(times["wait"], bot_side)])
    figures["sandbox.decision_us.act_bytes"] = statistics.median(len(line) for line in lines)
    return figures


#: The steps of a warm start on its path (host, then the bot's shell), in order; each part is the time
#: from the end of the previous step to the end of this one.
_HOST_STEPS = ("host.cell_and_limits", "host.take_shell", "host.init_pidfd", "host.send_request", "host.handle")
_SHELL_STEPS = ("bot.descriptors", "bot.copy_code", "bot.tmp", "bot.rlimits", "bot.credentials",
                "bot.seccomp", "bot.verify")
#: What a cell prepares ahead of the next bot (off the start's path, while the previous bot plays).
_PREPARE_STEPS = ("shell.fork", "shell.namespaces", "shell.announce_init", "shell.mount_code_folder",
                  "shell.warm_up", "shell.pivot_root", "shell.tmp", "shell.interpreter",
                  "shell.streams", "shell.seccomp")


def start_breakdown(sandbox: ZygoteSandbox, code: bytes, repeats: int) -> dict:
    """``sandbox.start_us.<part>``: where a warm start goes, median microseconds over ``repeats`` starts,
    from the marks the host and the bot's shell take of their steps (``spawn(report_steps=True)``, the
    same clock on both sides).

    On the host: ``host.cell_and_limits`` (pipes, a free cell, its cgroup limits when they change),
    ``host.take_shell`` (the cell's prepared shell; waiting here means it was not ready yet),
    ``host.init_pidfd``, ``host.send_request`` (the request and the bot's pipes), ``host.handle``. In the
    shell: ``bot.shell_not_ready`` (how long the request waited for the shell to finish its preparation:
    none if the cell had time enough), ``bot.request_wake`` (from the request sent, or the shell
    prepared if that came later, to the shell awake with it), ``bot.descriptors``,
    ``bot.copy_code`` (into its tmpfs), ``bot.tmp`` (its /tmp resized, if its limits ask for another size
    than the one mounted ahead), ``bot.rlimits``, ``bot.credentials``
    (host uid, capabilities, no_new_privs), ``bot.seccomp`` (the filter's second half), ``bot.verify``;
    then ``bot.load_and_ready``
    (from the later of the confinement done and ``start`` written, to ``ready`` read: the SDK reads
    ``start``, imports the bot's module, answers). ``total`` is the median start.
    ``sandbox.prepare_us.<part>`` is what the cell does ahead of need (the shell's fork into its pid
    namespace, its other namespaces, its init's pidfd sent, its code folder mounted, the warm-up, the
    pivot into the runtime root and the host's tree detached, the bot's /tmp mounted, the interpreter's
    environment, import path and working directory, the SDK's streams, the first half of the seccomp
    filter)."""
    parts: dict[str, list[float]] = {}

    def add(name: str, microseconds: float) -> None:
        parts.setdefault(name, []).append(microseconds)

    for _ in range(repeats):
        sandbox.wait_idle()
        # The reaper asks a cell for its next shell once the previous bot is gone: let it be made, as
        # it is while a match plays (``bot.shell_not_ready`` tells whether this was enough).
        time.sleep(0.02)
        bot = sandbox.spawn(code, Limits(), report_steps=True)
        try:
            os.set_blocking(bot.to_bot, True)
            os.write(bot.to_bot, _START)
            written = time.monotonic()
            reply = _read_line(bot.from_bot, 30)
            ready = time.monotonic()
            if b'"ready"' not in reply:
                raise RuntimeError(f"the benchmark bot did not start: {reply[:200]!r}")
            status = _read_line_or_eof(bot.status)
        finally:
            bot.close()
        if not status.startswith(launch.STEPS_PREFIX):
            raise RuntimeError(f"the bot's shell reported no steps: {status[:200]!r}")
        host = dict(bot.spawn_marks)
        shell = dict(json.loads(status[len(launch.STEPS_PREFIX):]))
        previous = host["host.begin"]
        for step in _HOST_STEPS:
            add(f"sandbox.start_us.{step}", (host[step] - previous) * 1e6)
            previous = host[step]
        # A shell still being prepared when its request came reads it once it is done.
        prepared = shell[_PREPARE_STEPS[-1]]
        add("sandbox.start_us.bot.shell_not_ready", max(0.0, prepared - host["host.send_request"]) * 1e6)
        add("sandbox.start_us.bot.request_wake",
            (shell["bot.request_received"] - max(prepared, host["host.send_request"])) * 1e6)
        previous = shell["bot.request_received"]
        for step in _SHELL_STEPS:
            add(f"sandbox.start_us.{step}", (shell[step] - previous) * 1e6)
            previous = shell[step]
        add("sandbox.start_us.bot.load_and_ready", (ready - max(shell["bot.verify"], written)) * 1e6)
        add("sandbox.start_us.total", (ready - host["host.begin"]) * 1e6)
        previous = shell["cell.before_fork"]
        for step in _PREPARE_STEPS:
            add(f"sandbox.prepare_us.{step.removeprefix('shell.')}", (shell[step] - previous) * 1e6)
            previous = shell[step]
    return {name: statistics.median(values) for name, values in parts.items()}


def _read_line_or_eof(fd: int) -> bytes:
    """All a pipe holds until its writer closes it (the status pipe: closed before the bot runs)."""
    os.set_blocking(fd, True)
    data = b""
    while chunk := os.read(fd, 65536):
        data += chunk
    return data


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
            fresh_ms, zygote_ms, after_fresh_ms = [], [], []
            for _ in range(repeats):
                # Each start on a worker with nothing else to do, as each match below: the other
                # sandbox's clean-up after its bot (a fresh interpreter's exit, its cell's next shell)
                # would otherwise land on the start that follows it.
                _settle(fresh, zygote)
                fresh_ms.append(_start_ms(fresh, code))
                _settle(fresh, zygote)
                zygote_ms.append(_start_ms(zygote, code))
                # ``after_fresh``: right after a fresh start, its clean-up running meanwhile.
                _settle(fresh, zygote)
                _start_ms(fresh, code)
                after_fresh_ms.append(_start_ms(zygote, code))
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
            breakdown = {**decision_breakdown(zygote, max(2, repeats // 4)),
                         **start_breakdown(zygote, code, repeats), **stop_figures(zygote, repeats),
                         **cpu_figures(zygote, bots, max(20, repeats * 2))}
            floor_us = pipe_round_trip_us(max(200, repeats * 20))
            placements = pipe_placement_figures(max(200, repeats * 20))
        finally:
            fresh.close()
            for sandbox in paused.values():
                sandbox.close()
    figures = {
        "sandbox.fresh_start_ms": statistics.median(fresh_ms),
        "sandbox.zygote_start_ms": statistics.median(zygote_ms),
        "sandbox.zygote_start_ms.after_fresh": statistics.median(after_fresh_ms),
        "match.in_process_ms": statistics.median(in_process_ms),
        "match.sandboxed_ms": statistics.median(sandboxed_ms[used]),
        "match.sandboxed_sigstop_ms": statistics.median(sandboxed_ms["sigstop"]),
        "match.sandboxed_unfrozen_ms": statistics.median(sandboxed_ms["none"]),
        "match.decisions": statistics.median(decisions),
        **pause_figures,
        **breakdown,
        "sandbox.pipe_round_trip_us": floor_us,
        **placements,
        # How busy the machine was: the figures above are worth comparing only with runs as busy.
        "machine.load_1m": os.getloadavg()[0],
    }
    figures["sandbox.start_speedup"] = figures["sandbox.fresh_start_ms"] / figures["sandbox.zygote_start_ms"]
    figures["match.ratio"] = figures["match.sandboxed_ms"] / figures["match.in_process_ms"]
    figures["match.ratio_sigstop"] = figures["match.sandboxed_sigstop_ms"] / figures["match.in_process_ms"]
    figures["match.ratio_unfrozen"] = figures["match.sandboxed_unfrozen_ms"] / figures["match.in_process_ms"]
    figures["pause.match_cost_per_decision_us"] = (
        (figures["match.sandboxed_ms"] - figures["match.sandboxed_unfrozen_ms"]) * 1000 / figures["match.decisions"])
    # What a match pays per decision beyond the in-process match, its two bots' starts left out.
    figures["sandbox.decision_overhead_us"] = (
        (figures["match.sandboxed_ms"] - figures["match.in_process_ms"] - 2 * figures["sandbox.zygote_start_ms"])
        * 1000 / figures["match.decisions"])
    figures["sandbox.decision_overhead_ratio"] = figures["sandbox.decision_overhead_us"] / floor_us
    figures["sandbox.exchange_ratio"] = figures["sandbox.decision_us.exchange"] / floor_us
    figures["match.repeats"] = repeats
    return {key: round(value, 2) if isinstance(value, float) else value for key, value in sorted(figures.items())}


def play_match_in_process(game: str, bots: list[BotSpec], *, seed: int,
                          options: dict | None = None) -> MatchResult:
    """The same match with every bot called in this process: no isolation, no clock. Benchmarks only."""
    from bots.loader import load_bot, wants_time_left
    from bots.sandbox.unpacked_code import CodeCache

    started = time.monotonic()
    engine = engines.get(game)
    state = engine.new_state(len(bots), seed, options)
    resolved_options = engine.resolve_options(options)
    cache = CodeCache()
    acts = [load_bot(cache.path_for(spec.code), game=game, seat=index, players=len(bots),
                     options=resolved_options, module_name=f"_inprocess_bot_{index}")
            for index, spec in enumerate(bots)]
    # No clock here: a bot that manages its own time is told it has a whole default allowance.
    defaults = Limits()
    allowance_ms = defaults.move_ms + defaults.bank_ms
    acts = [functools.partial(act, time_left_ms=allowance_ms) if wants_time_left(act) else act for act in acts]
    actions = []
    while not state.is_terminal():
        player = state.current_player()
        legal = state.legal_actions()
        action = engines.find_action(legal, acts[player](state.observation(player), legal))
        state.apply(action)
        actions.append(action)
    scores, ranking = state.scores(), state.ranking()
    return MatchResult(
        game=game, players=len(bots), seed=seed, options=resolved_options, actions=actions,
        seats=[SeatResult(bot=spec.name, score=scores[i], place=ranking[i], outcome="ok", reason="",
                          time_used_ms=0, log="") for i, spec in enumerate(bots)],
        duration_s=round(time.monotonic() - started, 3), unsafe=True,
    )
