"""Tournament tables: points by place, standings and crosstables of finished matches.

Pure functions on plain data (no Django, no database): the tournament pages (``ladder.selectors``), the
stored standings (``ladder.services.ratings.tournament_records``, whose SQL a test holds equal to these) and
the tests share one definition.

Match data
----------
Functions that read whole matches take an iterable of matches, each a sequence of seats, each seat a
``(bot_id, place, score, forfeited)`` tuple (``PlacedSeat`` names the fields): ``bot_id`` is any
hashable id, ``place`` the engine's ranking (1 = best, ties share a place), ``score`` the game's
points and ``forfeited`` whether the bot broke a rule and lost by forfeit.

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
"""

from __future__ import annotations

from collections.abc import Hashable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple

from ladder.ratings.elo import pairwise_scores


class PlacedSeat(NamedTuple):
    """One seat of a finished match, as the standings and the tournament fit read it."""

    bot_id: Hashable
    place: int
    score: float
    forfeited: bool = False


MatchSeats = Sequence[tuple[Hashable, int, float, bool]]


def placed_seats(match: MatchSeats) -> list[PlacedSeat]:
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
        seats = placed_seats(match)
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
        seats = placed_seats(match)
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
