"""The screen for arranged games: pairs of bots whose results against each other depart from what their
results against the rest of the field predict (pure, no Django).

Two accounts can arrange a rating: one bot recognises its partner from a signed move and loses to it on
purpose, while both play honestly against everyone else. Their results against the field then place
them, and their results against each other contradict that place. :func:`pair_departures` asks, for every
pair that met often enough, how likely its results are given the Bradley-Terry fit of every *other*
result (the pair's own games left out, so that they cannot explain themselves): the chance of a score at
least as far from the expected one, in the direction it went, from an exact binomial tail. A pair below
``p_threshold`` departs from the fit.

The fit without the pair is uncertain where the bots have few other games; the expected score is then
taken at the end of the difference's ``hedge`` standard deviations nearest to what was observed, so that
a pair is flagged for what the evidence says, not for what the prior's pull toward the average says.

Honest pairs can depart too (a bot written to beat one opponent's weakness): a departure is a reason for
staff to look, not a verdict.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Sequence
from dataclasses import dataclass

from scipy import stats

from ladder.ratings.bradley_terry import DEFAULT_PRIOR_SD, bradley_terry_posterior
from ladder.ratings.sequential import ELO_SCALE

#: Natural-log odds per Elo point.
_NAT_PER_ELO = math.log(10.0) / ELO_SCALE
#: A pair is fitted again without its own games only where the fit with them already finds it this unlikely.
_PRESCREEN_P = 0.05


@dataclass(frozen=True)
class PairTotal:
    """The rated results between bots ``a`` and ``b``: their total ``weight`` and ``a``'s weighted ``score``."""

    a: Hashable
    b: Hashable
    weight: float
    score: float


@dataclass(frozen=True)
class PairDeparture:
    """A pair whose results depart from the fit of the rest: ``a`` scored ``score`` of ``weight`` where the
    fit without the pair expected ``expected`` (a share, 0 to 1); ``p_value`` is the chance of a result at
    least as far from it in that direction."""

    a: Hashable
    b: Hashable
    weight: float
    score: float
    expected: float
    p_value: float


def binomial_tail(score: float, weight: float, expected: float) -> float:
    """The chance of a score at least as far from ``weight * expected`` as ``score``, in its direction, for
    ``weight`` independent results each won with chance ``expected`` (weights and scores rounded to whole
    results: a multiplayer pair's 2/N weights make fractions)."""
    games = max(int(round(weight)), 0)
    won = min(max(int(round(score)), 0), games)
    if games == 0:
        return 1.0
    if won >= games * expected:
        return float(stats.binom.sf(won - 1, games, expected))
    return float(stats.binom.cdf(won, games, expected))


def _expected(posterior, i: int, j: int, *, observed_share: float, hedge: float) -> float:
    """``i``'s expected share against ``j`` under ``posterior``, the difference moved ``hedge`` standard
    deviations toward what was observed."""
    difference = posterior.ratings[i] - posterior.ratings[j]
    spread = math.sqrt(max(posterior.covariance[i, i] + posterior.covariance[j, j] - 2 * posterior.covariance[i, j],
                           0.0))
    predicted = 1.0 / (1.0 + math.exp(-difference * _NAT_PER_ELO))
    toward = 1.0 if observed_share > predicted else -1.0
    moved = difference + toward * hedge * spread
    return 1.0 / (1.0 + math.exp(-moved * _NAT_PER_ELO))


def _fit(totals: Sequence[PairTotal], index: dict, *, prior_sd: float):
    return bradley_terry_posterior(first=[index[t.a] for t in totals], second=[index[t.b] for t in totals],
                                   weight=[t.weight for t in totals], score=[t.score for t in totals],
                                   count=len(index), prior_sd=prior_sd)


def pair_departures(totals: Sequence[PairTotal], *, min_weight: float, p_threshold: float, hedge: float = 1.0,
                    prior_sd: float = DEFAULT_PRIOR_SD) -> list[PairDeparture]:
    """The pairs of ``totals`` (one entry per pair) with at least ``min_weight`` results whose results are
    less likely than ``p_threshold`` under the fit of every other pair's results; most departing first."""
    totals = [t for t in totals if t.weight > 0]
    index = {bot: position for position, bot in enumerate(dict.fromkeys(b for t in totals for b in (t.a, t.b)))}
    if len(index) < 3:
        return []
    whole = _fit(totals, index, prior_sd=prior_sd)
    found = []
    for position, total in enumerate(totals):
        if total.weight < min_weight:
            continue
        share = total.score / total.weight
        i, j = index[total.a], index[total.b]
        if binomial_tail(total.score, total.weight, _expected(whole, i, j, observed_share=share, hedge=0.0)) \
                >= _PRESCREEN_P:
            continue
        rest = _fit(totals[:position] + totals[position + 1:], index, prior_sd=prior_sd)
        expected = _expected(rest, i, j, observed_share=share, hedge=hedge)
        p_value = binomial_tail(total.score, total.weight, expected)
        if p_value < p_threshold:
            found.append(PairDeparture(a=total.a, b=total.b, weight=total.weight, score=total.score,
                                       expected=expected, p_value=p_value))
    return sorted(found, key=lambda departure: departure.p_value)


__all__ = ["PairDeparture", "PairTotal", "binomial_tail", "pair_departures"]
