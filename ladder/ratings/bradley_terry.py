"""An order-independent maximum-likelihood rating with confidence intervals (Bradley-Terry).

Pure functions on plain data (no Django, no database); match data as in ``ladder.ratings.tables``.

Order-independent rating (Bradley-Terry)
----------------------------------------
Online Elo depends on the order of the matches. ``fit_bradley_terry`` instead finds the ratings that
make all pairwise results of a tournament most likely at once, on the same Elo scale::

    P(i beats j) = E(R_i, R_j) = 1 / (1 + 10 ** ((R_j - R_i) / 400))

A draw counts as half a win and half a loss. Each bot's rating also carries a weak normal prior
centred on ``INITIAL_RATING`` (standard deviation ``prior_sd`` Elo; the default weighs about as
much as three quarters of one drawn game against an average bot), which keeps a bot that won or
lost everything finite and makes the maximum unique. Because the likelihood only sees rating
differences, the maximum puts the average of the fitted ratings exactly at ``INITIAL_RATING``: the
ratings are relative to the field. The 95% interval of each bot is ``rating +- 1.96 * stderr``, the
standard error coming from the inverse of the Hessian of the negative log posterior at the
maximum (the observed information), projected onto rating differences from the field's average.

A multiplayer match is N(N-1)/2 pairwise results that are not independent (they come from one
ranking). ``match_pairwise_results`` gives each one the weight 2/N, so that one match counts as
N - 1 comparisons, the number of independent choices in a full ranking of N (as in Plackett-Luce);
counting every pair fully would make the intervals too narrow.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import stats

from ladder.ratings.elo import INITIAL_RATING, pairwise_scores
from ladder.ratings.sequential import ELO_SCALE
from ladder.ratings.tables import MatchSeats, placed_seats


class PairwiseResult(NamedTuple):
    """``a`` scored ``score_a`` (1, 1/2, 0, or anything in between) against ``b``, counted ``weight`` times."""

    a: Hashable
    b: Hashable
    score_a: float
    weight: float = 1.0


def match_pairwise_results(matches: Iterable[MatchSeats]) -> list[PairwiseResult]:
    """Every pairwise result of the matches, weighted 2/N for an N-player match (module docstring)."""
    results = []
    for match in matches:
        seats = placed_seats(match)
        scores = pairwise_scores([s.place for s in seats], [s.forfeited for s in seats])
        weight = 2.0 / len(seats)
        for i in range(len(seats)):
            for j in range(i + 1, len(seats)):
                if seats[i].bot_id != seats[j].bot_id:
                    results.append(PairwiseResult(seats[i].bot_id, seats[j].bot_id, scores[i][j], weight))
    return results


@dataclass(frozen=True)
class FittedRating:
    """A maximum-likelihood rating on the Elo scale with its confidence interval."""

    rating: float
    stderr: float
    low: float
    high: float


# One drawn game against an equal opponent adds (ln 10 / 400)^2 / 4 to the information, the same as
# a normal prior with sd 347 Elo; 400 Elo is a little weaker than that single draw.
DEFAULT_PRIOR_SD = 400.0

# Elo points per natural-log unit of odds: the fit works in natural units for clean derivatives.
_ELO_PER_NAT = ELO_SCALE / math.log(10.0)


def fit_bradley_terry(
    pairwise_results: Iterable[tuple],
    *,
    bots: Iterable[Hashable] = (),
    prior_sd: float = DEFAULT_PRIOR_SD,
    confidence: float = 0.95,
) -> dict[Hashable, FittedRating]:
    """Order-independent ratings of every bot from pairwise results (module docstring).

    ``pairwise_results`` holds ``(a, b, score_a)`` or ``(a, b, score_a, weight)`` tuples
    (``PairwiseResult``) with ``0 <= score_a <= 1`` and ``weight >= 0``; their order does not matter.
    ``bots`` may name bots without results; they get ``INITIAL_RATING`` and a prior-wide interval.
    Returns one ``FittedRating`` per bot, in order of first appearance (``bots`` first). The ratings
    average exactly ``INITIAL_RATING``; ``low``/``high`` bound the ``confidence`` interval.
    """
    if prior_sd <= 0:
        raise ValueError(f"prior_sd must be > 0, got {prior_sd}")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    index: dict[Hashable, int] = {}
    for bot_id in bots:
        index.setdefault(bot_id, len(index))
    # Sufficient statistics per unordered pair: total weight and the weighted score of the first bot.
    pairs: dict[tuple[int, int], list[float]] = {}
    for result in pairwise_results:
        a, b, score_a, weight = PairwiseResult(*result)
        if not 0.0 <= score_a <= 1.0:
            raise ValueError(f"score_a must be within [0, 1], got {score_a} for {a!r} vs {b!r}")
        if weight < 0:
            raise ValueError(f"weight must be >= 0, got {weight} for {a!r} vs {b!r}")
        i = index.setdefault(a, len(index))
        j = index.setdefault(b, len(index))
        if i == j:
            continue
        if i > j:
            i, j, score_a = j, i, 1.0 - score_a
        total = pairs.setdefault((i, j), [0.0, 0.0])
        total[0] += weight
        total[1] += weight * score_a
    count = len(index)
    if count == 0:
        return {}
    posterior = bradley_terry_posterior(
        first=[i for i, _ in pairs], second=[j for _, j in pairs], weight=[t[0] for t in pairs.values()],
        score=[t[1] for t in pairs.values()], count=count, prior_sd=prior_sd,
    )
    # The field's average is fixed by convention, so the uncertainty that matters is that of each
    # rating's distance from the average: project the covariance onto sum-zero directions.
    centring = np.eye(count) - np.full((count, count), 1.0 / count)
    covariance = centring @ posterior.covariance @ centring
    stderrs = np.sqrt(np.clip(np.diag(covariance), 0.0, None))
    ratings = INITIAL_RATING + posterior.ratings - posterior.ratings.mean()
    z = float(stats.norm.ppf(0.5 + confidence / 2.0))
    return {
        bot_id: FittedRating(
            rating=float(ratings[i]),
            stderr=float(stderrs[i]),
            low=float(ratings[i] - z * stderrs[i]),
            high=float(ratings[i] + z * stderrs[i]),
        )
        for bot_id, i in index.items()
    }


@dataclass(frozen=True)
class BradleyTerryPosterior:
    """The normal approximation of a Bradley-Terry fit's posterior, in Elo points.

    ``ratings[i]`` is bot i's most likely rating relative to the prior's centre (0); ``covariance`` is
    the inverse of the Hessian of the negative log posterior at that maximum (the observed information
    with the prior's), a proper covariance: the prior pins the field's average loosely, so the matrix
    is invertible, and differences ``ratings[i] - ratings[j]`` have the variance
    ``cov[i, i] + cov[j, j] - 2 cov[i, j]`` whatever the average.
    """

    ratings: np.ndarray
    covariance: np.ndarray


def bradley_terry_posterior(
    *,
    first: Sequence[int],
    second: Sequence[int],
    weight: Sequence[float],
    score: Sequence[float],
    count: int,
    prior_sd: float = DEFAULT_PRIOR_SD,
) -> BradleyTerryPosterior:
    """The Bradley-Terry fit of ``count`` bots (indices 0..count-1) from per-pair sufficient statistics.

    Entry k says that bots ``first[k]`` and ``second[k]`` (different) met with total weight
    ``weight[k]`` (results counted, 2/N each from an N-player match) and that ``first[k]`` scored
    ``score[k]`` of it (wins plus half the draws, weighted; ``0 <= score <= weight``). A pair may appear
    in several entries; bots without entries keep the prior. Each rating has the normal prior
    N(0, ``prior_sd``^2) in Elo points (see the module docstring).
    """
    if prior_sd <= 0:
        raise ValueError(f"prior_sd must be > 0, got {prior_sd}")
    first_ = np.asarray(first, dtype=int)
    second_ = np.asarray(second, dtype=int)
    games = np.asarray(weight, dtype=float)
    won = np.asarray(score, dtype=float)
    precision = (_ELO_PER_NAT / prior_sd) ** 2

    def negative_log_posterior(theta: np.ndarray) -> float:
        gap = theta[first_] - theta[second_]
        # log sigmoid(x) = -logaddexp(0, -x), stable for large gaps.
        log_likelihood = -won * np.logaddexp(0.0, -gap) - (games - won) * np.logaddexp(0.0, gap)
        return float(-log_likelihood.sum() + 0.5 * precision * theta @ theta)

    def gradient(theta: np.ndarray) -> np.ndarray:
        surprise = won - games * _sigmoid(theta[first_] - theta[second_])
        grad = precision * theta
        np.subtract.at(grad, first_, surprise)
        np.add.at(grad, second_, surprise)
        return grad

    def hessian(theta: np.ndarray) -> np.ndarray:
        p = _sigmoid(theta[first_] - theta[second_])
        information = games * p * (1.0 - p)
        matrix = precision * np.eye(count)
        np.add.at(matrix, (first_, first_), information)
        np.add.at(matrix, (second_, second_), information)
        np.subtract.at(matrix, (first_, second_), information)
        np.subtract.at(matrix, (second_, first_), information)
        return matrix

    theta = _newton_minimize(negative_log_posterior, gradient, hessian, np.zeros(count))
    return BradleyTerryPosterior(
        ratings=theta * _ELO_PER_NAT, covariance=np.linalg.inv(hessian(theta)) * _ELO_PER_NAT**2
    )


def _newton_minimize(function, gradient, hessian, start: np.ndarray, max_steps: int = 100) -> np.ndarray:
    """Minimum of a smooth, strictly convex function by Newton's method with step halving.

    The prior makes the negative log posterior strictly convex, so Newton converges from anywhere
    in a handful of steps; halving only guards the first steps when ratings are far apart.
    """
    point = start
    value = function(point)
    for _ in range(max_steps):
        slope = gradient(point)
        if np.max(np.abs(slope)) < 1e-10:
            return point
        step = np.linalg.solve(hessian(point), -slope)
        descent = float(slope @ step)
        scale = 1.0
        while True:
            candidate = point + scale * step
            candidate_value = function(candidate)
            if candidate_value <= value + 1e-4 * scale * descent or scale < 1e-12:
                break
            scale *= 0.5
        if value - candidate_value < 1e-14 * (1.0 + abs(value)):
            # Rounding decides from here on: the point is as good as floating point allows.
            return candidate if candidate_value < value else point
        point, value = candidate, candidate_value
    raise ArithmeticError("rating fit did not converge")


def _sigmoid(x: np.ndarray) -> np.ndarray:
    return 0.5 * (1.0 + np.tanh(0.5 * x))
