"""The rating maths of issue 10, checked against hand-computed figures and known-truth simulations.

Pure tests: no database, no Django. Every expected number below was worked out by hand from the
formulas in the module docstrings of ``ladder.ratings`` (``elo``, ``tables``, ``bradley_terry``).
"""

import math
import random

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from ladder.ratings.bradley_terry import PairwiseResult, fit_bradley_terry, match_pairwise_results
from ladder.ratings.elo import INITIAL_RATING, elo_deltas, expected_score, k_factor, pairwise_scores
from ladder.ratings.tables import HeadToHead, PlacedSeat, crosstable, match_points, standings

HAND = 0.005  # the hand-computed figures are rounded to two decimals


# --- Elo --------------------------------------------------------------------------------------


def test_initial_rating_is_1500():
    assert INITIAL_RATING == 1500.0


def test_expected_score_of_a_100_point_favourite():
    # 1 / (1 + 10 ** (-100 / 400)) = 1 / (1 + 0.5623) = 0.6401
    assert expected_score(1600, 1500) == pytest.approx(0.6401, abs=5e-5)
    assert expected_score(1500, 1600) == pytest.approx(0.3599, abs=5e-5)
    assert expected_score(1500, 1500) == 0.5


def test_two_player_win():
    # 32 * (1 - 0.6401) = 11.52
    assert elo_deltas([1600, 1500], [1, 2], [32, 32]) == pytest.approx([11.52, -11.52], abs=HAND)


def test_two_player_upset_moves_more_than_an_expected_win():
    # 32 * (1 - 0.3599) = 20.48
    assert elo_deltas([1600, 1500], [2, 1], [32, 32]) == pytest.approx([-20.48, 20.48], abs=HAND)


def test_two_player_draw():
    # 32 * (0.5 - 0.6401) = -4.48: a draw costs the favourite
    assert elo_deltas([1600, 1500], [1, 1], [32, 32]) == pytest.approx([-4.48, 4.48], abs=HAND)
    assert elo_deltas([1500, 1500], [1, 1], [32, 32]) == [0.0, 0.0]


def test_four_player_match_with_a_tie():
    # The module docstring's example: seats 0 and 2 share second place, K = 32 / 3 per seat.
    #   seat 0: (0 - 0.5715) + (0.5 - 0.6401) + (1 - 0.7034) = -0.4149 -> -4.43
    #   seat 1: (1 - 0.4285) + (1 - 0.5715) + (1 - 0.6401) = +1.3599 -> +14.51
    #   seat 2: (0.5 - 0.3599) + (0 - 0.4285) + (1 - 0.5715) = +0.1401 -> +1.49
    #   seat 3: -(0.2966 + 0.3599 + 0.4285) = -1.0851 -> -11.57
    deltas = elo_deltas([1550, 1500, 1450, 1400], [2, 1, 2, 4], [32, 32, 32, 32])
    assert deltas == pytest.approx([-4.43, 14.51, 1.49, -11.57], abs=HAND)


def test_equal_bots_tying_in_a_multiplayer_match_do_not_move_each_other():
    # Four equal bots, places 1, 2, 2, 4: the tied pair gain 32/3 * (0.5 + 0 - 0.5) = 0 each.
    deltas = elo_deltas([1500] * 4, [1, 2, 2, 4], [32] * 4)
    assert deltas == pytest.approx([16.0, 0.0, 0.0, -16.0])


def test_forfeit_loses_to_everyone_whatever_its_place():
    # Three equal bots, K = 32 so 16 per seat; seat 0 forfeited although its place says 1.
    #   seat 0: 16 * ((0 - 0.5) + (0 - 0.5)) = -16
    #   seat 1: 16 * ((1 - 0.5) + (1 - 0.5)) = +16
    #   seat 2: 16 * ((1 - 0.5) + (0 - 0.5)) = 0
    deltas = elo_deltas([1500, 1500, 1500], [1, 2, 3], [32, 32, 32], forfeited=[True, False, False])
    assert deltas == pytest.approx([-16.0, 16.0, 0.0])


def test_two_forfeits_draw_each_other():
    # Four equal bots, seats 0 and 1 forfeited; K = 32 / 3 per seat.
    #   seat 0: (0.5 - 0.5) + (0 - 0.5) + (0 - 0.5) = -1 -> -10.67 (the same for seat 1)
    #   seat 2: (1 - 0.5) + (1 - 0.5) + (1 - 0.5) = +1.5 -> +16 (beats both forfeits and seat 3)
    #   seat 3: (1 - 0.5) + (1 - 0.5) + (0 - 0.5) = +0.5 -> +5.33
    deltas = elo_deltas([1500] * 4, [3, 4, 1, 2], [32] * 4, forfeited=[True, True, False, False])
    assert deltas == pytest.approx([-10.67, -10.67, 16.0, 5.33], abs=HAND)


def test_two_player_forfeit_is_a_loss():
    assert elo_deltas([1600, 1500], [1, 2], [32, 32], forfeited=[True, False]) == pytest.approx(
        [-20.48, 20.48], abs=HAND
    )


def test_provisional_k_for_the_first_games_only():
    assert [k_factor(n, k=32, provisional_k=64, provisional_games=10) for n in (0, 9, 10, 250)] == [
        64,
        64,
        32,
        32,
    ]
    assert k_factor(0, k=32, provisional_k=64, provisional_games=0) == 32


def test_provisional_bot_moves_with_its_own_larger_k():
    # A new bot (1500, K = 64) beats an established one (1600, K = 32):
    #   new: 64 * (1 - 0.35994) = +40.96; established: 32 * (0 - 0.64006) = -20.48
    newcomer_k = k_factor(0, k=32, provisional_k=64, provisional_games=10)
    established_k = k_factor(40, k=32, provisional_k=64, provisional_games=10)
    deltas = elo_deltas([1500, 1600], [1, 2], [newcomer_k, established_k])
    assert deltas == pytest.approx([40.96, -20.48], abs=HAND)


@pytest.mark.parametrize(
    ("ratings", "places", "ks", "message"),
    [
        ([1500], [1], [32], "at least 2 seats"),
        ([1500, 1500], [1], [32, 32], "places"),
        ([1500, 1500], [1, 2], [32], "K factors"),
        ([1500, 1500], [1, 2], [32, -1], ">= 0"),
    ],
)
def test_elo_rejects_malformed_matches(ratings, places, ks, message):
    with pytest.raises(ValueError, match=message):
        elo_deltas(ratings, places, ks)


def test_k_factor_rejects_negative_game_counts():
    with pytest.raises(ValueError):
        k_factor(-1, k=32, provisional_k=64, provisional_games=10)


def test_pairwise_scores_of_a_tie_and_a_forfeit():
    assert pairwise_scores([1, 1, 3], [False, False, True]) == [
        [0.0, 0.5, 1.0],
        [0.5, 0.0, 1.0],
        [0.0, 0.0, 0.0],
    ]


ratings_strategy = st.floats(min_value=0, max_value=3000, allow_nan=False)


@st.composite
def matches(draw, players: int, with_forfeits: bool):
    ratings = draw(st.lists(ratings_strategy, min_size=players, max_size=players))
    places = draw(st.lists(st.integers(1, players), min_size=players, max_size=players))
    forfeited = draw(st.lists(st.booleans(), min_size=players, max_size=players)) if with_forfeits else None
    return ratings, places, forfeited


any_match = st.integers(2, 5).flatmap(lambda players: matches(players, with_forfeits=False))


@pytest.mark.parametrize("players", [2, 3, 4, 5])
def test_equal_k_conserves_rating_points(players):
    @given(match=matches(players, with_forfeits=False), k=st.floats(min_value=0, max_value=100))
    def check(match, k):
        ratings, places, _ = match
        assert math.fsum(elo_deltas(ratings, places, [k] * players)) == pytest.approx(0.0, abs=1e-9)

    check()


@given(match=st.integers(2, 5).flatmap(lambda players: matches(players, with_forfeits=True)))
def test_forfeits_conserve_rating_points_too(match):
    # Not promised by the issue, but true of the rule: a forfeit is a loss for one seat and a win
    # for the other, so each pair still shares out exactly one point.
    ratings, places, forfeited = match
    total = math.fsum(elo_deltas(ratings, places, [32.0] * len(ratings), forfeited))
    assert total == pytest.approx(0.0, abs=1e-9)


@given(match=any_match)
def test_a_sole_winner_gains_and_a_sole_loser_loses(match):
    ratings, places, _ = match
    deltas = elo_deltas(ratings, places, [32.0] * len(ratings))
    for seat, place in enumerate(places):
        if places.count(place) == 1 and place == min(places):
            assert deltas[seat] > 0
        if places.count(place) == 1 and place == max(places):
            assert deltas[seat] < 0


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


def test_pairwise_results_weigh_a_multiplayer_match_as_n_minus_one_comparisons():
    results = match_pairwise_results([TOURNAMENT[3]])
    assert len(results) == 6
    assert {r.weight for r in results} == {0.5}
    assert math.fsum(r.weight for r in results) == 3.0
    assert PairwiseResult("a", "b", 0.0, 0.5) in results
    assert PairwiseResult("a", "c", 0.5, 0.5) in results
    assert match_pairwise_results([TOURNAMENT[2]]) == [PairwiseResult("b", "c", 1.0, 1.0)]


# --- Bradley-Terry fit ------------------------------------------------------------------------

TRUE_RATINGS = {
    "r1200": 1200.0,
    "r1350": 1350.0,
    "r1450": 1450.0,
    "r1550": 1550.0,
    "r1650": 1650.0,
    "r1800": 1800.0,
}


def synthetic_round_robin(seed: int, games_per_pair: int = 30) -> list[tuple[str, str, float]]:
    """Every pair plays; each result is drawn so that its expected score is the Elo expectation.

    Draws happen with probability 0.6 * min(p, 1 - p), taken half from wins and half from losses,
    so that the expected score stays exactly p.
    """
    rng = np.random.default_rng(seed)
    bots = list(TRUE_RATINGS)
    results = []
    for i, a in enumerate(bots):
        for b in bots[i + 1 :]:
            p = expected_score(TRUE_RATINGS[a], TRUE_RATINGS[b])
            draw = 0.6 * min(p, 1.0 - p)
            for u in rng.random(games_per_pair):
                results.append((a, b, 1.0 if u < p - draw / 2 else 0.5 if u < p + draw / 2 else 0.0))
    return results


def test_fit_recovers_the_order_of_known_strengths():
    fit = fit_bradley_terry(synthetic_round_robin(seed=7))
    assert sorted(fit, key=lambda bot: fit[bot].rating) == list(TRUE_RATINGS)


def test_fit_intervals_cover_the_truth_in_most_seeds():
    covered = total = 0
    for seed in range(40):
        fit = fit_bradley_terry(synthetic_round_robin(seed))
        for bot, truth in TRUE_RATINGS.items():
            total += 1
            covered += fit[bot].low <= truth <= fit[bot].high
    # Nominal 95%; 240 intervals, so below 88% would be a real miscalibration, not bad luck.
    assert covered / total >= 0.88


def test_fit_is_centred_on_the_initial_rating():
    fit = fit_bradley_terry(synthetic_round_robin(seed=3))
    assert math.fsum(r.rating for r in fit.values()) / len(fit) == pytest.approx(INITIAL_RATING)


def test_undefeated_bot_gets_a_finite_rating():
    results = synthetic_round_robin(seed=1) + [
        ("champion", bot, 1.0) for bot in TRUE_RATINGS for _ in range(10)
    ]
    fit = fit_bradley_terry(results)
    champion = fit["champion"]
    assert all(math.isfinite(x) for x in (champion.rating, champion.low, champion.high))
    assert champion.rating > max(fit[bot].rating for bot in TRUE_RATINGS)
    assert champion.high - champion.low > fit["r1550"].high - fit["r1550"].low


def test_a_single_won_game_stays_finite_and_uncertain():
    fit = fit_bradley_terry([("a", "b", 1.0)])
    assert fit["a"].rating > INITIAL_RATING > fit["b"].rating
    assert fit["a"].low < INITIAL_RATING < fit["a"].high


def test_fit_does_not_depend_on_the_order_of_results():
    results = synthetic_round_robin(seed=5)
    shuffled = results[:]
    random.Random(0).shuffle(shuffled)
    swapped = [(b, a, 1.0 - s) for a, b, s in results]
    reference = fit_bradley_terry(results)
    for other in (fit_bradley_terry(shuffled), fit_bradley_terry(swapped)):
        for bot in TRUE_RATINGS:
            assert other[bot].rating == pytest.approx(reference[bot].rating, abs=1e-6)
            assert other[bot].stderr == pytest.approx(reference[bot].stderr, abs=1e-6)


def test_weighted_result_counts_like_repeated_results():
    repeated = fit_bradley_terry([("a", "b", 1.0)] * 3 + [("a", "b", 0.0)])
    weighted = fit_bradley_terry([("a", "b", 1.0, 3.0), ("a", "b", 0.0, 1.0)])
    assert weighted["a"].rating == pytest.approx(repeated["a"].rating)
    assert weighted["a"].stderr == pytest.approx(repeated["a"].stderr)


def test_two_bots_without_prior_match_the_closed_form():
    # a scores 30 of 40 against b: the maximum-likelihood gap is 400 * log10(0.75 / 0.25) = 190.85,
    # split evenly around 1500. The information about the gap (in natural-log units) is
    # 40 * 0.75 * 0.25 = 7.5, so the gap's standard error is sqrt(1 / 7.5) * 400 / ln 10 = 63.43 Elo
    # and each bot's distance from the average has half of it, 31.72.
    results = [("a", "b", 1.0)] * 30 + [("a", "b", 0.0)] * 10
    fit = fit_bradley_terry(results, prior_sd=1e7)
    assert fit["a"].rating == pytest.approx(1500 + 95.42, abs=HAND)
    assert fit["b"].rating == pytest.approx(1500 - 95.42, abs=HAND)
    assert fit["a"].stderr == pytest.approx(31.72, abs=HAND)
    assert fit["a"].high - fit["a"].rating == pytest.approx(1.96 * 31.72, abs=0.02)


def test_bots_without_results_sit_at_the_initial_rating():
    fit = fit_bradley_terry([("a", "b", 0.5)], bots=["idle"])
    assert list(fit) == ["idle", "a", "b"]
    assert fit["idle"].rating == pytest.approx(INITIAL_RATING)
    assert fit["idle"].high - fit["idle"].low > fit["a"].high - fit["a"].low


def test_fit_of_nothing_is_empty():
    assert fit_bradley_terry([]) == {}


@pytest.mark.parametrize(
    ("results", "options"),
    [
        ([("a", "b", 1.5)], {}),
        ([("a", "b", 1.0, -1.0)], {}),
        ([("a", "b", 1.0)], {"prior_sd": 0}),
        ([("a", "b", 1.0)], {"confidence": 1.0}),
    ],
)
def test_fit_rejects_bad_input(results, options):
    with pytest.raises(ValueError):
        fit_bradley_terry(results, **options)


def test_fit_recovers_order_from_four_player_matches():
    # Rankings drawn from a Plackett-Luce model with strengths 10 ** (rating / 400): the next place
    # goes to one of the remaining bots with probability proportional to its strength.
    rng = np.random.default_rng(11)
    bots = list(TRUE_RATINGS)
    played = []
    for _ in range(120):
        table = list(rng.choice(bots, size=4, replace=False))
        order = []
        while table:
            strengths = np.array([10 ** ((TRUE_RATINGS[b] - 1500) / 400) for b in table])
            order.append(table.pop(rng.choice(len(table), p=strengths / strengths.sum())))
        played.append([(bot, place, 0, False) for place, bot in enumerate(order, start=1)])
    fit = fit_bradley_terry(match_pairwise_results(played))
    assert sorted(fit, key=lambda bot: fit[bot].rating) == bots


def test_the_fit_of_whole_matches_rates_every_seated_bot():
    fit = fit_bradley_terry(match_pairwise_results(TOURNAMENT))
    assert sorted(fit) == ["a", "b", "c", "d"]
    # b won 4 of its 5 pairwise results, d lost all 3 of its own.
    assert fit["b"].rating > fit["a"].rating > fit["c"].rating > fit["d"].rating
