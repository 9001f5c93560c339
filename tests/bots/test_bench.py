"""``bench``: every figure is measured and the ratios are computed from them."""

import os

import pytest
from sandbox_helpers import skip_without_isolation

from bots.bench import bench_sandbox
from bots.sandbox import SandboxUnavailable, get_sandbox

DECISION_PARTS = [f"sandbox.decision_us.{part}" for part in (
    "drain_log", "encode", "write", "wait", "memory_check", "parse", "find_action", "pause_resume",
    "total", "total_mean", "total_p90",
    "bot_work", "exchange", "act_bytes")]
START_PARTS = [f"sandbox.start_us.{part}" for part in (
    "host.cell_and_limits", "host.take_shell", "host.init_pidfd", "host.send_request", "host.handle",
    "bot.shell_not_ready", "bot.request_wake", "bot.descriptors", "bot.copy_code", "bot.tmp", "bot.rlimits",
    "bot.credentials", "bot.seccomp", "bot.verify", "bot.load_and_ready", "total")]
PREPARE_PARTS = [f"sandbox.prepare_us.{part}" for part in (
    "fork", "namespaces", "announce_init", "mount_code_folder", "warm_up", "pivot_root", "tmp", "interpreter", "streams",
    "seccomp")]


def test_bench_reports_every_figure():
    try:
        get_sandbox()
    except SandboxUnavailable as exc:
        skip_without_isolation(exc)
    figures = bench_sandbox(repeats=2)
    # Where matches are frozen by the cgroup freezer (as root) it is measured against SIGSTOP and nothing.
    assert set(figures) == {"sandbox.fresh_start_ms", "sandbox.zygote_start_ms", "sandbox.start_speedup",
                            "sandbox.zygote_start_ms.after_fresh",
                            "match.in_process_ms", "match.sandboxed_ms", "match.ratio", "match.repeats",
                            "match.sandboxed_sigstop_ms", "match.ratio_sigstop", "match.sandboxed_unfrozen_ms",
                            "match.ratio_unfrozen", "match.decisions", "pause.match_cost_per_decision_us",
                            "pause.freezer_pair_us", "pause.sigstop_pair_us", "pause.freezer_decision_us",
                            "pause.sigstop_decision_us", "pause.none_decision_us",
                            "sandbox.pipe_round_trip_us", "sandbox.decision_overhead_us",
                            "sandbox.decision_overhead_ratio", "sandbox.exchange_ratio", "machine.load_1m",
                            "sandbox.stop_us.paused", "sandbox.stop_us.running", "match.cpu_ms.in_process",
                            "sandbox.pipe_round_trip_us.same_cpu",
                            *(["sandbox.pipe_round_trip_us.cross_cpu"] if len(os.sched_getaffinity(0)) > 1 else []),
                            "match.cpu_ms.sandboxed", "match.cpu_ratio",
                            *DECISION_PARTS, *START_PARTS, *PREPARE_PARTS}
    # The cost of pausing is a difference of two medians: on a busy machine it may come out below zero.
    # So is what is left of a decision's wait once the bot's own work is taken out, and the overhead of a
    # match per decision once its starts are; a wake-up measured by two clocks may come out below zero.
    may_be_negative = {"pause.match_cost_per_decision_us", "sandbox.decision_us.exchange",
                       "sandbox.decision_overhead_us", "sandbox.decision_overhead_ratio", "sandbox.exchange_ratio",
                       "sandbox.start_us.bot.request_wake", "sandbox.start_us.bot.shell_not_ready",
                       "machine.load_1m"}
    assert all(figures[key] > 0 for key in figures if key not in may_be_negative), figures
    assert figures["sandbox.decision_overhead_ratio"] == pytest.approx(
        figures["sandbox.decision_overhead_us"] / figures["sandbox.pipe_round_trip_us"], rel=0.05, abs=0.05)
    assert figures["sandbox.decision_us.act_bytes"] > 100
    assert figures["match.ratio_unfrozen"] == pytest.approx(
        figures["match.sandboxed_unfrozen_ms"] / figures["match.in_process_ms"], rel=0.01)
    assert figures["pause.match_cost_per_decision_us"] == pytest.approx(
        (figures["match.sandboxed_ms"] - figures["match.sandboxed_unfrozen_ms"]) * 1000 / figures["match.decisions"],
        rel=0.05, abs=1)
    assert figures["sandbox.start_speedup"] == pytest.approx(
        figures["sandbox.fresh_start_ms"] / figures["sandbox.zygote_start_ms"], rel=0.01)
    assert figures["match.cpu_ratio"] == pytest.approx(
        figures["match.cpu_ms.sandboxed"] / figures["match.cpu_ms.in_process"], rel=0.05)
    assert figures["match.ratio"] == pytest.approx(
        figures["match.sandboxed_ms"] / figures["match.in_process_ms"], rel=0.01)


def test_the_pinned_floor_leaves_this_process_free_to_run_where_it_could():
    from bots.bench import pipe_round_trip_us

    allowed = os.sched_getaffinity(0)
    first = min(allowed)
    assert pipe_round_trip_us(50, (first, max(allowed))) > 0
    assert os.sched_getaffinity(0) == allowed
