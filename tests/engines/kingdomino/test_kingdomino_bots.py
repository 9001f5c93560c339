"""The reference bots: legal in every variant, the greedy bot's arithmetic agrees with the engine, and it
beats the random bot in at least 80% of 2-player games over 200 seeds."""

import random

import pytest
from bot_matches import examples, play_match
from kingdomino_helpers import game, new

from bots.loader import bind, load_module
from engines.kingdomino.state import PLACE

EXAMPLES = examples("kingdomino")
GREEDY = load_module(EXAMPLES / "greedy_bot.py", "kingdomino_greedy_bot")
RANDOM = load_module(EXAMPLES / "random_bot.py", "kingdomino_random_bot")


def play(modules, players, seed, options=None):
    """Play one match with one bot module per seat; return the final state."""
    options = {**game().default_options(), **(options or {})}
    state = game().new_state(players, seed, options)
    bots = [bind(module, game="kingdomino", seat=seat, players=players, options=options)
            for seat, module in enumerate(modules)]
    return play_match(state, bots)


@pytest.mark.parametrize(("players", "options"), [(3, {}), (4, {"dynasty": True}), (2, {"mighty_duel": True})])
def test_bots_play_legal_games_in_every_mode(players, options):
    for module in (GREEDY, RANDOM):
        play([module] * players, players, seed=players, options=options)
    play([GREEDY, RANDOM] * 2, 4, seed=1)


def test_greedy_gain_and_placements_agree_with_the_engine():
    state = new(2, 12)
    chooser = random.Random(12)
    checked = 0
    while not state.is_terminal():
        if state.phase == PLACE and "place" in state.legal_actions()[0]:
            seat = state.current_player()
            obs = state.observation(seat)
            kingdom = GREEDY.Kingdom(obs["kingdoms"][seat]["grid"], obs["grid_size"])
            domino = obs["current_line"][obs["to_act"]["line_position"]]["domino"]
            square_a, square_b = GREEDY.squares_of(domino)
            listed = sorted(tuple(a["place"]) for a in state.legal_actions())
            found = sorted((a[0], a[1], [(0, 1), (1, 0), (0, -1), (-1, 0)].index((b[0] - a[0], b[1] - a[1])))
                           for a, b in kingdom.placements(square_a, square_b))
            assert found == listed
            before = state.scores()[seat]
            for action in state.legal_actions()[:12]:
                twin = state.clone()
                twin.apply(action)
                r, c, o = action["place"]
                step = GREEDY.STEPS[o]
                gain = kingdom.gain((r, c), square_a, (r + step[0], c + step[1]), square_b)
                assert gain == twin.scores()[seat] - before
                checked += 1
        state.apply(chooser.choice(state.legal_actions()))
    assert checked > 50


def test_greedy_beats_random_in_80_percent_of_2_player_games():
    wins = 0
    for seed in range(200):
        greedy_seat = seed % 2
        modules = [RANDOM, RANDOM]
        modules[greedy_seat] = GREEDY
        places = play(modules, 2, seed).ranking()
        wins += places[greedy_seat] < places[1 - greedy_seat]
    assert wins >= 160, f"greedy won {wins} of 200"
