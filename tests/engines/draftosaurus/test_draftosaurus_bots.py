"""The example bots: they answer with legal actions in every configuration, and the greedy bot wins."""

from __future__ import annotations

import pytest
from bot_matches import examples, play_match
from draftosaurus_helpers import GAME

from bots.loader import bind, load_bot, load_module

EXAMPLES = examples("draftosaurus")
RANDOM_BOT = EXAMPLES / "random_bot.py"
GREEDY_BOT = EXAMPLES / "greedy_bot.py"


def play(players, seed, options, modules):
    """One game with ``modules[seat]`` deciding for each seat; returns the final state."""
    acts = [bind(module, game="draftosaurus", seat=seat, players=players, options=options)
            for seat, module in enumerate(modules)]
    return play_match(GAME.new_state(players, seed, options), acts)


@pytest.mark.parametrize(("players", "options"), GAME.variants())
def test_example_bots_play_every_configuration(players, options):
    greedy = load_module(GREEDY_BOT, "draftosaurus_greedy")
    randomly = load_module(RANDOM_BOT, "draftosaurus_random")
    state = play(players, 3, options, [greedy if seat % 2 == 0 else randomly for seat in range(players)])
    assert state.is_terminal()


def test_random_bot_is_seeded():
    first = load_bot(RANDOM_BOT, game="draftosaurus", seat=1, players=3, options=GAME.default_options())
    again = load_bot(RANDOM_BOT, game="draftosaurus", seat=1, players=3, options=GAME.default_options())
    legal = [{"dino": "t_rex", "to": "river"}, {"dino": "triceratops", "to": "river"}, {"dino": "t_rex", "to": "woody_trio"}]
    assert [first({}, legal) for _ in range(20)] == [again({}, legal) for _ in range(20)]


def test_greedy_bot_wins_most_four_player_games_against_random_bots():
    """Chance alone would give the greedy seat first place in 25% of games; the bar is 60%."""
    greedy = load_module(GREEDY_BOT, "draftosaurus_greedy")
    randomly = load_module(RANDOM_BOT, "draftosaurus_random")
    options = GAME.default_options()
    firsts = 0
    for seed in range(200):
        seat = seed % 4  # rotate the greedy seat so the roller advantage evens out
        modules = [greedy if s == seat else randomly for s in range(4)]
        state = play(4, seed, options, modules)
        firsts += state.ranking()[seat] == 1
    assert firsts >= 120, f"greedy bot first in only {firsts} of 200 games"


def test_greedy_bot_prefers_points_now():
    act = load_bot(GREEDY_BOT, game="draftosaurus", seat=0, players=2, options=GAME.default_options())
    state = GAME.new_state(2, 0)
    state.zoos[0].pens["woody_trio"] = ["t_rex", "t_rex"]
    state.zoos[0].pens["solitary_island"] = ["brachiosaurus"]
    state.zoos[0].pens["king_of_the_jungle"] = ["spinosaurus"]
    state.hands[0] = ["triceratops", "stegosaurus"]
    state.roller = 0
    state.reset_legal_cache()
    assert act(state.observation(0), state.legal_actions())["to"] == "woody_trio"  # completes the trio: 7
