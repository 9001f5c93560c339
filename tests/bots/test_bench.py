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
    assert set(figures) == {"sandbox.fresh_start_ms", "sandbox.zygote_start_ms", "sandbox.start_speedup",
                            "match.in_process_ms", "match.sandboxed_ms", "match.ratio", "match.repeats"}
    assert all(figures[key] > 0 for key in figures)
    assert figures["sandbox.start_speedup"] == pytest.approx(
        figures["sandbox.fresh_start_ms"] / figures["sandbox.zygote_start_ms"], rel=0.01)
    assert figures["match.ratio"] == pytest.approx(
        figures["match.sandboxed_ms"] / figures["match.in_process_ms"], rel=0.01)
    assert "sandbox.start_speedup" in format_table(figures)
