"""Golden playthroughs: stored (seed, actions) must replay to the same view after every step."""

from __future__ import annotations

import json

import pytest
from make_golden import PLAYTHROUGHS, digest, path_for, summary

import engines


@pytest.mark.parametrize(("players", "seed"), PLAYTHROUGHS)
def test_golden_playthrough_replays_exactly(players, seed):
    golden = json.loads(path_for(players, seed).read_text())
    assert golden["rules_version"] == engines.get("dice_king").rules_version
    views = engines.replay("dice_king", players, seed, None, golden["actions"])
    assert [digest(view) for view in views] == golden["view_sha256"]
    for step, expected in golden["summaries"].items():
        assert summary(views[int(step)]) == expected
    state = engines.get("dice_king").new_state(players, seed)
    for action in golden["actions"]:
        state.apply(action)
    assert state.is_terminal()
    assert state.scores() == golden["scores"] and state.ranking() == golden["ranking"]
