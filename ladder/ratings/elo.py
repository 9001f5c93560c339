"""Elo for 2 to 5 players, and the one step that applies a rated match to its bots' ratings.

Pure functions on plain data (no Django, no database): the online applier
(``ladder.services.ratings.rating_applier.ratings_apply_pending``) and the rebuild (``ratings_rebuild``) both
go through :func:`rate_match`, so that a rebuild reproduces the online ratings exactly.

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

The step
--------
:func:`rate_match` applies one match to the :class:`BotRating` of each of its bots, in place: every seat
gets its K from its bot's games so far (:class:`KFactors`), moves by its Elo delta, and counts a win
(sole first place), a draw (shared first place) or a loss (anything else, and a forfeit) in its record
(:func:`seat_record`). Applying matches one after the other in a fixed order gives the same ratings
whoever applies them.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ladder.ratings.sequential import ELO_SCALE

INITIAL_RATING = 1500.0


def expected_score(rating, opponent):
    """Expected score (win = 1, draw = 1/2) of a bot rated ``rating`` against one rated ``opponent``; floats,
    or numpy arrays element by element."""
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


@dataclass
class BotRating:
    """A bot's rating in one game as the step reads and moves it: its Elo and its record."""

    elo: float = INITIAL_RATING
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0


@dataclass(frozen=True)
class KFactors:
    """K for an established bot, and ``provisional_k`` for a bot's first ``provisional_games`` games."""

    k: float
    provisional_k: float
    provisional_games: int

    def for_games(self, games_played: int) -> float:
        return k_factor(games_played, k=self.k, provisional_k=self.provisional_k,
                        provisional_games=self.provisional_games)


class RatedSeat(NamedTuple):
    """One seat of a rated match as the step reads it."""

    bot_id: Hashable
    place: int
    forfeited: bool = False


class SeatChange(NamedTuple):
    """What the step did to one seat's bot: its Elo before and after, and the difference."""

    before: float
    after: float
    delta: float


def seat_record(*, place: int, places: Sequence[int], forfeited: bool) -> str:
    """"win" for sole first place, "draw" for shared first place, "loss" otherwise (and on forfeit)."""
    if forfeited or place != 1:
        return "loss"
    return "win" if list(places).count(1) == 1 else "draw"


def rate_match(ratings: Mapping[Hashable, BotRating], seats: Sequence[RatedSeat], ks: KFactors) -> list[SeatChange]:
    """Apply one match to ``ratings`` (one :class:`BotRating` per bot of ``seats``, moved in place) and return
    each seat's change, in seat order. A match of fewer than two seats changes no Elo (its record still
    counts)."""
    places = [seat.place for seat in seats]
    if len(seats) < 2:
        deltas = [0.0] * len(seats)
    else:
        deltas = elo_deltas([ratings[seat.bot_id].elo for seat in seats], places,
                            [ks.for_games(ratings[seat.bot_id].games) for seat in seats],
                            [seat.forfeited for seat in seats])
    changes = []
    for seat, delta in zip(seats, deltas, strict=True):
        rating = ratings[seat.bot_id]
        before = rating.elo
        rating.elo = before + delta
        rating.games += 1
        record = seat_record(place=seat.place, places=places, forfeited=seat.forfeited)
        setattr(rating, _RECORD_FIELD[record], getattr(rating, _RECORD_FIELD[record]) + 1)
        changes.append(SeatChange(before, rating.elo, delta))
    return changes


_RECORD_FIELD = {"win": "wins", "draw": "draws", "loss": "losses"}
