"""Round-robin schedules, derived seeds and ladder pairing (pure, no database)."""

from collections import Counter

import pytest

from ladder.services.tournaments.scheduling import (
    derive_deal_seed,
    derive_seed,
    duplicate_round_robin,
    duplicate_round_robin_count,
    round_robin,
    round_robin_count,
)


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


def test_a_two_player_duplicate_deal_is_played_in_both_seat_orders():
    assert duplicate_round_robin([2, 1], 2, 2) == [(0, (1, 2)), (0, (2, 1)), (1, (1, 2)), (1, (2, 1))]


@pytest.mark.parametrize("bots,players,deals", [(2, 2, 2), (3, 2, 1), (3, 3, 2), (5, 3, 2), (4, 4, 1)])
def test_every_duplicate_deal_holds_its_bots_in_every_cyclic_rotation(bots, players, deals):
    schedule = duplicate_round_robin(list(range(1, bots + 1)), players, deals)
    assert len(schedule) == duplicate_round_robin_count(bots, players, deals) == round_robin_count(
        bots, players, deals) * players
    by_deal: dict[int, list[tuple[int, ...]]] = {}
    for deal, seating in schedule:
        by_deal.setdefault(deal, []).append(seating)
    assert sorted(by_deal) == list(range(round_robin_count(bots, players, deals)))
    for seatings in by_deal.values():
        combo = sorted(seatings[0])
        rotations = {tuple(combo[shift:] + combo[:shift]) for shift in range(players)}
        assert set(seatings) == rotations and len(seatings) == players
        # Each bot meets the deal once from each seat.
        assert Counter((bot, seat) for seating in seatings for seat, bot in enumerate(seating)) == Counter(
            {(bot, seat): 1 for bot in combo for seat in range(players)})
    pairings = Counter(frozenset(seatings[0]) for seatings in by_deal.values())
    assert set(pairings.values()) == {deals}


def test_deal_seeds_are_stable_distinct_and_apart_from_match_seeds():
    seeds = [derive_deal_seed(42, deal) for deal in range(1000)]
    assert len(set(seeds)) == 1000
    assert all(0 <= s < 2**63 for s in seeds)
    assert derive_deal_seed(42, 7) == seeds[7]
    assert derive_deal_seed(43, 7) != seeds[7]
    assert not set(seeds) & {derive_seed(42, i) for i in range(1000)}


def test_derived_seeds_are_stable_distinct_and_in_range():
    seeds = [derive_seed(42, i) for i in range(1000)]
    assert len(set(seeds)) == 1000
    assert all(0 <= s < 2**63 for s in seeds)
    assert derive_seed(42, 7) == seeds[7]
    assert derive_seed(43, 7) != seeds[7]
