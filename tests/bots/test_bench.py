"""``bench``: every figure is measured and the ratios are computed from them."""

import pytest
from sandbox_helpers import skip_without_isolation

from bots.bench import bench_sandbox, format_table
from bots.sandbox import SandboxUnavailable, get_sandbox


def test_bench_reports_every_figure():
    try:
        get_sandbox()
    except SandboxUnavailable as exc:
        skip_without_isolation(exc)
    figures = bench_sandbox(repeats=2)
    # Where matches are frozen by the cgroup freezer (as root) it is measured against SIGSTOP and nothing.
    assert set(figures) == {"sandbox.fresh_start_ms", "sandbox.zygote_start_ms", "sandbox.start_speedup",
                            "match.in_process_ms", "match.sandboxed_ms", "match.ratio", "match.repeats",
                            "match.sandboxed_sigstop_ms", "match.ratio_sigstop", "match.sandboxed_unfrozen_ms",
                            "match.ratio_unfrozen", "match.decisions", "pause.match_cost_per_decision_us",
                            "pause.freezer_pair_us", "pause.sigstop_pair_us", "pause.freezer_decision_us",
                            "pause.sigstop_decision_us", "pause.none_decision_us"}
    # The cost of pausing is a difference of two medians: on a busy machine it may come out below zero.
    assert all(figures[key] > 0 for key in figures if key != "pause.match_cost_per_decision_us")
    assert figures["match.ratio_unfrozen"] == pytest.approx(
        figures["match.sandboxed_unfrozen_ms"] / figures["match.in_process_ms"], rel=0.01)
    assert figures["pause.match_cost_per_decision_us"] == pytest.approx(
        (figures["match.sandboxed_ms"] - figures["match.sandboxed_unfrozen_ms"]) * 1000 / figures["match.decisions"],
        rel=0.05, abs=1)
    assert figures["sandbox.start_speedup"] == pytest.approx(
        figures["sandbox.fresh_start_ms"] / figures["sandbox.zygote_start_ms"], rel=0.01)
    assert figures["match.ratio"] == pytest.approx(
        figures["match.sandboxed_ms"] / figures["match.in_process_ms"], rel=0.01)
    assert "sandbox.start_speedup" in format_table(figures)
