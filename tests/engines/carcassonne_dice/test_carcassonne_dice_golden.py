"""Golden playthroughs: recorded matches replay to the same views (ED-11 determinism, checklist item 9).

The actions were chosen by the example bots (greedy against greedy or random), so the recorded games
close cities, score and end on 42 points rather than at the round cap.
"""

from __future__ import annotations

import pytest
from bot_matches import examples
from goldens import Playthrough, check

EXAMPLES = examples("carcassonne_dice")


def example_bots(players: int, options: dict, bot_files: list[str]):
    """Each seat's decision by the example bot named for it."""
    def start():
        from bots.loader import load_bot

        bots = [load_bot(EXAMPLES / name, game="carcassonne_dice", seat=seat, players=players,
                         options=options, module_name=f"golden_{seat}") for seat, name in enumerate(bot_files)]

        def choose(state):
            seat = state.current_player()
            return bots[seat](state.observation(seat), state.legal_actions())
        return choose
    return start


def by_bots(players: int, seed: int, options: dict, bot_files: list[str]) -> Playthrough:
    return Playthrough(players, seed, options, example_bots(players, options, bot_files), {"bots": bot_files})


PLAYTHROUGHS = {
    "two_players_greedy": by_bots(2, 2026, {"equal_turns": False}, ["greedy_bot.py", "greedy_bot.py"]),
    "three_players_equal_turns": by_bots(3, 77, {"equal_turns": True},
                                         ["greedy_bot.py", "random_bot.py", "greedy_bot.py"]),
}


@pytest.mark.parametrize("name", sorted(PLAYTHROUGHS))
def test_ed_11_golden_playthrough_replays_exactly(name):
    check("carcassonne_dice", name)
