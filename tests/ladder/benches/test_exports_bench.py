"""The export bench (``ladder.benches.exports``) on tiny histories: every figure it claims is there, and the
matches it streams carry the actions of a real game."""

from __future__ import annotations

import pytest

from ladder.benches.exports import _playout_actions, measure_exports
from ladder.benches.leaderboard import _History
from ladder.models import Match

pytestmark = pytest.mark.django_db


def test_the_bench_measures_full_responses_of_matches_with_real_actions(settings):
    settings.EXPORT_MATCHES_PER_RESPONSE = 40
    history = _History(bots=4)
    figures = measure_exports(history, sizes=(60, 200), repeats=1)
    assert figures["exports.per_response"] == 40
    assert figures["exports.actions_per_match"] == len(_playout_actions()) > 10
    for size in (60, 200):
        assert figures[f"exports.first_s.{size}"] > 0 and figures[f"exports.deep_s.{size}"] > 0
        assert figures[f"exports.peak_kib.{size}"] > 0 and figures[f"exports.matches_per_s.{size}"] > 0
    assert figures["exports.bytes_per_match"] > 200
    assert {"exports.deep_s_ratio", "exports.peak_kib_ratio"} <= set(figures)
    assert not Match.objects.filter(actions_json=[], actions_packed=None).exists()
