"""Golden playthroughs: stored (seed, actions) must replay to the same view after every step."""

from __future__ import annotations

import pytest
from goldens import Playthrough, check, random_choice

PLAYTHROUGHS = {
    f"dice_king_{players}p_seed{seed}": Playthrough(players, seed, {}, random_choice(seed))
    for players, seed in ((2, 7), (3, 11), (4, 23))
}


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_golden_playthrough_replays_exactly(name):
    check("dice_king", name)
