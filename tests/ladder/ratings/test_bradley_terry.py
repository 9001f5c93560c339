"""The Bradley-Terry fit (``ladder.ratings.bradley_terry``): pairwise results of whole matches, the fit
checked against known-truth simulations and a closed form, its edge cases and refusals, and the posterior
from per-pair sufficient statistics.

Pure tests: no database, no Django.
"""

from __future__ import annotations

import math
import random

import numpy as np
import pytest

from ladder.ratings.bradley_terry import (
    PairwiseResult,
    bradley_terry_posterior,
    fit_bradley_terry,
    match_pairwise_results,
)
from ladder.ratings.elo import INITIAL_RATING, expected_score

HAND = 0.005  # the hand-computed figures are rounded to two decimals

# "a" beats "b", "a" and "c" draw, "c" forfeits against "b" (with a place that claims otherwise), then a
# 4-player match where "b" wins, "a" and "c" share second and "d" is last.
# A small tournament: "a" beats "b", "a" and "c" draw, "c" forfeits against "b" (with a place that
# claims otherwise), then a 4-player match where "b" wins, "a" and "c" share second and "d" is last.
TOURNAMENT = [
    [("a", 1, 10, False), ("b", 2, 5, False)],
    [("a", 1, 7, False), ("c", 1, 7, False)],
    [("b", 2, 3, False), ("c", 1, 9, True)],
    [("a", 2, 20, False), ("b", 1, 30, False), ("c", 2, 20, False), ("d", 4, 1, False)],
]


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


# --- The posterior from per-pair sufficient statistics -------------------------------------------------


def test_posterior_of_an_even_pair_sits_at_the_prior_centre():
    posterior = bradley_terry_posterior(first=[0], second=[1], weight=[4.0], score=[2.0], count=2)
    assert posterior.ratings == pytest.approx([0.0, 0.0], abs=1e-9)
    assert posterior.covariance[0, 0] == pytest.approx(posterior.covariance[1, 1])


def test_posterior_of_a_winning_pair_is_symmetric_and_a_proper_covariance():
    posterior = bradley_terry_posterior(first=[0], second=[1], weight=[4.0], score=[3.0], count=2)
    assert posterior.ratings[0] > 0 > posterior.ratings[1]
    assert posterior.ratings[0] == pytest.approx(-posterior.ratings[1])
    assert np.allclose(posterior.covariance, posterior.covariance.T)
    assert (np.linalg.eigvalsh(posterior.covariance) > 0).all()


def test_posterior_adds_up_entries_of_the_same_pair():
    split = bradley_terry_posterior(first=[0, 1], second=[1, 0], weight=[3.0, 2.0], score=[2.0, 0.5], count=2)
    whole = bradley_terry_posterior(first=[0], second=[1], weight=[5.0], score=[3.5], count=2)
    assert split.ratings == pytest.approx(whole.ratings)
    assert split.covariance == pytest.approx(whole.covariance)


def test_a_bot_without_entries_keeps_the_prior():
    posterior = bradley_terry_posterior(first=[0], second=[1], weight=[6.0], score=[5.0], count=3, prior_sd=250.0)
    assert posterior.ratings[2] == pytest.approx(0.0, abs=1e-9)
    assert posterior.covariance[2, 2] == pytest.approx(250.0**2)
    assert posterior.covariance[0, 2] == pytest.approx(0.0, abs=1e-9)


def test_a_wider_prior_lets_the_ratings_spread_further():
    narrow = bradley_terry_posterior(first=[0], second=[1], weight=[4.0], score=[3.0], count=2, prior_sd=50.0)
    wide = bradley_terry_posterior(first=[0], second=[1], weight=[4.0], score=[3.0], count=2, prior_sd=800.0)
    assert wide.ratings[0] > narrow.ratings[0] > 0


@pytest.mark.parametrize("prior_sd", [0.0, -1.0])
def test_posterior_refuses_a_prior_that_is_not_positive(prior_sd):
    with pytest.raises(ValueError, match="prior_sd"):
        bradley_terry_posterior(first=[0], second=[1], weight=[1.0], score=[1.0], count=2, prior_sd=prior_sd)
