"""Golden playthroughs: recorded games on each board must replay to the same views (see ds_golden.py)."""

from __future__ import annotations

import json

import pytest
from ds_golden import GOLDEN_DIR, PLAYTHROUGHS, digest

import engines


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_golden_playthrough_replays_identically(name):
    golden = json.loads((GOLDEN_DIR / f"{name}.json").read_text())
    game = engines.get("draftosaurus")
    assert golden["rules_version"] == game.rules_version
    views = engines.replay("draftosaurus", golden["players"], golden["seed"], golden["options"], golden["actions"])
    for index, expected in golden["views"].items():
        assert views[int(index)] == expected, f"view after {index} actions differs"
    assert [digest(view) for view in views] == golden["view_digests"]
    state = game.new_state(golden["players"], golden["seed"], golden["options"])
    for action in golden["actions"]:
        state.apply(action)
    assert state.is_terminal()
    assert (state.scores(), state.ranking()) == (golden["scores"], golden["ranking"])


def test_golden_files_cover_both_boards_and_the_two_game_mode():
    configs = {(players, options["board"], options["mode"]) for players, _, options, _ in PLAYTHROUGHS.values()}
    assert {board for _, board, mode in configs if mode == "single"} == {"summer", "winter"}
    assert any(mode == "summer_winter" for _, _, mode in configs)
    assert any(players == 2 for players, _, _ in configs)
