"""Paired-game statistics for "is the candidate better than the baseline?": Elo from a score,
pentanomial mean and variance, a normal-approximation Elo interval and a sequential probability
ratio test (SPRT), as fishtest runs them for chess engines.

Pure functions on plain numbers (no Django, no database): version comparisons
(``ladder.services.tournaments.comparisons``) decide with them.

Elo and score
-------------
``score_from_elo(elo)`` is the logistic expected score ``1 / (1 + 10 ** (-elo / 400))`` of a player
``elo`` points stronger than its opponent, and ``elo_from_score(score)`` its inverse,
``-400 * log10(1 / score - 1)``. Scores 0 and 1 give ``-inf`` and ``+inf``; a score outside [0, 1]
is a ``ValueError``.

Pentanomial counts
------------------
Games are played in pairs: the same deal (seed) twice with the seats swapped, so both versions meet
the same luck. A pair is one sample, scored by the candidate's points over its two games: 0, 1/2, 1,
3/2 or 2. ``counts`` is the number of pairs with each of those totals, in that order (fishtest's
LL, LD+DL, LW+DD+WL, DW+WD, WW). Counts are non-negative and finite; anything else, or a sequence
not of length 5, is a ``ValueError``. Treating the pair as the sample keeps the luck the two games
share out of the variance, which is what makes paired games decide sooner.

``pentanomial_stats(counts)`` gives ``(score, variance)``:

* ``score``: the candidate's mean score per game (a pair's points / 2, averaged over the pairs);
* ``variance``: the variance per pair of that per-game score, so the standard error of ``score`` is
  ``sqrt(variance / pairs)`` (fishtest's per-game variance is twice this).

With no pairs both are NaN.

``elo_interval(counts, confidence=0.95)`` gives ``(estimate, low, high)`` in Elo:
``elo_from_score`` of ``score`` and of ``score -/+ z * sqrt(variance / pairs)``, the normal
approximation with z the two-sided quantile of ``confidence`` (1.96 for 95%). A bound beyond 0 or 1
becomes ``-inf`` / ``+inf``; a candidate that won (lost) every game has an estimate of ``+inf``
(``-inf``). Zero variance (every pair scored alike, so the normal approximation has no width) is
no certainty: the bounds are then the Wilson score interval, whose width comes from the largest
variance a mean of ``score`` allows, so a candidate that won all of 53 pairs has a lower bound of
about +456 Elo, not ``+inf``. No pairs gives ``(nan, -inf, +inf)``.
Callers that serialise to JSON must map the non-finite values (for example to ``null``).

SPRT
----
H0: the candidate is ``elo0`` logistic Elo stronger than the baseline; H1: it is ``elo1`` stronger
(``elo0 < elo1``, for example 0 and 2, or 0 and 50 for bots far apart). ``sprt_llr(counts, elo0,
elo1)`` is the generalized log-likelihood ratio of H1 against H0 for the pentanomial model with
logistic Elo bounds (fishtest's ``LLR_logistic``, "expectation" statistic):

* the five pair outcomes are a multinomial with unknown probabilities ``p``; each hypothesis fixes
  only the expected score per game, ``s0 = score_from_elo(elo0)`` or ``s1 = score_from_elo(elo1)``;
* under each hypothesis ``p`` is the maximum-likelihood distribution with that mean. With ``q`` the
  observed frequencies and ``a`` the per-game scores 0, 1/4, 1/2, 3/4, 1 of the five outcomes,
  Lagrange multipliers give ``p_i = q_i / (1 + x * (a_i - s))``, where ``x`` is the single root of
  ``sum q_i (a_i - s) / (1 + x (a_i - s)) = 0`` that keeps every ``p_i`` positive (the left side
  falls strictly with ``x``, so a bracketing root finder finds it);
* ``llr = pairs * sum q_i * log(p1_i / p0_i)``.

An outcome never observed counts as 0.001 of a pair (fishtest's regularisation), so that both
maxima exist whatever the counts; where the seen outcomes already straddle both means it moves the
LLR by a few thousandths at most. When they do not (every pair drawn, or every pair won) the LLR is
finite thanks to it alone and grows with the pairs: all draws reach -2.94 for elo0 = 0, elo1 = 2
after about 510 pairs, all wins +2.94 after as many. No pairs at all gives ``llr == 0.0``.
``elo0`` and ``elo1`` must be finite and their scores strictly between 0 and 1 (in double
precision, within about 6000 Elo of 0).

Swapping the two versions reverses ``counts`` and negates the Elo: ``sprt_llr(counts[::-1], -elo0,
-elo1) == sprt_llr(counts, elo0, elo1)``, so swapping the hypotheses as well flips the sign,
``sprt_llr(counts[::-1], -elo1, -elo0) == -sprt_llr(counts, elo0, elo1)``. With ``elo0 < elo1`` the
LLR rises when a pair moves to a better outcome, as long as every outcome has been seen; next to an
unseen outcome the regularisation can bend this by about 1e-4.

``sprt_bounds(alpha, beta)`` gives Wald's stopping bounds ``(log(beta / (1 - alpha)),
log((1 - beta) / alpha))`` (-2.944 and +2.944 for alpha = beta = 0.05), with ``alpha`` the chance
of accepting H1 when H0 holds and ``beta`` that of accepting H0 when H1 holds; both must lie in
(0, 1) with ``alpha + beta < 1``. ``sprt_decision(llr, bounds)`` says ``ACCEPT_H1`` once
``llr >= upper``, ``ACCEPT_H0`` once ``llr <= lower`` and ``CONTINUE`` in between.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from enum import StrEnum
from typing import NamedTuple

from scipy import optimize, stats

# The width of the logistic curve: a 400-point gap means 10-to-1 odds.
ELO_SCALE = 400.0

# A pair's points are 0, 1/2, 1, 3/2 or 2; per game that is a quarter step.
_PAIR_SCORES = (0.0, 0.25, 0.5, 0.75, 1.0)

# fishtest's pseudo-count for an outcome never seen: small enough to leave real counts alone, large
# enough that a maximum-likelihood distribution exists for every mean strictly between 0 and 1.
_UNSEEN_OUTCOME_PAIRS = 1e-3


def score_from_elo(elo: float) -> float:
    """Expected score per game (0..1) of a player ``elo`` logistic Elo stronger than its opponent."""
    if math.isnan(elo):
        raise ValueError("elo must be a number, got nan")
    exponent = -elo / ELO_SCALE
    if exponent > 300:  # 10 ** 300 is near the float limit; the score is 0 to double precision
        return 0.0
    return 1.0 / (1.0 + 10.0**exponent)


def elo_from_score(score: float) -> float:
    """Logistic Elo difference whose expected score is ``score``; ``-inf`` at 0, ``+inf`` at 1."""
    if not 0.0 <= score <= 1.0:  # also refuses nan
        raise ValueError(f"a score must lie in [0, 1], got {score}")
    if score == 0.0:
        return -math.inf
    if score == 1.0:
        return math.inf
    return -ELO_SCALE * math.log10(1.0 / score - 1.0)


def _checked_counts(counts: Sequence[float]) -> list[float]:
    values = [float(count) for count in counts]
    if len(values) != len(_PAIR_SCORES):
        raise ValueError(f"pentanomial counts need 5 entries (pairs scoring 0..2), got {len(values)}")
    if not all(math.isfinite(count) and count >= 0 for count in values):
        raise ValueError(f"pentanomial counts must be finite and >= 0, got {list(counts)}")
    return values


class PentanomialStats(NamedTuple):
    """Mean score per game, and the variance per pair of a pair's score per game."""

    score: float
    variance: float


def pentanomial_stats(counts: Sequence[float]) -> PentanomialStats:
    """``(score, variance)`` of pentanomial ``counts`` (module docstring); NaN for no pairs."""
    values = _checked_counts(counts)
    pairs = sum(values)
    if pairs == 0:
        return PentanomialStats(math.nan, math.nan)
    score = sum(count * a for count, a in zip(values, _PAIR_SCORES, strict=True)) / pairs
    variance = sum(count * (a - score) ** 2 for count, a in zip(values, _PAIR_SCORES, strict=True)) / pairs
    return PentanomialStats(score, variance)


class EloInterval(NamedTuple):
    """An Elo estimate with the bounds of its confidence interval."""

    estimate: float
    low: float
    high: float


def _elo_of_clamped(score: float) -> float:
    return elo_from_score(min(1.0, max(0.0, score)))


def elo_interval(counts: Sequence[float], confidence: float = 0.95) -> EloInterval:
    """Elo of the candidate over the baseline with its ``confidence`` interval (module docstring)."""
    if not 0 < confidence < 1:
        raise ValueError(f"confidence must be between 0 and 1, got {confidence}")
    values = _checked_counts(counts)
    pairs = sum(values)
    if pairs == 0:
        return EloInterval(math.nan, -math.inf, math.inf)
    score, variance = pentanomial_stats(values)
    z = stats.norm.ppf(0.5 + confidence / 2)
    if variance == 0:
        low, high = _wilson_bounds(score, pairs, z)
        return EloInterval(elo_from_score(score), _elo_of_clamped(low), _elo_of_clamped(high))
    margin = z * math.sqrt(variance / pairs)
    return EloInterval(elo_from_score(score), _elo_of_clamped(score - margin), _elo_of_clamped(score + margin))


def _wilson_bounds(score: float, pairs: float, z: float) -> tuple[float, float]:
    """The Wilson score interval of a mean ``score`` over ``pairs`` samples in [0, 1]: the means ``m``
    with ``(score - m) ** 2 <= z ** 2 * m * (1 - m) / pairs``, ``m * (1 - m)`` being the largest
    variance a sample in [0, 1] with mean ``m`` can have. The upper bound is the mirror of the lower
    one, so swapping the versions negates the Elo interval exactly."""
    return _wilson_low(score, pairs, z), 1.0 - _wilson_low(1.0 - score, pairs, z)


def _wilson_low(score: float, pairs: float, z: float) -> float:
    if score == 0.0:  # the formula's two terms cancel only up to rounding
        return 0.0
    shrink = 1 + z * z / pairs
    centre = (score + z * z / (2 * pairs)) / shrink
    half = z / shrink * math.sqrt(score * (1 - score) / pairs + z * z / (4 * pairs * pairs))
    return max(0.0, centre - half)


def _log_likelihood_gain(frequencies: Sequence[float], mean: float) -> list[float]:
    """``log(p_i / q_i)`` per outcome, for ``p`` the most likely distribution with expected score ``mean``.

    ``frequencies`` (q) are positive on all five outcomes and sum to 1; ``0 < mean < 1``.
    """
    offsets = [a - mean for a in _PAIR_SCORES]

    def slope(x: float) -> float:
        return sum(q * d / (1.0 + x * d) for q, d in zip(frequencies, offsets, strict=True))

    # Every p_i stays positive for x in (-1 / (1 - mean), 1 / mean); the slope runs from +inf to -inf
    # across that interval, so the root is inside it. Step in from the poles until the signs show.
    low_pole, high_pole = -1.0 / offsets[-1], -1.0 / offsets[0]
    inset = 1e-9
    while True:
        low, high = low_pole + inset * (high_pole - low_pole), high_pole - inset * (high_pole - low_pole)
        if slope(low) > 0 > slope(high) or inset < 1e-300:
            break
        inset /= 1e3
    root = optimize.brentq(slope, low, high, xtol=1e-300, rtol=1e-15, maxiter=500)
    return [-math.log1p(root * d) for d in offsets]


def sprt_llr(counts: Sequence[float], elo0: float, elo1: float) -> float:
    """Generalized log-likelihood ratio of H1 (``elo1``) against H0 (``elo0``) for pentanomial ``counts``."""
    if not (math.isfinite(elo0) and math.isfinite(elo1)):
        raise ValueError(f"elo0 and elo1 must be finite, got {elo0} and {elo1}")
    values = _checked_counts(counts)
    if sum(values) == 0:
        return 0.0
    means = score_from_elo(elo0), score_from_elo(elo1)
    if not all(0.0 < mean < 1.0 for mean in means):
        raise ValueError(f"elo0 and elo1 are too far from 0 for their scores to differ from 0 and 1: {elo0}, {elo1}")
    regularised = [count if count > 0 else _UNSEEN_OUTCOME_PAIRS for count in values]
    pairs = sum(regularised)
    frequencies = [count / pairs for count in regularised]
    gain0, gain1 = (_log_likelihood_gain(frequencies, mean) for mean in means)
    return pairs * sum(q * (g1 - g0) for q, g0, g1 in zip(frequencies, gain0, gain1, strict=True))


class SprtBounds(NamedTuple):
    """Wald's stopping bounds on the LLR: accept H0 at or below ``lower``, H1 at or above ``upper``."""

    lower: float
    upper: float


def sprt_bounds(alpha: float, beta: float) -> SprtBounds:
    """``(log(beta / (1 - alpha)), log((1 - beta) / alpha))`` for error rates alpha (H1 wrongly) and beta."""
    if not (0 < alpha < 1 and 0 < beta < 1 and alpha + beta < 1):
        raise ValueError(f"alpha and beta must lie in (0, 1) with alpha + beta < 1, got {alpha} and {beta}")
    return SprtBounds(math.log(beta / (1 - alpha)), math.log((1 - beta) / alpha))


class SprtDecision(StrEnum):
    """Where an SPRT stands: H1 (the candidate is ``elo1`` better) accepted, H0 accepted, or undecided."""

    ACCEPT_H1 = "accept_h1"
    ACCEPT_H0 = "accept_h0"
    CONTINUE = "continue"


def sprt_decision(llr: float, bounds: tuple[float, float]) -> SprtDecision:
    """``ACCEPT_H1`` when ``llr >= upper``, ``ACCEPT_H0`` when ``llr <= lower``, else ``CONTINUE``."""
    lower, upper = bounds
    if math.isnan(llr):
        raise ValueError("llr must be a number, got nan")
    if not lower < upper:
        raise ValueError(f"the lower bound must be below the upper one, got {lower} and {upper}")
    if llr >= upper:
        return SprtDecision.ACCEPT_H1
    if llr <= lower:
        return SprtDecision.ACCEPT_H0
    return SprtDecision.CONTINUE
