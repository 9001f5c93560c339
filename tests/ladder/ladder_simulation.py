"""A ladder played by synthetic bots of known strength, without a sandbox: how fast does each pairing rule
settle the order? Used by the pairing tests; each rule sees what the real ladder sees (online Elo, the
deviation :func:`candidate_deviations` gives from the pairwise totals so far, seat counts, owners, games,
the time since each bot's last game, counted in matches) and, as the ladder's tick does, chooses a batch
of groups that are all played before it chooses again.
"""

from __future__ import annotations

import math
import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

import numpy as np

from ladder.ratings.bradley_terry import fit_bradley_terry
from ladder.ratings.pairing import Candidate, candidate_deviations, expected_score, select_groups

# The service's defaults (settings.RATING_K, RATING_PROVISIONAL_K, RATING_PROVISIONAL_GAMES).
K, PROVISIONAL_K, PROVISIONAL_GAMES = 32.0, 48.0, 10
# settings.LADDER_PAIR_SHARE's default.
PAIR_SHARE = 0.25


@dataclass
class Ladder:
    strengths: Sequence[float]
    players: int = 2
    owners: Sequence[int] | None = None
    elo: list[float] = field(default_factory=list)
    games: list[int] = field(default_factory=list)
    pair_weight: np.ndarray = None  # weighted pairwise results between each two bots
    pair_score: np.ndarray = None  # weighted points of the row bot against the column bot
    seat_counts: list[list[int]] = field(default_factory=list)
    last_match: list[float] = field(default_factory=list)  # the match count at each bot's last game
    matches: int = 0

    def __post_init__(self):
        n = len(self.strengths)
        self.owners = list(self.owners) if self.owners is not None else list(range(n))
        self.elo = [1500.0] * n
        self.games = [0] * n
        self.pair_weight = np.zeros((n, n))
        self.pair_score = np.zeros((n, n))
        self.seat_counts = [[0] * self.players for _ in range(n)]
        self.last_match = [-math.inf] * n

    def add_bot(self, strength: float, owner: int) -> int:
        self.strengths = list(self.strengths) + [strength]
        self.owners.append(owner)
        self.elo.append(1500.0)
        self.games.append(0)
        grown = np.zeros((len(self.elo), len(self.elo)))
        grown[:-1, :-1] = self.pair_weight
        self.pair_weight = grown
        grown = np.zeros((len(self.elo), len(self.elo)))
        grown[:-1, :-1] = self.pair_score
        self.pair_score = grown
        self.seat_counts.append([0] * self.players)
        self.last_match.append(-math.inf)
        return len(self.elo) - 1

    def candidates(self) -> list[Candidate]:
        """The candidates as the ladder builds them: online Elo, its deviation from the pairwise totals."""
        first, second = np.nonzero(np.triu(self.pair_weight, 1))
        deviation = candidate_deviations(
            dict(enumerate(self.elo)),
            zip(first.tolist(), second.tolist(), self.pair_weight[first, second].tolist()),
        )
        return [Candidate(i, self.owners[i], self.elo[i], deviation[i], self.matches - self.last_match[i],
                          tuple(self.seat_counts[i]), self.games[i])
                for i in range(len(self.elo))]

    def play(self, group: Sequence[int], rng: random.Random) -> None:
        """One match: places drawn from the true strengths (Plackett-Luce), online Elo moved as the ladder does."""
        remaining, places = list(group), {}
        while remaining:
            weights = [10 ** (self.strengths[b] / 400.0) for b in remaining]
            pick = rng.random() * sum(weights)
            for b, w in zip(remaining, weights):
                pick -= w
                if pick <= 0:
                    break
            places[b] = len(places) + 1
            remaining.remove(b)
        n = len(group)
        deltas = {b: 0.0 for b in group}
        for i, a in enumerate(group):
            k = (PROVISIONAL_K if self.games[a] < PROVISIONAL_GAMES else K) / (n - 1)
            for b in group:
                if b != a:
                    score = 1.0 if places[a] < places[b] else 0.0
                    deltas[a] += k * (score - expected_score(self.elo[a], self.elo[b]))
        for seat, b in enumerate(group):
            self.elo[b] += deltas[b]
            self.games[b] += 1
            self.seat_counts[b][seat] += 1
            self.last_match[b] = self.matches
        for i, a in enumerate(group):
            for b in group[i + 1:]:
                self.pair_weight[a, b] += 2.0 / n
                self.pair_weight[b, a] += 2.0 / n
                won = 1.0 if places[a] < places[b] else 0.0
                self.pair_score[a, b] += won * 2.0 / n
                self.pair_score[b, a] += (1.0 - won) * 2.0 / n
        self.matches += 1

    def fit(self):
        """The Bradley-Terry fit of the games so far, from the pairwise totals (its sufficient statistics)."""
        a, b = np.nonzero(np.triu(self.pair_weight, 1))
        results = [(int(i), int(j), self.pair_score[i, j] / self.pair_weight[i, j], self.pair_weight[i, j])
                   for i, j in zip(a, b)]
        return fit_bradley_terry(results, bots=range(len(self.elo)))

    def order_settled(self, resolution: float) -> bool:
        """Whether the fitted order is right for every two bots whose true strengths differ by ``resolution``."""
        fitted = self.fit()
        rating = [fitted[i].rating for i in range(len(self.elo))]
        s = self.strengths
        return all((rating[a] > rating[b]) == (s[a] > s[b])
                   for a in range(len(s)) for b in range(a + 1, len(s)) if abs(s[a] - s[b]) >= resolution)


Pairing = Callable[[Ladder, int, random.Random], list[tuple[int, ...]]]


def informative(ladder: Ladder, count: int, rng: random.Random) -> list[tuple[int, ...]]:
    """The ladder's rule: ``select_groups`` on the candidates the ladder builds, each bot's games spread as
    the service spreads them (``LADDER_PAIR_SHARE``)."""
    first, second = np.nonzero(np.triu(ladder.pair_weight, 1))
    together = zip(first.tolist(), second.tolist(), ladder.pair_weight[first, second].tolist())
    return select_groups(ladder.candidates(), players=ladder.players, count=count, rng=rng,
                         provisional_games=PROVISIONAL_GAMES, pair_games=together, pair_share=PAIR_SHARE)


def today(ladder: Ladder, count: int, rng: random.Random) -> list[tuple[int, ...]]:
    """The rule the ladder used before: fewest games first, closest rating, each bot once per tick."""
    candidates = [(i, ladder.elo[i], ladder.games[i]) for i in range(len(ladder.elo))]
    return previous_rule_groups(candidates, players=ladder.players, matches=count, rng=rng)


def uniform(ladder: Ladder, count: int, rng: random.Random) -> list[tuple[int, ...]]:
    """Groups of bots of distinct owners drawn uniformly at random."""
    groups = []
    while len(groups) < count:
        group = rng.sample(range(len(ladder.elo)), ladder.players)
        if len({ladder.owners[b] for b in group}) == len(group):
            groups.append(tuple(group))
    return groups


def matches_to_settle(pairing: Pairing, strengths: Sequence[float], *, seed: int, players: int = 2,
                      batch: int = 8, resolution: float = 50.0, check_every: int | None = None,
                      limit: int = 40_000) -> int:
    """Matches played until the fitted order is right at ``resolution`` and stays so at the next check.

    The order is checked every ``check_every`` matches, by default every 40 two-player games' worth of
    pairwise results (an N-player match holds N - 1 of them), so that every player count is measured as
    finely for the same amount of evidence.
    """
    if check_every is None:
        check_every = max(1, round(40 / (players - 1)))
    rng = random.Random(seed)
    ladder = Ladder(strengths, players=players)
    settled_at = None
    next_check = check_every
    while ladder.matches < limit:
        for group in pairing(ladder, batch, rng):
            ladder.play(group, rng)
        if ladder.matches >= next_check:
            next_check += check_every
            if ladder.order_settled(resolution):
                if settled_at is not None:
                    return settled_at
                settled_at = ladder.matches
            else:
                settled_at = None
    return limit


def newcomer_matches(pairing: Pairing, strengths: Sequence[float], newcomer: float, *, seed: int,
                     warmup: int = 1500, tolerance: float = 50.0, limit: int = 3000, batch: int = 8) -> int:
    """Ladder matches after a new bot of strength ``newcomer`` joins a settled field until its online Elo
    is within ``tolerance`` of its true strength on the field's scale (the fitted ratings' anchor)."""
    rng = random.Random(seed)
    ladder = Ladder(strengths)
    while ladder.matches < warmup:
        for group in uniform(ladder, batch, rng):
            ladder.play(group, rng)
    # The field's Elo is centred where its strengths are: measure the newcomer on the same scale.
    offset = float(np.mean(ladder.elo[: len(strengths)]) - np.mean(strengths))
    new = ladder.add_bot(newcomer, owner=10_000)
    start = ladder.matches
    while ladder.matches - start < limit:
        for group in pairing(ladder, batch, rng):
            ladder.play(group, rng)
            if abs(ladder.elo[new] - (newcomer + offset)) <= tolerance:
                return ladder.matches - start
    return limit


def previous_rule_groups(
    candidates: Sequence[tuple[int, float, int]],
    *,
    players: int,
    matches: int,
    rng: random.Random,
    may_seat: Callable[[Sequence[int]], bool] | None = None,
) -> list[tuple[int, ...]]:
    """The rule the ladder paired by before ``select_groups``, kept as the simulation's baseline: up to
    ``matches`` groups of ``players`` distinct bots.

    ``candidates`` are ``(bot_id, elo, games)``. Each group starts from the bot with the fewest games (ties
    broken at random) and adds the bots closest to it in rating, so new bots get games quickly and games
    are between bots of similar strength. A bot is used at most once per call.

    ``may_seat`` (bot ids -> whether one match may seat them together; for rated play
    ``rated_play.seating_owners_distinct``) is asked before each bot joins a group: one that may not is
    passed over for the next closest, and an anchor for whom no full group can be formed sits this call
    out (the bots it passed over stay in the pool for the next groups).
    """
    pool = list(candidates)
    rng.shuffle(pool)
    groups: list[tuple[int, ...]] = []
    while len(groups) < matches and len(pool) >= players:
        pool.sort(key=lambda c: c[2])
        anchor = pool.pop(0)
        pool.sort(key=lambda c: abs(c[1] - anchor[1]))
        group, taken = [anchor[0]], set()
        for position, (bot_id, _, _) in enumerate(pool):
            if len(group) == players:
                break
            if may_seat is None or may_seat([*group, bot_id]):
                group.append(bot_id)
                taken.add(position)
        if len(group) < players:
            continue
        pool = [candidate for position, candidate in enumerate(pool) if position not in taken]
        rng.shuffle(group)
        groups.append(tuple(group))
    return groups
