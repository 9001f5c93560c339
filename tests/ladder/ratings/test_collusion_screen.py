"""``ladder.ratings.collusion``: the pairs whose results against each other depart from the fit of every
other result, and ``select_groups`` keeping flagged pairs apart and spreading each bot's games."""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ladder.ratings.collusion import PairTotal, binomial_tail, pair_departures
from ladder.ratings.pairing import Candidate, pair_cap, select_groups


def even_field(bots: int, games: float) -> list[PairTotal]:
    """Every pair of ``bots`` equal bots met ``games`` times and split the points."""
    return [PairTotal(a, b, games, games / 2) for a in range(bots) for b in range(a + 1, bots)]


def test_a_pair_that_trades_every_game_departs_from_the_fit_of_the_rest():
    # Bots 0..5 are equal; 6 (weak: loses 9 of 10 to everyone) beats 7 (an equal of the field) 12 times of 12.
    totals = even_field(6, 10) + [PairTotal(a, 6, 10, 9) for a in range(6)] + [PairTotal(a, 7, 10, 5) for a in range(6)]
    totals.append(PairTotal(6, 7, 12, 12))
    found = pair_departures(totals, min_weight=4, p_threshold=1e-5)
    assert [(d.a, d.b) for d in found] == [(6, 7)]
    assert found[0].expected < 0.35 and found[0].p_value < 1e-5


def test_honest_lopsided_results_that_the_field_explains_do_not_depart():
    # 6 loses 9 of 10 to everyone, 7 included: its results against 7 are what its standing says.
    totals = even_field(6, 10) + [PairTotal(a, 6, 10, 9) for a in range(6)] + [PairTotal(a, 7, 10, 5) for a in range(6)]
    totals.append(PairTotal(6, 7, 12, 1))
    assert pair_departures(totals, min_weight=4, p_threshold=1e-5) == []


def test_a_pair_below_the_games_threshold_is_not_judged():
    totals = even_field(6, 10) + [PairTotal(a, 6, 10, 9) for a in range(6)] + [PairTotal(a, 7, 10, 5) for a in range(6)]
    totals.append(PairTotal(6, 7, 3, 3))
    assert pair_departures(totals, min_weight=4, p_threshold=0.5) == []


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_an_honest_field_of_equal_bots_is_not_flagged(seed):
    rng = random.Random(seed)
    totals = []
    for a in range(8):
        for b in range(a + 1, 8):
            games = rng.randint(4, 20)
            totals.append(PairTotal(a, b, games, sum(rng.random() < 0.5 for _ in range(games))))
    assert pair_departures(totals, min_weight=4, p_threshold=1e-5) == []


def test_the_tail_is_taken_in_the_direction_the_score_went():
    assert binomial_tail(10, 10, 0.5) == pytest.approx(0.5**10)
    assert binomial_tail(0, 10, 0.5) == pytest.approx(0.5**10)
    assert binomial_tail(5, 10, 0.5) > 0.5


def candidates(count: int, *, games: int = 30) -> list[Candidate]:
    return [Candidate(bot_id=i, owner_id=i, elo=1500.0, deviation=60.0, games=games) for i in range(count)]


def test_a_pair_kept_apart_is_never_seated_together():
    groups = select_groups(candidates(3), players=2, count=60, rng=random.Random(1), apart=[frozenset({0, 1})])
    assert groups and all({0, 1} != set(group) for group in groups)


def test_a_field_of_pairs_all_kept_apart_gives_no_group():
    assert select_groups(candidates(2), players=2, count=5, rng=random.Random(1), apart=[frozenset({0, 1})]) == []


def test_a_bot_that_had_its_share_of_an_opponent_meets_the_others_first():
    field = candidates(8)
    # 0 and 1 met 12 times of 0's 30 games: past a quarter, so 0 meets the others while they can take the place.
    for seed in range(5):
        groups = select_groups(field, players=2, count=60, rng=random.Random(seed), pair_games=[(0, 1, 12.0)],
                               pair_share=0.25)
        assert not any(set(group) == {0, 1} for group in groups)
    unbounded = [select_groups(field, players=2, count=60, rng=random.Random(seed), pair_games=[(0, 1, 12.0)])
                 for seed in range(5)]
    assert any(set(group) == {0, 1} for groups in unbounded for group in groups)


def test_games_chosen_in_one_call_count_toward_the_share():
    field = candidates(8, games=0)
    groups = select_groups(field, players=2, count=80, rng=random.Random(5), pair_share=0.25)
    pairs = Counter(frozenset(group) for group in groups)
    games = Counter(bot for group in groups for bot in group)
    for pair, together in pairs.items():
        # Counted as they are chosen, no pair goes past its cap by more than the game that reached it.
        assert together <= max(pair_cap(games[b], 0.25) for b in pair) + 1, (pair, together, games)
