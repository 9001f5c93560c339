"""The example bots: protocol conformance, and the greedy bot's required win rate (issue 7).

The bots are standalone files (standard library only); they are loaded in-process with the same loader
the sandbox uses and play against the engine directly.
"""

import ast
import sys
from pathlib import Path

import pytest
from bot_matches import examples, play_match
from carcassonne_dice_helpers import game

from bots.loader import load_bot

EXAMPLES = examples("carcassonne_dice")
GAMES = 200


def seat_bots(files, players=2):
    return [
        load_bot(EXAMPLES / name, game="carcassonne_dice", seat=seat, players=players, options={},
                 module_name=f"carcassonne_dice_{Path(name).stem}_{seat}")
        for seat, name in enumerate(files)
    ]


def play(bots, seed, players=2):
    return play_match(game().new_state(players, seed), bots)


def test_bots_import_only_the_standard_library():
    for path in EXAMPLES.glob("*.py"):
        imported = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.Import):
                imported.update(alias.name.split(".")[0] for alias in node.names)
            elif isinstance(node, ast.ImportFrom):
                imported.add((node.module or "").split(".")[0])
        assert imported <= set(sys.stdlib_module_names) | {"numpy"}, f"{path.name} imports {imported}"


@pytest.mark.parametrize("players", [2, 5])
def test_every_example_bot_plays_whole_games_with_legal_actions(players):
    files = ["greedy_bot.py", "random_bot.py"] * 3
    state = play(seat_bots(files[:players], players), seed=players, players=players)
    assert state.is_terminal() and state.view()["winner"]


def greedy_won(seed: int) -> bool:
    """Whether the greedy bot wins alone the two-player game of ``seed`` against the random bot."""
    greedy_seat = seed % 2  # alternate seats: seat 0 starts and has an edge
    files = ["greedy_bot.py", "random_bot.py"] if greedy_seat == 0 else ["random_bot.py", "greedy_bot.py"]
    state = play(seat_bots(files), seed)
    return state.ranking()[greedy_seat] == 1 and state.ranking().count(1) == 1


def test_greedy_bot_wins_at_least_60_percent_of_two_player_games_against_the_random_bot(cores):
    wins = sum(cores.map(greedy_won, range(GAMES)))
    assert wins >= 0.6 * GAMES, f"greedy won {wins} of {GAMES}"
