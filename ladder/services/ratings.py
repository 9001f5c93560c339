"""Rating maths for the ladder: Elo for 2 to 5 players, tournament standings, crosstables and an
order-independent maximum-likelihood rating with confidence intervals.

Pure functions on plain data (no Django, no database), so the incremental ladder update, the
``rebuild_ratings`` replay, the tournament pages and the tests all share one definition.

Match data
----------
Functions that read whole matches take an iterable of matches, each a sequence of seats, each seat a
``(bot_id, place, score, forfeited)`` tuple (``PlacedSeat`` names the fields): ``bot_id`` is any
hashable id, ``place`` the engine's ranking (1 = best, ties share a place), ``score`` the game's
points and ``forfeited`` whether the bot broke a rule and lost by forfeit.

Elo
---
Every bot starts at ``INITIAL_RATING`` (1500). The expected score of a bot rated ``R`` against one
rated ``O`` is the logistic curve on the usual 400-point scale::

    E(R, O) = 1 / (1 + 10 ** ((O - R) / 400))

A match with N seats (N = 2..5) is read as the N(N-1)/2 pairwise results it implies:

* places come from ``State.ranking()``: 1 is best, equal places are a draw between those seats;
* ``S(i, j)`` is 1 when seat i placed better than seat j, 1/2 when they share a place, 0 otherwise;
* a forfeited seat lost to every seat that did not forfeit, whatever its place says (the referee
  already puts it last; this makes the rule hold even for inconsistent input), and two forfeited
  seats draw each other.

Each seat moves by its own K scaled by ``1 / (N - 1)``, so one match is worth about one game however
many opponents sat at the table::

    delta_i = K_i / (N - 1) * sum over j != i of (S(i, j) - E(R_i, R_j))

For two players this is the textbook ``K * (S - E)``. When every seat uses the same K the deltas sum
to zero (each pair contributes ``S(i,j) - E(i,j) + S(j,i) - E(j,i) = 1 - 1``), so the pool of rating
points is conserved. Seats with different K (a provisional bot next to an established one) are not
conserved, by design: the newcomer must move fast without dragging its opponents along.

K comes from ``k_factor``: ``provisional_k`` for a bot's first ``provisional_games`` games, ``k``
afterwards.

Worked example, 2 players, K = 32: A (1600) beats B (1500).
    E(A, B) = 1 / (1 + 10 ** (-100/400)) = 0.6401
    delta_A = 32 * (1 - 0.6401) = +11.52,  delta_B = -11.52
    Had they drawn: delta_A = 32 * (0.5 - 0.6401) = -4.48, delta_B = +4.48.

Worked example, 4 players, K = 32 for everyone, so each seat uses 32 / 3:
    ratings [1550, 1500, 1450, 1400], places [2, 1, 2, 4] (seats 0 and 2 tie for second).
    seat 0: vs 1 lost (S=0, E=0.5715), vs 2 drew (S=0.5, E=0.6401), vs 3 won (S=1, E=0.7034)
            sum(S - E) = -0.4149  ->  delta = 32/3 * -0.4149 = -4.43
    seat 1: won all three: (1 - 0.4285) + (1 - 0.5715) + (1 - 0.6401) = 1.3599  ->  +14.51
    seat 2: (0.5 - 0.3599) + (0 - 0.4285) + (1 - 0.5715) = 0.1401  ->  +1.49
    seat 3: lost all three: -(0.2966 + 0.3599 + 0.4285) = -1.0851  ->  -11.57
    The deltas sum to zero.

Standings and crosstable
------------------------
``standings`` gives, per bot: points by place, pairwise wins / draws / losses, forfeits and the
average game score. Forfeited seats are ranked below every other seat (sharing the last places),
exactly as in the Elo rule above. Points come from a table of points per place for each player
count; seats that share a place share the average of the points of the positions they fill
together. The default table gives N - 1, N - 2, ..., 0 points for places 1..N, which makes a
seat's points equal to its pairwise score in that match (a 2-player game: 1 / 0.5 / 0).

Wins, draws and losses are pairwise: a 4-player match gives each seat three results, one against
each other seat (2-player matches are the usual one result). ``crosstable`` keeps the same pairwise
results per pair of bots. Two seats held by the same bot are not a result for that bot.

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

Paired comparisons of two versions
----------------------------------
The statistics of "is the candidate better than the baseline?" (Elo from a score, pentanomial mean
and variance, the Elo interval of paired games and the SPRT) live in ``ladder.services.sequential``
and are re-exported here; that module's docstring states their contracts.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
from scipy import stats

from ladder.services.sequential import ELO_SCALE as ELO_SCALE
from ladder.services.sequential import EloInterval as EloInterval
from ladder.services.sequential import PentanomialStats as PentanomialStats
from ladder.services.sequential import SprtBounds as SprtBounds
from ladder.services.sequential import SprtDecision as SprtDecision
from ladder.services.sequential import elo_from_score as elo_from_score
from ladder.services.sequential import elo_interval as elo_interval
from ladder.services.sequential import pentanomial_stats as pentanomial_stats
from ladder.services.sequential import score_from_elo as score_from_elo
from ladder.services.sequential import sprt_bounds as sprt_bounds
from ladder.services.sequential import sprt_decision as sprt_decision
from ladder.services.sequential import sprt_llr as sprt_llr

INITIAL_RATING = 1500.0


def expected_score(rating: float, opponent: float) -> float:
    """Expected score (win = 1, draw = 1/2) of a bot rated ``rating`` against one rated ``opponent``."""
    return 1.0 / (1.0 + 10.0 ** ((opponent - rating) / ELO_SCALE))


def k_factor(games_played: int, *, k: float, provisional_k: float, provisional_games: int) -> float:
    """K for a bot that has finished ``games_played`` rated games before this one.

    The first ``provisional_games`` games (games_played = 0 .. provisional_games - 1) use
    ``provisional_k`` so that a new bot finds its level quickly; later games use ``k``.
    """
    if games_played < 0:
        raise ValueError(f"games_played must be >= 0, got {games_played}")
    return provisional_k if games_played < provisional_games else k


def pairwise_scores(places: Sequence[int], forfeited: Sequence[bool] | None = None) -> list[list[float]]:
    """The matrix ``S[i][j]``: what seat i scored against seat j (1, 1/2 or 0; 0 on the diagonal).

    Lower place is better and equal places draw; a forfeited seat loses to every seat that did not
    forfeit and draws with every other forfeited seat. ``S[i][j] + S[j][i] == 1`` for i != j.
    """
    seats = len(places)
    if forfeited is None:
        forfeited = [False] * seats
    if len(forfeited) != seats:
        raise ValueError(f"got {seats} places but {len(forfeited)} forfeit flags")
    scores = [[0.0] * seats for _ in range(seats)]
    for i in range(seats):
        for j in range(seats):
            if i == j:
                continue
            if forfeited[i] or forfeited[j]:
                scores[i][j] = 0.5 if forfeited[i] and forfeited[j] else (0.0 if forfeited[i] else 1.0)
            elif places[i] < places[j]:
                scores[i][j] = 1.0
            elif places[i] == places[j]:
                scores[i][j] = 0.5
    return scores


def elo_deltas(
    ratings: Sequence[float],
    places: Sequence[int],
    ks: Sequence[float],
    forfeited: Sequence[bool] | None = None,
) -> list[float]:
    """Rating change of every seat of one match (see the module docstring for the formula).

    ``ratings``, ``places`` and ``ks`` (and ``forfeited`` when given) have one entry per seat, in
    seat order; the result does too. At least two seats; places are integers, 1 = best, ties share
    a place. Raises ``ValueError`` on mismatched lengths, fewer than two seats or a negative K.
    """
    seats = len(ratings)
    if seats < 2:
        raise ValueError(f"a rated match needs at least 2 seats, got {seats}")
    if len(places) != seats or len(ks) != seats:
        raise ValueError(f"got {seats} ratings, {len(places)} places and {len(ks)} K factors")
    if any(k < 0 for k in ks):
        raise ValueError(f"K factors must be >= 0, got {list(ks)}")
    scores = pairwise_scores(places, forfeited)
    deltas = []
    for i in range(seats):
        surprise = sum(scores[i][j] - expected_score(ratings[i], ratings[j]) for j in range(seats) if j != i)
        deltas.append(ks[i] / (seats - 1) * surprise)
    return deltas


class PlacedSeat(NamedTuple):
    """One seat of a finished match, as the standings and the tournament fit read it."""

    bot_id: Hashable
    place: int
    score: float
    forfeited: bool = False


MatchSeats = Sequence[tuple[Hashable, int, float, bool]]


def _seats(match: MatchSeats) -> list[PlacedSeat]:
    seats = [PlacedSeat(*seat) for seat in match]
    if len(seats) < 2:
        raise ValueError(f"a match needs at least 2 seats, got {len(seats)}")
    return seats


def _effective_order(seats: Sequence[PlacedSeat]) -> list[tuple[bool, int]]:
    """A sort key per seat: forfeited seats share one slot below every seat that played on."""
    return [(True, 0) if seat.forfeited else (False, seat.place) for seat in seats]


def default_points_by_place(players: int) -> list[float]:
    """N - 1, N - 2, ..., 0 points for places 1..N: a seat's points equal its pairwise score."""
    return [float(players - position) for position in range(1, players + 1)]


def match_points(
    seats: Sequence[PlacedSeat], points_by_place: Mapping[int, Sequence[float]] | None = None
) -> list[float]:
    """Points per seat of one match (see "Standings and crosstable" in the module docstring).

    ``points_by_place[N]`` lists the points for places 1..N of an N-player match; a player count
    missing from the table, or no table, uses ``default_points_by_place``.
    """
    players = len(seats)
    table = (points_by_place or {}).get(players) or default_points_by_place(players)
    if len(table) != players:
        raise ValueError(f"points table for {players} players has {len(table)} entries")
    keys = _effective_order(seats)
    ordered = sorted(keys)
    points = []
    for key in keys:
        first = ordered.index(key)
        shared = ordered.count(key)
        points.append(sum(table[first : first + shared]) / shared)
    return points


@dataclass(frozen=True)
class Standing:
    """One line of a tournament table. ``games`` counts seats played; results are pairwise."""

    bot_id: Hashable
    rank: int
    games: int
    points: float
    wins: int
    draws: int
    losses: int
    forfeits: int
    average_score: float


def standings(
    matches: Iterable[MatchSeats], *, points_by_place: Mapping[int, Sequence[float]] | None = None
) -> list[Standing]:
    """The tournament table, best first: by points, then pairwise wins, then fewest losses.

    Bots with equal points, wins and losses share a rank (1, 2, 2, 4); among them the bot seen
    first in ``matches`` is listed first, so the table is deterministic.
    """
    totals: dict[Hashable, dict[str, float]] = {}
    for match in matches:
        seats = _seats(match)
        points = match_points(seats, points_by_place)
        scores = pairwise_scores([s.place for s in seats], [s.forfeited for s in seats])
        for i, seat in enumerate(seats):
            line = totals.setdefault(
                seat.bot_id,
                {"games": 0, "points": 0.0, "wins": 0, "draws": 0, "losses": 0, "forfeits": 0, "score": 0.0},
            )
            line["games"] += 1
            line["points"] += points[i]
            line["forfeits"] += int(seat.forfeited)
            line["score"] += seat.score
            for j, other in enumerate(seats):
                if j == i or other.bot_id == seat.bot_id:
                    continue
                outcome = {1.0: "wins", 0.5: "draws", 0.0: "losses"}[scores[i][j]]
                line[outcome] += 1

    def order_key(bot_id: Hashable) -> tuple[float, int, int]:
        line = totals[bot_id]
        return (-line["points"], -int(line["wins"]), int(line["losses"]))

    table = []
    ordered = sorted(totals, key=order_key)  # stable: first-seen order breaks full ties
    for position, bot_id in enumerate(ordered, start=1):
        line = totals[bot_id]
        tied_above = position > 1 and order_key(ordered[position - 2]) == order_key(bot_id)
        rank = table[-1].rank if tied_above else position
        table.append(
            Standing(
                bot_id=bot_id,
                rank=rank,
                games=int(line["games"]),
                points=line["points"],
                wins=int(line["wins"]),
                draws=int(line["draws"]),
                losses=int(line["losses"]),
                forfeits=int(line["forfeits"]),
                average_score=line["score"] / line["games"],
            )
        )
    return table


@dataclass(frozen=True)
class HeadToHead:
    """Pairwise results of one bot against one opponent."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def score(self) -> float:
        """Wins plus half the draws."""
        return self.wins + 0.5 * self.draws


def crosstable(matches: Iterable[MatchSeats]) -> dict[Hashable, dict[Hashable, HeadToHead]]:
    """``table[a][b]``: a's pairwise results against b; ``table[b][a]`` mirrors them.

    Only pairs that met appear. A multiplayer match adds one result to every pair at the table.
    """
    counts: dict[Hashable, dict[Hashable, list[int]]] = {}
    for match in matches:
        seats = _seats(match)
        scores = pairwise_scores([s.place for s in seats], [s.forfeited for s in seats])
        for i, seat in enumerate(seats):
            for j, other in enumerate(seats):
                if j == i or other.bot_id == seat.bot_id:
                    continue
                record = counts.setdefault(seat.bot_id, {}).setdefault(other.bot_id, [0, 0, 0])
                record[{1.0: 0, 0.5: 1, 0.0: 2}[scores[i][j]]] += 1
    return {
        bot_id: {opponent: HeadToHead(*record) for opponent, record in row.items()}
        for bot_id, row in counts.items()
    }


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
        seats = _seats(match)
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


def fit_tournament(
    matches: Iterable[MatchSeats], *, prior_sd: float = DEFAULT_PRIOR_SD, confidence: float = 0.95
) -> dict[Hashable, FittedRating]:
    """``fit_bradley_terry`` on the weighted pairwise results of whole matches, for every bot seated.

    The tournament counterpart of ``standings``: same match data, one ``FittedRating`` per bot.
    """
    matches = [_seats(match) for match in matches]
    bots = [seat.bot_id for match in matches for seat in match]
    return fit_bradley_terry(
        match_pairwise_results(matches), bots=bots, prior_sd=prior_sd, confidence=confidence
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
