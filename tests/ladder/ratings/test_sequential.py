"""The paired-game statistics (Elo from score, pentanomial stats, Elo interval, SPRT) against
fishtest's published figures, plus the properties the maths promises.

Pure tests: no database, no Django.

Where the figures come from: fishtest's reference code, ``server/fishtest/stats/LLRcalc.py``
(``LLR_logistic``) and ``server/fishtest/stats/stat_util.py`` (``stats``, ``get_elo``, ``SPRT``,
``elo``, ``L``) of github.com/official-stockfish/fishtest at commit b8eecff (2026-08-22), run
locally on the count vectors below with scipy 1.17.1; the outputs are recorded here as constants.
The first two vectors are fishtest's own examples (the ``__main__`` self-test of stat_util.py).
"""

import math

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from ladder.ratings.sequential import (
    SprtDecision,
    elo_from_score,
    elo_interval,
    pentanomial_stats,
    score_from_elo,
    sprt_bounds,
    sprt_decision,
    sprt_llr,
)

FISHTEST_EXAMPLE = [10789, 19328, 33806, 19402, 10543]
FISHTEST_EXAMPLE_2 = [1187, 7410, 13475, 7378, 1164]
SMALL = [5, 10, 30, 20, 15]
WITH_UNSEEN_OUTCOME = [0, 2, 10, 25, 13]
WEAKER = [40, 30, 50, 20, 10]

# LLRcalc.LLR_logistic(elo0, elo1, counts): the logistic-Elo pentanomial model, "expectation" statistic.
FISHTEST_LLR = [
    (FISHTEST_EXAMPLE, 0, 2, -8.34820881516847),
    (FISHTEST_EXAMPLE, -3, 1, 2.1310678117940807),
    (FISHTEST_EXAMPLE, 0, 5, -38.51440847341944),
    (FISHTEST_EXAMPLE, 0, 50, -2965.3024206757236),
    (FISHTEST_EXAMPLE_2, 0, 2, -3.703553587139313),
    (FISHTEST_EXAMPLE_2, -3, 1, 2.86152718059463),
    (FISHTEST_EXAMPLE_2, -10, 10, -11.333517242698013),
    (SMALL, 0, 2, 0.2441718813708449),
    (SMALL, -10, 10, 2.4704143313391436),
    (SMALL, 0, 50, 3.9734377078976726),
    (WITH_UNSEEN_OUTCOME, 0, 2, 0.28697790862532274),
    (WITH_UNSEEN_OUTCOME, 0, 50, 6.679058038646166),
    (WEAKER, 0, 2, -0.49645322820467636),
    (WEAKER, 0, 50, -15.274883473733636),
    ([3, 0, 4, 0, 3], 0, 2, -0.0002762244149844395),
    ([0, 0, 100, 0, 0], 0, 2, -0.570370660011218),  # all draws: zero observed variance
    ([0, 0, 100, 0, 0], 0, 50, -15.413429671371103),
    ([0, 0, 0, 0, 10], 0, 2, 0.05741038555877071),  # all wins
    ([0, 0, 0, 0, 10], 0, 50, 1.3361648623504312),
]

# stat_util.get_elo(counts) -> (elo, half width of the 95% interval); vectors without an unseen
# outcome, for get_elo regularises zero counts before computing.
FISHTEST_ELO = [
    (FISHTEST_EXAMPLE, -0.7735773359165423, 1.2775798957280218),
    (FISHTEST_EXAMPLE_2, -0.4426077992236841, 1.7298590276177421),
    (SMALL, 65.9240994583969, 44.09446086446181),
    (WEAKER, -82.58955521976084, 35.53331693853195),
]

# stat_util.stats(counts) -> (games, mean score per game, variance per game); our variance is per
# pair of the per-game score, which is half fishtest's per-game variance.
FISHTEST_STATS = [
    (FISHTEST_EXAMPLE, 0.4988867345634295, 0.16520025277542671),
    (SMALL, 0.59375, 0.154296875),
]


# --- published figures ------------------------------------------------------------------------


@pytest.mark.parametrize(("counts", "elo0", "elo1", "expected"), FISHTEST_LLR)
def test_llr_agrees_with_fishtest_llr_logistic(counts, elo0, elo1, expected):
    assert sprt_llr(counts, elo0, elo1) == pytest.approx(expected, rel=1e-9, abs=1e-12)


@pytest.mark.parametrize(("alpha", "beta", "lower", "upper"), [
    (0.05, 0.05, -2.9444389791664403, 2.9444389791664403),  # stat_util.SPRT(alpha=0.05, beta=0.05)
    (0.05, 0.1, -2.251291798606495, 2.8903717578961645),  # stat_util.SPRT(alpha=0.05, beta=0.1)
])
def test_bounds_agree_with_fishtest(alpha, beta, lower, upper):
    bounds = sprt_bounds(alpha, beta)
    assert bounds.lower == pytest.approx(lower, rel=1e-12)
    assert bounds.upper == pytest.approx(upper, rel=1e-12)


def test_five_percent_error_rates_give_the_familiar_2_944():
    assert tuple(round(bound, 3) for bound in sprt_bounds(0.05, 0.05)) == (-2.944, 2.944)


@pytest.mark.parametrize(("counts", "elo", "half_width"), FISHTEST_ELO)
def test_elo_interval_agrees_with_fishtest_get_elo(counts, elo, half_width):
    estimate, low, high = elo_interval(counts, confidence=0.95)
    assert estimate == pytest.approx(elo, rel=1e-9)
    assert (high - low) / 2 == pytest.approx(half_width, rel=1e-9)
    assert low < estimate < high


@pytest.mark.parametrize(("counts", "mean", "fishtest_variance_per_game"), FISHTEST_STATS)
def test_pentanomial_stats_agree_with_fishtest_stats(counts, mean, fishtest_variance_per_game):
    score, variance = pentanomial_stats(counts)
    assert score == pytest.approx(mean, rel=1e-12)
    assert variance == pytest.approx(fishtest_variance_per_game / 2, rel=1e-12)


def test_elo_and_score_agree_with_fishtest():
    assert score_from_elo(100) == pytest.approx(0.6400649998028851, rel=1e-12)  # stat_util.L(100)
    assert elo_from_score(0.6) == pytest.approx(70.43650362227247, rel=1e-12)  # stat_util.elo(0.6)


# --- worked by hand ---------------------------------------------------------------------------


def test_pentanomial_stats_by_hand():
    # Pairs scoring 0, 1 and 2 points once each: per-game scores 0, 1/2, 1, mean 1/2,
    # variance (1/4 + 0 + 1/4) / 3 = 1/6.
    assert pentanomial_stats([1, 0, 1, 0, 1]) == pytest.approx((0.5, 1 / 6))


def test_ratings_module_re_exports_the_sequential_functions():
    assert sprt_llr is sprt_llr
    assert elo_interval is elo_interval


# --- degenerate inputs ------------------------------------------------------------------------


def test_no_pairs_gives_a_zero_llr_and_an_unbounded_interval():
    assert sprt_llr([0, 0, 0, 0, 0], 0, 2) == 0.0
    score, variance = pentanomial_stats([0, 0, 0, 0, 0])
    assert math.isnan(score) and math.isnan(variance)
    estimate, low, high = elo_interval([0, 0, 0, 0, 0])
    assert math.isnan(estimate) and (low, high) == (-math.inf, math.inf)


def test_all_draws_is_an_interval_around_zero_elo_that_narrows_with_more_pairs():
    # Zero observed variance is no certainty: the interval is the Wilson score interval, whose width
    # comes from the largest variance a score of 1/2 allows.
    assert pentanomial_stats([0, 0, 7, 0, 0]) == (0.5, 0.0)
    estimate, low, high = elo_interval([0, 0, 7, 0, 0])
    assert estimate == 0.0 and low == pytest.approx(-high) and low < -100
    wider, narrower = elo_interval([0, 0, 7, 0, 0]), elo_interval([0, 0, 700, 0, 0])
    assert wider.low < narrower.low < 0 < narrower.high < wider.high


def test_all_wins_is_an_infinite_estimate_with_a_finite_lower_bound():
    # 53 pairs of wins: the Wilson lower bound n / (n + z^2) of the score, about 0.932, is +456 Elo.
    estimate, low, high = elo_interval([0, 0, 0, 0, 53])
    assert (estimate, high) == (math.inf, math.inf)
    assert low == pytest.approx(elo_from_score(53 / (53 + 1.959964**2)), rel=1e-5)
    assert 450 < low < 460
    assert elo_interval([0, 0, 0, 0, 4]).low < low  # fewer pairs, less sure


def test_all_losses_is_a_minus_infinite_estimate_with_a_finite_upper_bound():
    estimate, low, high = elo_interval([53, 0, 0, 0, 0])
    assert (estimate, low) == (-math.inf, -math.inf)
    assert high == pytest.approx(-elo_interval([0, 0, 0, 0, 53]).low)
    assert math.isfinite(sprt_llr([0, 0, 0, 0, 4], 0, 2))


def test_an_interval_reaching_past_a_certain_result_is_unbounded_on_that_side():
    # One pair of wins and one pair of losses: mean 1/2, standard error 1/2, so 1.96 standard
    # errors reach beyond both 0 and 1.
    assert elo_interval([1, 0, 0, 0, 1]) == (0.0, -math.inf, math.inf)


def test_elo_from_score_is_infinite_at_the_ends_and_refuses_other_scores():
    assert elo_from_score(0.0) == -math.inf
    assert elo_from_score(1.0) == math.inf
    assert elo_from_score(0.5) == 0.0
    for bad in (-0.1, 1.1, math.nan):
        with pytest.raises(ValueError):
            elo_from_score(bad)


def test_score_from_elo_handles_huge_gaps():
    assert score_from_elo(math.inf) == 1.0
    assert score_from_elo(-math.inf) == 0.0
    assert score_from_elo(-1e6) == 0.0
    with pytest.raises(ValueError):
        score_from_elo(math.nan)


@pytest.mark.parametrize("counts", [[1, 2, 3, 4], [1, 2, 3, 4, 5, 6], [1, -1, 0, 0, 0], [0, 0, math.nan, 0, 0]])
def test_malformed_counts_are_a_value_error(counts):
    for function in (pentanomial_stats, elo_interval, lambda c: sprt_llr(c, 0, 2)):
        with pytest.raises(ValueError):
            function(counts)


def test_bad_bounds_and_error_rates_are_a_value_error():
    for alpha, beta in [(0, 0.05), (0.05, 1), (0.6, 0.5), (-0.1, 0.05)]:
        with pytest.raises(ValueError):
            sprt_bounds(alpha, beta)
    with pytest.raises(ValueError):
        sprt_llr([1, 1, 1, 1, 1], 0, math.inf)
    with pytest.raises(ValueError):
        sprt_llr([1, 1, 1, 1, 1], 0, 7000)  # its score rounds to 1: no distribution has that mean
    with pytest.raises(ValueError):
        sprt_decision(0.0, (3.0, -3.0))
    with pytest.raises(ValueError):
        elo_interval([1, 1, 1, 1, 1], confidence=1.0)


def test_decision_at_and_between_the_bounds():
    bounds = sprt_bounds(0.05, 0.05)
    assert sprt_decision(bounds.upper, bounds) == SprtDecision.ACCEPT_H1 == "accept_h1"
    assert sprt_decision(bounds.lower, bounds) == SprtDecision.ACCEPT_H0 == "accept_h0"
    assert sprt_decision(0.0, bounds) == SprtDecision.CONTINUE == "continue"
    assert sprt_decision(2.9, bounds) == SprtDecision.CONTINUE
    assert sprt_decision(-1e9, bounds) == SprtDecision.ACCEPT_H0


def test_the_published_example_decides_as_fishtest_does():
    # fishtest's self-test vector with elo0 = -3, elo1 = 1 stops nowhere yet (LLR 2.13 < 2.94);
    # with elo0 = 0, elo1 = 2 it has already rejected the +2 Elo hypothesis (LLR -8.35).
    bounds = sprt_bounds(0.05, 0.05)
    assert sprt_decision(sprt_llr(FISHTEST_EXAMPLE, -3, 1), bounds) == SprtDecision.CONTINUE
    assert sprt_decision(sprt_llr(FISHTEST_EXAMPLE, 0, 2), bounds) == SprtDecision.ACCEPT_H0


# --- properties -------------------------------------------------------------------------------

pentanomial = st.lists(st.integers(0, 300), min_size=5, max_size=5)
every_outcome_seen = st.lists(st.integers(2, 300), min_size=5, max_size=5)
elo_bounds = st.tuples(st.floats(-100, 100), st.floats(0.5, 100)).map(lambda b: (b[0], b[0] + b[1]))


@given(counts=pentanomial, bounds=elo_bounds)
def test_llr_is_antisymmetric_when_the_versions_and_the_hypotheses_swap(counts, bounds):
    elo0, elo1 = bounds
    llr = sprt_llr(counts, elo0, elo1)
    assert sprt_llr(counts[::-1], -elo1, -elo0) == pytest.approx(-llr, rel=1e-7, abs=1e-9)
    assert sprt_llr(counts[::-1], -elo0, -elo1) == pytest.approx(llr, rel=1e-7, abs=1e-9)


@given(counts=every_outcome_seen, outcome=st.integers(0, 3), bounds=elo_bounds)
def test_llr_grows_when_the_candidate_wins_more_pairs(counts, outcome, bounds):
    elo0, elo1 = bounds
    better = list(counts)
    better[outcome] -= 1
    better[outcome + 1] += 1
    assert sprt_llr(better, elo0, elo1) > sprt_llr(counts, elo0, elo1)


@given(counts=pentanomial, bounds=elo_bounds)
def test_a_lost_pair_turned_into_a_won_pair_raises_the_llr(counts, bounds):
    assume(counts[0] >= 1)
    elo0, elo1 = bounds
    better = [counts[0] - 1, *counts[1:4], counts[4] + 1]
    assert sprt_llr(better, elo0, elo1) > sprt_llr(counts, elo0, elo1)


@given(elo=st.floats(-2000, 2000))
def test_elo_from_score_inverts_score_from_elo(elo):
    assert elo_from_score(score_from_elo(elo)) == pytest.approx(elo, rel=1e-9, abs=1e-9)


@given(counts=pentanomial)
def test_the_interval_holds_the_estimate_and_mirrors_when_the_versions_swap(counts):
    assume(sum(counts) > 0)
    estimate, low, high = elo_interval(counts)
    assert low <= estimate <= high
    mirrored = elo_interval(counts[::-1])
    assert mirrored.estimate == pytest.approx(-estimate, abs=1e-9)
    assert mirrored.low == pytest.approx(-high, abs=1e-9)


def test_identical_results_pair_after_pair_end_the_test_without_a_zero_division():
    # All draws or all wins: zero observed variance, so only the regularisation of unseen outcomes
    # keeps the LLR finite; it still decides once enough pairs (about 510 for 0 / 2 Elo) agree.
    bounds = sprt_bounds(0.05, 0.05)
    assert sprt_decision(sprt_llr([0, 0, 100, 0, 0], 0, 2), bounds) == SprtDecision.CONTINUE
    assert sprt_decision(sprt_llr([0, 0, 600, 0, 0], 0, 2), bounds) == SprtDecision.ACCEPT_H0
    assert sprt_decision(sprt_llr([0, 0, 0, 0, 600], 0, 2), bounds) == SprtDecision.ACCEPT_H1
    assert sprt_decision(sprt_llr([600, 0, 0, 0, 0], 0, 2), bounds) == SprtDecision.ACCEPT_H0
