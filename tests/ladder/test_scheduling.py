"""Round-robin schedules, derived seeds and ladder pairing (pure, no database)."""

import random
from collections import Counter

import pytest

from ladder.services.scheduling import derive_seed, ladder_pairings, round_robin, round_robin_count


@pytest.mark.parametrize("bots,players,games", [(4, 2, 2), (5, 3, 3), (6, 4, 4), (5, 5, 5), (4, 2, 4)])
def test_every_bot_sits_in_every_seat_equally_often(bots, players, games):
    schedule = round_robin(list(range(1, bots + 1)), players, games)
    seat_counts = Counter((bot, seat) for seating in schedule for seat, bot in enumerate(seating))
    assert len(set(seat_counts.values())) == 1
    assert len(seat_counts) == bots * players


def test_every_combination_is_played_games_per_pairing_times():
    schedule = round_robin([10, 20, 30, 40], 3, 2)
    pairings = Counter(frozenset(seating) for seating in schedule)
    assert len(pairings) == 4
    assert set(pairings.values()) == {2}
    assert len(schedule) == round_robin_count(4, 3, 2) == 8


def test_two_player_pairing_plays_both_seat_orders():
    assert round_robin([2, 1], 2, 2) == [(1, 2), (2, 1)]


def test_derived_seeds_are_stable_distinct_and_in_range():
    seeds = [derive_seed(42, i) for i in range(1000)]
    assert len(set(seeds)) == 1000
    assert all(0 <= s < 2**63 for s in seeds)
    assert derive_seed(42, 7) == seeds[7]
    assert derive_seed(43, 7) != seeds[7]


def test_ladder_pairs_close_ratings_and_starts_from_the_fewest_games():
    candidates = [(1, 1500, 0), (2, 1900, 50), (3, 1510, 40), (4, 1890, 60)]
    groups = ladder_pairings(candidates, players=2, matches=2, rng=random.Random(1))
    assert {frozenset(g) for g in groups} == {frozenset({1, 3}), frozenset({2, 4})}


def test_ladder_uses_each_bot_once_per_call():
    candidates = [(i, 1500 + i, 0) for i in range(7)]
    groups = ladder_pairings(candidates, players=3, matches=5, rng=random.Random(2))
    used = [bot for g in groups for bot in g]
    assert len(groups) == 2
    assert len(used) == len(set(used))
