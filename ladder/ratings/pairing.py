"""Which groups of bots the ladder plays next: the games that teach the leaderboard most (pure, no Django).

Each bot comes with its online Elo and the standard error of that rating (``deviation``, in Elo points).
The order of two bots ``a`` and ``b`` is in doubt with the probability that the true difference has the
other sign than the estimated one, ``misorder(a, b) = Phi(-|elo_a - elo_b| / sqrt(dev_a^2 + dev_b^2))``;
a bot's *rank doubt* is the sum of its misorder probabilities with every other bot, the number of places
its rank may be off. One game between ``a`` and ``b`` adds ``c^2 p (1 - p)`` to the information of both
ratings (``p`` the expected score, ``c = ln 10 / 400`` per Elo point), which shrinks their deviations.

``select_groups`` builds groups one at a time:

* The anchor is the bot that waited longer than ``max_wait_s`` the longest, if any (no bot starves);
  else a bot still short of ``provisional_games`` or ``settling_games`` games, the fewest first: a new bot
  or version plays at once, in every group while it has the fewest games, until its online Elo has had
  the games it needs to forget where it started (:data:`SETTLING_GAMES`), however the rest of the field
  stands;
  otherwise a bot drawn with probability proportional to its rank doubt times its deviation, so that the
  bots whose places are least certain play most and every uncertain bot has a chance (exploration).
* The others join one by one, each the bot with the largest ``misorder x p (1 - p) x (dev_a^2 + dev_b^2)``
  summed over the members so far: close in rating (a game whose result is in doubt), whose order against
  the group is in doubt, and whose ratings the game would move most. Never two bots of one owner, never
  a pair kept ``apart`` (a pair flagged for arranged games), and, while another bot can take the place,
  never a bot that has already had its share of a member's games (``pair_games`` against ``pair_share``
  of the member's games, :func:`pair_cap`): each bot's games spread over many opponents, so that no two
  bots can trade many games before the screen for arranged games sees them.
* The seats go to the order that puts each bot where it has sat least so far (``seat_counts``).
* The group's games are then counted as if played: their information is added to the members'
  deviations and their seats and games to the members' counts, so the next group of the same call looks
  elsewhere while these results are still to come. A bot may therefore appear in several groups of one
  call, as often as its doubt warrants.
"""

from __future__ import annotations

import itertools
import math
import random
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr

from ladder.ratings.elo import expected_score

ELO_SCALE = 400.0
# Information per Elo point squared of one game with expected score p is NAT_PER_ELO^2 * p * (1 - p).
NAT_PER_ELO = math.log(10.0) / ELO_SCALE
# The deviation of a bot that has played nothing: the spread of ratings a new bot may land anywhere in.
PRIOR_DEVIATION = 350.0
# 95% two-sided normal quantile: an interval's half width is Z95 deviations.
Z95 = 1.959963984540054


@dataclass(frozen=True)
class Candidate:
    """A bot the ladder may seat.

    ``deviation`` is the standard error of ``elo`` in Elo points; ``waited_s`` the seconds since its last
    ladder game was scheduled (``math.inf`` for never); ``seat_counts[k]`` its ladder games in seat ``k``
    at this player count (shorter tuples count as zeros); ``games`` its rated games, scheduled ones
    included.
    """

    bot_id: int
    owner_id: int
    elo: float
    deviation: float
    waited_s: float = 0.0
    seat_counts: tuple[int, ...] = ()
    games: int = 0


def deviation_from_information(information: float, *, prior_deviation: float = PRIOR_DEVIATION) -> float:
    """The standard error (Elo points) of a rating backed by ``information`` (natural units) and the prior."""
    return 1.0 / math.sqrt(1.0 / (prior_deviation * NAT_PER_ELO) ** 2 + max(information, 0.0)) / NAT_PER_ELO


def game_information(elo: float, opponent: float, weight: float = 1.0) -> float:
    """The Fisher information (natural units) one pairwise result adds to the rating ``elo``."""
    p = expected_score(elo, opponent)
    return weight * p * (1.0 - p)


def half_width(deviation: float) -> float:
    """Half the width of the 95% interval of a rating with standard error ``deviation``."""
    return Z95 * deviation


#: The online Elo wanders around its bot's strength by about sqrt(K / (2 c)) = 53 points at K = 32, even
#: with infinitely many games; a candidate's deviation never claims more certainty than that.
ONLINE_JITTER = 30.0


def candidate_deviations(elo: Mapping[int, float], pairs: Iterable[tuple[int, int, float]], *,
                         jitter: float = ONLINE_JITTER) -> dict[int, float]:
    """The standard error (Elo points) of each bot's online ``elo``, for :class:`Candidate`.

    ``pairs`` are ``(a, b, weight)``: the total weight of the rated pairwise results between bots ``a``
    and ``b`` (1 per two-player game, 2/N per pair of an N-player one; pairs with a bot not in ``elo``
    are ignored). Each result adds ``c^2 p (1 - p)`` at the current ratings; ``jitter`` is added in
    quadrature (:data:`ONLINE_JITTER`). A bot without results gets the prior's deviation.
    """
    information = dict.fromkeys(elo, 0.0)
    for a, b, weight in pairs:
        if a in information and b in information:
            gained = game_information(elo[a], elo[b], weight)
            information[a] += gained
            information[b] += gained
    return {bot: math.hypot(deviation_from_information(i), jitter) for bot, i in information.items()}


#: The games after which a new bot is paired by its doubt like the rest. The online Elo forgets its start
#: by a factor ``exp(-K c / 4)`` per even game (K = 32: 4.5% a game); a bot that may start anywhere in the
#: prior's spread (:data:`PRIOR_DEVIATION`) has its start error worn down to the online jitter in about
#: ``4 ln(350 / 30) / (K c) = 53`` games. Until then the doubt draw, which sees only the games played and
#: not how far the online Elo still has to travel, would seat it about as often as any other bot.
SETTLING_GAMES = 50


def misorder_probabilities(elo: np.ndarray, deviation: np.ndarray) -> np.ndarray:
    """``m[i, j]``: the probability that bots ``i`` and ``j`` are truly in the other order (0 on the diagonal)."""
    spread = np.sqrt(deviation[:, None] ** 2 + deviation[None, :] ** 2)
    matrix = ndtr(-np.abs(elo[:, None] - elo[None, :]) / spread)
    np.fill_diagonal(matrix, 0.0)
    return matrix


#: The games two bots may play together before others are preferred, whatever their share.
PAIR_FLOOR = 8.0


def pair_cap(games: float, share: float) -> float:
    """The most games a bot with ``games`` games plays against any one opponent while others can take the
    place: ``share`` of its games, and at least :data:`PAIR_FLOOR`."""
    return max(PAIR_FLOOR, share * games)


def select_groups(
    candidates: Sequence[Candidate],
    *,
    players: int,
    count: int,
    rng: random.Random,
    max_wait_s: float = math.inf,
    provisional_games: int = 0,
    settling_games: int = SETTLING_GAMES,
    apart: Iterable[frozenset[int]] = (),
    pair_games: Iterable[tuple[int, int, float]] = (),
    pair_share: float = 1.0,
) -> list[tuple[int, ...]]:
    """Up to ``count`` groups of ``players`` bots of distinct owners, as seat orders (module docstring).

    ``provisional_games`` is the rating system's provisional phase; ``settling_games`` the games a bot
    anchors before its doubt alone decides (0 turns that off). ``apart`` are pairs of bot ids never seated
    together; ``pair_games`` are ``(a, b, weight)``, the games bots ``a`` and ``b`` have had together, and
    ``pair_share`` the share of a bot's games one opponent may take while others can (1 turns it off).

    None when fewer than ``players`` owners have candidates; fewer than ``count`` when the pairs kept apart
    leave no group. Deterministic for a given ``rng`` state. The field is held as dense matrices: a few
    thousand candidates per call at most.
    """
    if players < 2:
        raise ValueError(f"a ladder group needs at least 2 players, got {players}")
    if count <= 0 or len({c.owner_id for c in candidates}) < players:
        return []
    field = _Field(candidates, players, apart=apart, pair_games=pair_games, pair_share=pair_share)
    groups: list[tuple[int, ...]] = []
    while len(groups) < count:
        members = [field.anchor(max_wait_s, max(provisional_games, settling_games), rng)]
        while len(members) < players:
            joiner = field.best_joiner(members, rng)
            if joiner is None:
                return groups
            members.append(joiner)
        order = field.seat_order(members, rng)
        groups.append(tuple(field.bot_ids[i] for i in order))
        field.count_as_played(order)
    return groups


class _Field:
    """The candidates as arrays, with the games chosen so far in this call counted as played."""

    def __init__(self, candidates: Sequence[Candidate], players: int, *, apart: Iterable[frozenset[int]] = (),
                 pair_games: Iterable[tuple[int, int, float]] = (), pair_share: float = 1.0):
        self.bot_ids = [c.bot_id for c in candidates]
        position = {bot_id: i for i, bot_id in enumerate(self.bot_ids)}
        self.apart = np.zeros((len(candidates), len(candidates)), dtype=bool)
        for pair in apart:
            if len(pair) == 2 and all(b in position for b in pair):
                i, j = (position[b] for b in pair)
                self.apart[i, j] = self.apart[j, i] = True
        self.pair_share = pair_share
        self.together = np.zeros((len(candidates), len(candidates)))
        for a, b, weight in pair_games:
            if a in position and b in position:
                self.together[position[a], position[b]] += weight
                self.together[position[b], position[a]] += weight
        self.elo = np.array([c.elo for c in candidates], dtype=float)
        self.information = np.array([1.0 / (max(c.deviation, 1e-6) * NAT_PER_ELO) ** 2 for c in candidates])
        self.deviation = 1.0 / np.sqrt(self.information) / NAT_PER_ELO
        self.owners = np.array([c.owner_id for c in candidates])
        self.waited = np.array([c.waited_s for c in candidates], dtype=float)
        self.games = np.array([c.games for c in candidates], dtype=float)
        self.seats = np.zeros((len(candidates), players), dtype=float)
        for i, c in enumerate(candidates):
            known = c.seat_counts[:players]
            self.seats[i, : len(known)] = known
        self.misorder = misorder_probabilities(self.elo, self.deviation)
        self.doubt = self.misorder.sum(axis=1)

    def anchor(self, max_wait_s: float, first_games: int, rng: random.Random) -> int:
        """The longest-waiting bot past the bound, else the bot short of ``first_games`` with the fewest
        games, else one drawn in proportion to its rank doubt times its deviation."""
        overdue = np.flatnonzero(self.waited > max_wait_s)
        if overdue.size:
            return int(overdue[np.argmax(self.waited[overdue])])
        provisional = np.flatnonzero(self.games < first_games)
        if provisional.size:
            fewest = provisional[self.games[provisional] == self.games[provisional].min()]
            return int(fewest[rng.randrange(len(fewest))])
        weights = np.cumsum(np.clip(self.doubt, 0.0, None) * self.deviation)
        total = float(weights[-1])
        if total <= 0.0:
            return rng.randrange(len(self.bot_ids))
        # One uniform draw from the caller's rng keeps the whole selection reproducible from its seed.
        return min(int(np.searchsorted(weights, rng.random() * total, side="right")), len(weights) - 1)

    def best_joiner(self, members: list[int], rng: random.Random) -> int | None:
        """The bot whose game with ``members`` is most informative about the order, of an owner not seated,
        kept apart from none of them, and short of its share of their games if any such bot is left; None
        when no bot may join."""
        allowed = ~np.isin(self.owners, self.owners[members]) & ~self.apart[members].any(axis=0)
        if not allowed.any():
            return None
        if self.pair_share < 1.0:
            caps = np.array([pair_cap(self.games[m], self.pair_share) for m in members])
            spread = allowed & (self.together[members] < caps[:, None]).all(axis=0)
            if spread.any():
                allowed = spread
        value = np.zeros(len(self.elo))
        for m in members:
            p = expected_score(self.elo[m], self.elo)
            value += self.misorder[m] * p * (1.0 - p) * (self.deviation[m] ** 2 + self.deviation**2)
        value = np.where(allowed, value, -np.inf)
        best = float(value.max())
        # Ties (a fresh field where everything is equal) are broken at random, never by bot order.
        tied = np.flatnonzero(value >= best - 1e-9 * max(1.0, abs(best)))
        return int(tied[rng.randrange(len(tied))])

    def seat_order(self, members: list[int], rng: random.Random) -> list[int]:
        """The seat order that puts the members where they sat least; ties at random."""
        best_cost, best = math.inf, []
        for order in itertools.permutations(members):
            cost = sum(self.seats[i, seat] for seat, i in enumerate(order))
            if cost < best_cost - 1e-9:
                best_cost, best = cost, [order]
            elif abs(cost - best_cost) <= 1e-9:
                best.append(order)
        return list(best[rng.randrange(len(best))])

    def count_as_played(self, order: list[int]) -> None:
        """Add the group's expected pairwise information and seats to its members; refresh their doubts."""
        weight = 2.0 / len(order)  # the weight of each pairwise result of an N-player match
        for a, b in itertools.combinations(order, 2):
            self.together[a, b] += weight
            self.together[b, a] += weight
            p = expected_score(self.elo[a], self.elo[b])
            self.information[a] += weight * p * (1.0 - p)
            self.information[b] += weight * p * (1.0 - p)
        for seat, m in enumerate(order):
            self.seats[m, seat] += 1
            self.waited[m] = 0.0
            self.games[m] += 1
            self.deviation[m] = 1.0 / math.sqrt(self.information[m]) / NAT_PER_ELO
        for m in order:
            spread = np.sqrt(self.deviation[m] ** 2 + self.deviation**2)
            row = ndtr(-np.abs(self.elo[m] - self.elo) / spread)
            row[m] = 0.0
            self.doubt += row - self.misorder[m]
            self.misorder[m, :] = row
            self.misorder[:, m] = row
            self.doubt[m] = row.sum()
