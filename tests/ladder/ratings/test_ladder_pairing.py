"""``ladder.ratings.pairing.select_groups``: groups of distinct owners, balanced seats, no bot waiting past
the bound, new bots first, the bots whose order is in doubt most."""

from __future__ import annotations

import random
from collections import Counter

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ladder.ratings.pairing import (
    Candidate,
    deviation_from_information,
    half_width,
    misorder_probabilities,
    select_groups,
)

PROVISIONAL = 10


def field(owners, *, rng=None, waited=None):
    rng = rng or random.Random(0)
    return [Candidate(bot_id=i, owner_id=owner, elo=1500 + rng.uniform(-300, 300), deviation=rng.uniform(20, 350),
                      waited_s=(waited or {}).get(i, 0.0), games=20)
            for i, owner in enumerate(owners)]


@settings(max_examples=150, deadline=None)
@given(owners=st.lists(st.integers(0, 5), min_size=2, max_size=14), players=st.integers(2, 5),
       count=st.integers(1, 12), seed=st.integers(0, 2**32 - 1))
def test_no_group_seats_two_bots_of_one_owner(owners, players, count, seed):
    groups = select_groups(field(owners, rng=random.Random(seed)), players=players, count=count,
                           rng=random.Random(seed))
    if len(set(owners)) < players:
        assert groups == []
        return
    assert len(groups) == count
    for group in groups:
        assert len(group) == players and len({owners[b] for b in group}) == players


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_each_bot_sits_in_every_seat_about_equally_often(players):
    candidates = field(range(12))
    seats: dict[int, Counter] = {c.bot_id: Counter() for c in candidates}
    rng = random.Random(players)
    for _ in range(60):
        for group in select_groups(candidates, players=players, count=10, rng=rng):
            for seat, bot in enumerate(group):
                seats[bot][seat] += 1
        # The counts so far are what the ladder knows of each bot's seats next time.
        candidates = [Candidate(c.bot_id, c.owner_id, c.elo, c.deviation, 0.0,
                                tuple(seats[c.bot_id][k] for k in range(players)), c.games) for c in candidates]
    for bot, counts in seats.items():
        total = sum(counts.values())
        if total >= 10 * players:
            shares = [counts[k] / total for k in range(players)]
            assert max(shares) - min(shares) <= 0.05, (bot, counts)


def test_a_bot_waiting_past_the_bound_is_seated_first_however_certain_it_is():
    candidates = field(range(10), waited={3: 10.0, 7: 50.0})
    candidates[7] = Candidate(7, 7, 3000.0, 1.0, 50.0, (), 500)  # far from everyone and certain
    groups = select_groups(candidates, players=2, count=2, rng=random.Random(1), max_wait_s=5.0)
    assert 7 in groups[0] and 3 in groups[1]


def test_a_new_bot_plays_its_first_games_at_once():
    candidates = field(range(20)) + [Candidate(99, 99, 1500.0, 350.0, 0.0, (), 0)]
    groups = select_groups(candidates, players=2, count=12, rng=random.Random(2), provisional_games=10)
    # Its first ten games come first; after them it is one uncertain bot among others.
    assert all(99 in g for g in groups[:10])


def test_a_new_bot_keeps_playing_until_its_online_elo_has_settled():
    settled = [Candidate(i, i, 1200.0 + 30 * i, 45.0, games=400) for i in range(20)]
    new = Candidate(99, 99, 1500.0, 120.0, games=PROVISIONAL + 5)
    groups = select_groups(settled + [new], players=2, count=8, rng=random.Random(4), provisional_games=PROVISIONAL)
    assert all(99 in g for g in groups)
    # Without the settling games it is one uncertain bot among others.
    groups = select_groups(settled + [new], players=2, count=8, rng=random.Random(4), provisional_games=PROVISIONAL,
                           settling_games=0)
    assert sum(99 in g for g in groups) < 8


def test_the_bots_whose_order_is_in_doubt_play_most():
    # Two clusters: four bots within a few Elo of each other, four far apart and certain.
    close = [Candidate(i, i, 1500.0 + i, 80.0, games=50) for i in range(4)]
    apart = [Candidate(10 + i, 10 + i, 500.0 + 700 * i, 20.0, games=50) for i in range(4)]
    played = Counter(b for g in select_groups(close + apart, players=2, count=40, rng=random.Random(3))
                     for b in g)
    assert sum(played[i] for i in range(4)) > 3 * sum(played[10 + i] for i in range(4))


def test_misorder_is_a_half_for_equal_ratings_and_vanishes_far_apart():
    m = misorder_probabilities(np.array([1500.0, 1500.0, 2500.0]), np.array([50.0, 50.0, 50.0]))
    assert m[0, 1] == pytest.approx(0.5) and m[0, 2] < 1e-9 and m[0, 0] == 0.0


def test_a_deviation_shrinks_with_information_from_the_prior():
    assert deviation_from_information(0.0) == pytest.approx(350.0)
    assert deviation_from_information(100.0) < deviation_from_information(10.0) < 350.0
    assert half_width(100.0) == pytest.approx(196.0, abs=0.01)


def test_select_groups_refuses_groups_of_one():
    with pytest.raises(ValueError, match="at least 2 players"):
        select_groups(field(range(4)), players=1, count=1, rng=random.Random(0))
