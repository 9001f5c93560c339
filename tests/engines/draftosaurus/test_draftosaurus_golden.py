"""Golden playthroughs: recorded games on each board must replay to the same views."""

from __future__ import annotations

import random

import pytest
from goldens import Playthrough, check


def leaning_to_pens(seed: int):
    """Random actions that take the first legal one (a pen: the River is last) 30% of the time, so the
    golden games exercise the pen rules."""
    def start():
        chooser = random.Random(seed)

        def choose(state):
            legal = state.legal_actions()
            return legal[0] if chooser.random() < 0.3 else chooser.choice(legal)
        return choose
    return start


PLAYTHROUGHS = {
    "summer_4p": Playthrough(4, 20260601, {"board": "summer", "mode": "single"}, leaning_to_pens(1)),
    "winter_3p": Playthrough(3, 77, {"board": "winter", "mode": "single"}, leaning_to_pens(2)),
    "winter_2p": Playthrough(2, 4242, {"board": "winter", "mode": "single"}, leaning_to_pens(3)),
    "summer_winter_5p": Playthrough(5, 9, {"board": "summer", "mode": "summer_winter"}, leaning_to_pens(4)),
}


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_golden_playthrough_replays_identically(name):
    check("draftosaurus", name)


def test_golden_files_cover_both_boards_and_the_two_game_mode():
    configs = {(p.players, p.options["board"], p.options["mode"]) for p in PLAYTHROUGHS.values()}
    assert {board for _, board, mode in configs if mode == "single"} == {"summer", "winter"}
    assert any(mode == "summer_winter" for _, _, mode in configs)
    assert any(players == 2 for players, _, _ in configs)
