"""The ladder's pairing settles the order in far fewer games than random pairing, and a new bot's online
Elo reaches its strength in fewer ladder matches than under the rule the ladder used before.

A synthetic ladder (``ladder_simulation``): 30 bots of known strength evenly spread over 1000 Elo, results
drawn from those strengths, the online Elo moved as the service moves it, batches of 8 groups chosen and
then played. Each figure is averaged over a fixed list of seeds, the same for every rule, so the test
compares rules rather than luck; the margins below the targets leave room for the spread between seeds.
"""

from __future__ import annotations

import functools
import random
import statistics

import numpy as np
import pytest

from tests.cores import across_cores
from tests.ladder.ladder_simulation import (
    informative,
    matches_to_settle,
    newcomer_matches,
    previous_rule_groups,
    today,
    uniform,
)

STRENGTHS = [float(s) for s in np.linspace(1000.0, 2000.0, 30)]
SEEDS = range(48)
# Newcomers at the bottom, in the middle and near the top of the field (the online Elo starts at 1500).
NEWCOMERS = (1200.0, 1650.0, 1950.0, 1100.0)


def mean_matches_to_settle(pairing, players: int) -> float:
    # The seeds are independent simulations of pure Python and numpy, played side by side.
    return statistics.mean(across_cores(functools.partial(settle_one, pairing, players), SEEDS))


def settle_one(pairing, players: int, seed: int) -> int:
    return matches_to_settle(pairing, STRENGTHS, seed=seed, players=players)


# Measured over these seeds: 0.52 for 2 players, 0.60 for 3.
@pytest.mark.parametrize(("players", "share"), [(2, 0.55), (3, 0.65)])
def test_the_order_settles_in_a_fraction_of_the_matches_random_pairing_needs(players, share):
    informed = mean_matches_to_settle(informative, players)
    random_pairs = mean_matches_to_settle(uniform, players)
    assert informed <= share * random_pairs, (informed, random_pairs, informed / random_pairs)


def newcomer_one(pairing, seed: int) -> int:
    return newcomer_matches(pairing, STRENGTHS, NEWCOMERS[seed % len(NEWCOMERS)], seed=seed)


def test_a_new_bot_reaches_its_strength_in_fewer_matches_than_before():
    def mean_matches(pairing):
        return statistics.mean(across_cores(functools.partial(newcomer_one, pairing), SEEDS))

    informed, before = mean_matches(informative), mean_matches(today)
    assert informed < 0.85 * before, (informed, before)


# --- The baseline: the rule the ladder used before -------------------------------------------------------


def test_the_baseline_rule_pairs_close_ratings_and_starts_from_the_fewest_games():
    candidates = [(1, 1500, 0), (2, 1900, 50), (3, 1510, 40), (4, 1890, 60)]
    groups = previous_rule_groups(candidates, players=2, matches=2, rng=random.Random(1))
    assert {frozenset(g) for g in groups} == {frozenset({1, 3}), frozenset({2, 4})}


def test_the_baseline_rule_uses_each_bot_once_per_call():
    candidates = [(i, 1500 + i, 0) for i in range(7)]
    groups = previous_rule_groups(candidates, players=3, matches=5, rng=random.Random(2))
    used = [bot for g in groups for bot in g]
    assert len(groups) == 2
    assert len(used) == len(set(used))
