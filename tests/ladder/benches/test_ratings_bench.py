"""The ratings bench (``ladder.benches.ratings``) at a tiny size: every figure it documents, the ratio the
quotient of its two rates, the work done in a scratch database the real one never sees."""

from __future__ import annotations

import pytest

from ladder.benches.ratings import bench_ratings
from ladder.models import Bot, Match

FIGURES = {"ratings.applied_per_s.applier", "ratings.applied_per_s.row_locks", "ratings.applied_ratio",
           "ratings.rebuild_aside_ms", "ratings.rebuild_swap_ms", "ratings.threads", "ratings.bots"}


@pytest.mark.django_db(transaction=True)
def test_the_bench_gives_every_figure_it_documents_at_a_tiny_size():
    figures = bench_ratings(matches=8, threads=2, bots=3)
    assert set(figures) == FIGURES
    assert figures["ratings.threads"] == 2 and figures["ratings.bots"] == 3
    assert figures["ratings.applied_per_s.applier"] > 0 and figures["ratings.applied_per_s.row_locks"] > 0
    assert figures["ratings.applied_ratio"] == pytest.approx(
        figures["ratings.applied_per_s.applier"] / figures["ratings.applied_per_s.row_locks"], abs=0.01)
    assert figures["ratings.rebuild_aside_ms"] >= 0 and figures["ratings.rebuild_swap_ms"] >= 0
    # The matches and bots were made in the scratch database, dropped since.
    assert not Bot.objects.filter(name__startswith="bench-").exists()
    assert not Match.objects.exists()
