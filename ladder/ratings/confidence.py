"""How sure a leaderboard is of its order: an interval per bot, the ranks it could truly hold, and the
chance that each row is truly stronger than the next.

Pure functions on plain data (no Django, no database), like ``ladder.ratings.bradley_terry``, whose
Bradley-Terry fit they build on.

The fit
-------
``board_certainty`` fits ``ratings.bradley_terry_posterior`` to a game's whole rated history, given as
per-pair totals (``PairTotals``): for every pair of bots that met, the weight of their pairwise results
(1 per two-player game; 2/N per pair of an N-player game, so that one match counts as N - 1 comparisons,
as the tournaments' fit counts it) and the weighted score of one of them (a draw is half a win). The
totals are all the fit needs, so it costs the same after a million matches as after a thousand: its
size is the number of bots, not of games. Each rating carries the tournaments' weak prior (a normal of
``ratings.DEFAULT_PRIOR_SD`` Elo around the field's average), and the posterior is approximated by the
normal centred on its maximum with the inverse Hessian as covariance (the Laplace approximation, which
is the usual maximum-likelihood standard error once a bot has a few games).

What the figures mean
---------------------
Bradley-Terry ratings only say how far apart bots are. To stand beside the online Elo, the fitted
ratings are shifted so that their average over the *reference group* (every bot given an Elo) equals
that group's average online Elo; Elo conserves points, so that average is the same anchor Elo has.

* ``estimate`` is the fitted rating so placed, ``low``/``high`` the ``confidence`` interval of it:
  ``estimate -+ z * sd``, where sd is the posterior standard deviation of the bot's distance from the
  group's average. It says where the bot's strength lies, not how far off the Elo number is: the
  online Elo follows recent games in order (with K = 32 it wanders tens of points around the strength)
  and can lie outside its bot's interval, while the fit weighs every rated game at once.
* ``p_above`` is the posterior probability that the row is stronger than the next row of the board
  (the board is in Elo order): ``Phi(d / sd(d))`` with ``d`` the fitted difference, its variance from
  the covariance (``var_i + var_j - 2 cov_ij``). Near 1 the order of the two rows is settled; near 1/2
  it is a coin toss; below 1/2 the fit has them the other way round. The last row has none.
* ``best``/``worst`` (the rank range) are the ``(1 - confidence) / 2`` and ``(1 + confidence) / 2``
  quantiles of the bot's rank among the board's bots when ratings are drawn ``samples`` times from the
  posterior normal, with a fixed seed so that the same history always gives the same answer.

What it assumes: a bot's strength is one number over its whole rated history (a new version keeps its
bot's history, so a much improved bot's interval lags until its new games outweigh the old), results
are independent given the strengths (a multiplayer game's pairs are not, hence their weight 2/N), and a
bot with few games is pulled toward the average by the prior. A bot with no rated games gets the
prior's width (+-1.96 * 400 Elo, about +-780 in a large field): nothing is known of it.
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import stats

from ladder.ratings.bradley_terry import DEFAULT_PRIOR_SD, bradley_terry_posterior

#: The ``p_above`` from which the site calls the order of two adjacent rows settled.
SETTLED_P = 0.95

#: Posterior draws behind the rank ranges: a 2.5% quantile then rests on about a hundred draws.
RANK_SAMPLES = 4000


class PairTotals(NamedTuple):
    """Bots ``a`` and ``b`` met with total weight ``weight``, of which ``a`` scored ``score_a`` (wins plus
    half the draws, weighted; ``0 <= score_a <= weight``)."""

    a: Hashable
    b: Hashable
    weight: float
    score_a: float


@dataclass(frozen=True)
class RowCertainty:
    """How sure the fit is of one row of a board (module docstring): its interval in Elo points, its
    rank range (1 = best) and ``p_above``, None on the last row."""

    estimate: float
    low: float
    high: float
    best: int
    worst: int
    p_above: float | None


def board_certainty(
    board: Sequence[Hashable],
    elos: Mapping[Hashable, float],
    pairs: Iterable[tuple],
    *,
    prior_sd: float = DEFAULT_PRIOR_SD,
    confidence: float = 0.95,
    samples: int = RANK_SAMPLES,
    seed: int = 0,
) -> list[RowCertainty]:
    """One ``RowCertainty`` per bot of ``board`` (bot ids, best first, distinct), in board order.

    ``elos`` gives the online Elo of every bot of the reference group; it must cover the board, and may
    name more bots (those not shown, such as inactive ones): the group anchors the intervals. ``pairs``
    are ``PairTotals`` tuples, in any order, a pair possibly split over several tuples; bots that appear
    only there count in the fit but not in the anchor. Ranks are among the board's bots only.
    Deterministic: the rank ranges use ``samples`` draws from a generator seeded with ``seed``.
    """
    if len(set(board)) != len(board):
        raise ValueError("a bot appears twice on the board")
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    if samples < 1:
        raise ValueError(f"samples must be >= 1, got {samples}")
    missing = [bot for bot in board if bot not in elos]
    if missing:
        raise ValueError(f"no Elo for the board's bots {missing!r}")
    if not board:
        return []
    index: dict[Hashable, int] = {}
    for bot in (*board, *elos):
        index.setdefault(bot, len(index))
    first, second, weight, score = [], [], [], []
    for pair in pairs:
        a, b, total, score_a = PairTotals(*pair)
        if not 0.0 <= score_a <= total + 1e-9 * max(1.0, total):
            raise ValueError(f"score_a must be within [0, weight], got {score_a} of {total} for {a!r} vs {b!r}")
        if a == b or total == 0:
            continue
        first.append(index.setdefault(a, len(index)))
        second.append(index.setdefault(b, len(index)))
        weight.append(total)
        score.append(min(score_a, total))
    posterior = bradley_terry_posterior(first=first, second=second, weight=weight, score=score, count=len(index),
                                        prior_sd=prior_sd)
    shown = len(board)
    theta, covariance = posterior.ratings, posterior.covariance
    estimate, sd = _anchored(theta, covariance, [index[bot] for bot in elos], [elos[bot] for bot in elos], shown)
    z = float(stats.norm.ppf(0.5 + confidence / 2.0))
    p_above = _p_above(theta[:shown], covariance[:shown, :shown])
    best, worst = _rank_ranges(theta[:shown], covariance[:shown, :shown], confidence=confidence,
                               samples=samples, seed=seed)
    return [
        RowCertainty(estimate=float(estimate[i]), low=float(estimate[i] - z * sd[i]), high=float(estimate[i] + z * sd[i]),
                     best=int(best[i]), worst=int(worst[i]), p_above=None if i == shown - 1 else float(p_above[i]))
        for i in range(shown)
    ]


def _anchored(theta: np.ndarray, covariance: np.ndarray, group: list[int], group_elos: list[float],
              shown: int) -> tuple[np.ndarray, np.ndarray]:
    """The first ``shown`` ratings placed on the Elo scale (their group's fitted average at its Elo
    average) and the standard deviation of each one's distance from that fitted average."""
    contrast = np.zeros((shown, len(theta)))
    contrast[:, group] = -1.0 / len(group)
    contrast[np.arange(shown), np.arange(shown)] += 1.0
    estimate = float(np.mean(group_elos)) + contrast @ theta
    variance = np.einsum("ij,jk,ik->i", contrast, covariance, contrast)
    return estimate, np.sqrt(np.clip(variance, 0.0, None))


def _p_above(theta: np.ndarray, covariance: np.ndarray) -> np.ndarray:
    """P(rating i > rating i + 1) under the posterior normal, for each adjacent pair of rows."""
    if len(theta) < 2:
        return np.array([])
    diagonal = np.diag(covariance)
    gap = theta[:-1] - theta[1:]
    variance = diagonal[:-1] + diagonal[1:] - 2.0 * np.diag(covariance, k=1)
    return stats.norm.cdf(gap / np.sqrt(np.clip(variance, 1e-12, None)))


def _rank_ranges(theta: np.ndarray, covariance: np.ndarray, *, confidence: float, samples: int,
                 seed: int) -> tuple[np.ndarray, np.ndarray]:
    """Lower and upper ``confidence`` quantiles of each bot's rank (1 = best) over posterior draws."""
    count = len(theta)
    # eigh rather than Cholesky: a covariance that rounding left barely indefinite still factors.
    values, vectors = np.linalg.eigh(covariance)
    root = vectors * np.sqrt(np.clip(values, 0.0, None))
    draws = theta + np.random.default_rng(seed).standard_normal((samples, count)) @ root.T
    order = np.argsort(-draws, axis=1, kind="stable")
    ranks = np.empty_like(order)
    ranks[np.arange(samples)[:, None], order] = np.arange(count)
    # Each bot's distribution of ranks, then the smallest rank whose cumulative share reaches each tail
    # (numpy's "inverted_cdf" quantile, without sorting every column).
    histogram = np.bincount((np.arange(count) * count + ranks).ravel(), minlength=count * count).reshape(count, count)
    cumulative = np.cumsum(histogram, axis=1) / samples
    tail = (1.0 - confidence) / 2.0
    best = np.argmax(cumulative >= tail - 1e-12, axis=1) + 1
    worst = np.argmax(cumulative >= 1.0 - tail - 1e-12, axis=1) + 1
    return best, worst
