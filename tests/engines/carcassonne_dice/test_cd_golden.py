"""Golden playthroughs: recorded matches replay to the same views (ED-11 determinism, checklist item 9)."""

import json

import pytest
from golden_carcassonne_dice import GOLDEN_DIR, PLAYTHROUGHS, digest

import engines


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_ed_11_golden_playthrough_replays_exactly(name):
    golden = json.loads((GOLDEN_DIR / f"{name}.json").read_text())
    game = engines.get("carcassonne_dice")
    assert golden["rules_version"] == game.rules_version
    views = engines.replay(game.name, golden["players"], golden["seed"], golden["options"], golden["actions"])
    for step, view in golden["checkpoints"].items():
        assert views[int(step)] == view, f"view after {step} actions differs"
    for step, (view, expected) in enumerate(zip(views, golden["view_digests"], strict=True)):
        assert digest(view) == expected, f"view after {step} actions differs"
    state = game.new_state(golden["players"], golden["seed"], golden["options"])
    for action in golden["actions"]:
        state.apply(action)
    assert state.is_terminal()
    assert state.scores() == golden["scores"] and state.ranking() == golden["ranking"]
