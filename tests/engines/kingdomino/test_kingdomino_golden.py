"""Golden playthroughs: recorded matches replay to the same views, pinning the deterministic deal (ED-1)."""

import json

import pytest
from golden_kingdomino import GOLDEN_DIR, PLAYTHROUGHS, digest

import engines


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_ed_1_golden_playthrough_replays_exactly(name):
    golden = json.loads((GOLDEN_DIR / f"{name}.json").read_text())
    assert golden["rules_version"] == engines.get("kingdomino").rules_version
    views = engines.replay("kingdomino", golden["players"], golden["seed"], golden["options"], golden["actions"])
    for step, view in golden["checkpoints"].items():
        assert views[int(step)] == view, f"view after {step} actions differs"
    for step, (view, expected) in enumerate(zip(views, golden["view_digests"], strict=True)):
        assert digest(view) == expected, f"view after {step} actions differs"
    state = engines.get("kingdomino").new_state(golden["players"], golden["seed"], golden["options"])
    for action in golden["actions"]:
        state.apply(action)
    assert state.scores() == golden["scores"] and state.ranking() == golden["ranking"]

