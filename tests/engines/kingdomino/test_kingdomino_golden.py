"""Golden playthroughs: recorded matches replay to the same views, pinning the deterministic deal (ED-1)."""

import pytest
from goldens import Playthrough, check, random_choice

PLAYTHROUGHS = {
    "two_players": Playthrough(2, 2026, {}, random_choice(2026)),
    "four_players_bonuses": Playthrough(4, 7, {"middle_kingdom": True, "harmony": True}, random_choice(7)),
    "mighty_duel_snake": Playthrough(2, 31, {"mighty_duel": True, "initial_pick": "snake"}, random_choice(31)),
}


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_ed_1_golden_playthrough_replays_exactly(name):
    check("kingdomino", name)
