"""Standings and crosstables (``ladder.ratings.tables``): points by place, standings and crosstables of a
small tournament checked by hand, shared ranks, mirrored pairs, and seats of one bot.

Pure tests: no database, no Django.
"""

from __future__ import annotations

import pytest

from ladder.ratings.bradley_terry import match_pairwise_results
from ladder.ratings.tables import (
    HeadToHead,
    PlacedSeat,
    crosstable,
    default_points_by_place,
    match_points,
    placed_seats,
    standings,
)

# --- Standings and crosstable -----------------------------------------------------------------

# A small tournament: "a" beats "b", "a" and "c" draw, "c" forfeits against "b" (with a place that
# claims otherwise), then a 4-player match where "b" wins, "a" and "c" share second and "d" is last.
TOURNAMENT = [
    [("a", 1, 10, False), ("b", 2, 5, False)],
    [("a", 1, 7, False), ("c", 1, 7, False)],
    [("b", 2, 3, False), ("c", 1, 9, True)],
    [("a", 2, 20, False), ("b", 1, 30, False), ("c", 2, 20, False), ("d", 4, 1, False)],
]


def test_match_points_default_to_pairwise_score():
    seats = [PlacedSeat(*seat) for seat in TOURNAMENT[3]]
    # places 2, 1, 2, 4: table 3, 2, 1, 0; the shared second place splits (2 + 1) / 2.
    assert match_points(seats) == [1.5, 3.0, 1.5, 0.0]


def test_match_points_from_a_custom_table_and_a_forfeit_placed_last():
    seats = [PlacedSeat(*seat) for seat in TOURNAMENT[3]]
    assert match_points(seats, {4: [10, 6, 3, 0]}) == [4.5, 10.0, 4.5, 0.0]
    forfeit = [PlacedSeat(*seat) for seat in TOURNAMENT[2]]
    assert match_points(forfeit, {2: [3, 0]}) == [3.0, 0.0]


def test_match_points_reject_a_table_of_the_wrong_length():
    seats = [PlacedSeat(*seat) for seat in TOURNAMENT[0]]
    with pytest.raises(ValueError, match="2 players"):
        match_points(seats, {2: [3, 1, 0]})


def test_standings_by_hand():
    # points: a 1 + 0.5 + 1.5 = 3; b 0 + 1 + 3 = 4; c 0.5 + 0 + 1.5 = 2; d 0
    # pairwise: a beat b, drew c; in the 4-player match lost to b, drew c, beat d -> 2 W 2 D 1 L
    #           b lost to a, beat c (forfeit), then beat a, c, d -> 4 W 0 D 1 L
    #           c drew a, lost to b (forfeit), lost to b, drew a, beat d -> 1 W 2 D 2 L
    #           d lost to all three -> 0 W 0 D 3 L
    table = standings(TOURNAMENT)
    assert [(s.bot_id, s.rank, s.games, s.points, s.wins, s.draws, s.losses, s.forfeits) for s in table] == [
        ("b", 1, 3, 4.0, 4, 0, 1, 0),
        ("a", 2, 3, 3.0, 2, 2, 1, 0),
        ("c", 3, 3, 2.0, 1, 2, 2, 1),
        ("d", 4, 1, 0.0, 0, 0, 3, 0),
    ]
    assert {s.bot_id: s.average_score for s in table} == pytest.approx(
        {"a": 37 / 3, "b": 38 / 3, "c": 36 / 3, "d": 1.0}
    )


def test_standings_share_a_rank_on_equal_records():
    table = standings([[("x", 1, 1, False), ("y", 1, 1, False)], [("z", 1, 0, False), ("w", 2, 0, False)]])
    assert [(s.bot_id, s.rank) for s in table] == [("z", 1), ("x", 2), ("y", 2), ("w", 4)]


def test_crosstable_by_hand():
    table = crosstable(TOURNAMENT)
    assert table["a"]["b"] == HeadToHead(wins=1, draws=0, losses=1)
    assert table["a"]["c"] == HeadToHead(wins=0, draws=2, losses=0)
    assert table["b"]["c"] == HeadToHead(wins=2, draws=0, losses=0)
    assert table["d"] == {"a": HeadToHead(losses=1), "b": HeadToHead(losses=1), "c": HeadToHead(losses=1)}
    assert table["a"]["c"].score == 1.0 and table["a"]["c"].games == 2


def test_crosstable_mirrors_every_pair():
    table = crosstable(TOURNAMENT)
    for bot_id, row in table.items():
        for opponent, record in row.items():
            assert table[opponent][bot_id] == HeadToHead(record.losses, record.draws, record.wins)


def test_seats_of_the_same_bot_are_not_results_for_it():
    match = [("a", 1, 5, False), ("a", 2, 4, False), ("b", 3, 1, False)]
    assert crosstable([match])["a"] == {"b": HeadToHead(wins=2)}
    assert [(r.a, r.b) for r in match_pairwise_results([match])] == [("a", "b"), ("a", "b")]


def test_default_points_by_place_count_down_to_zero():
    assert default_points_by_place(2) == [1.0, 0.0]
    assert default_points_by_place(4) == [3.0, 2.0, 1.0, 0.0]


def test_placed_seats_reads_tuples_and_refuses_a_match_of_one_seat():
    assert placed_seats(TOURNAMENT[2]) == [PlacedSeat("b", 2, 3, False), PlacedSeat("c", 1, 9, True)]
    with pytest.raises(ValueError, match="at least 2 seats"):
        placed_seats([("a", 1, 0, False)])
    with pytest.raises(ValueError, match="at least 2 seats"):
        standings([[("a", 1, 0, False)]])


def test_standings_of_no_matches_are_empty():
    assert standings([]) == []
    assert crosstable([]) == {}
