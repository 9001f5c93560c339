"""A tournament's table and crosstable from its finished matches, with the order-independent ratings.

Reads the seats of finished matches in one query and hands them to the pure functions of
``ladder.services.ratings`` (``standings``, ``crosstable``, ``fit_tournament``), so the numbers the API and
the site show are exactly the ones those functions define and test.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from ladder.models import Bot, Match, Seat, Tournament
from ladder.services import ratings


def seat_results_by_match(seats: Iterable[tuple]) -> list[list[ratings.SeatResult]]:
    """``(match_id, bot_id, place, score, outcome)`` rows, sorted by match, as ``ratings`` match data."""
    by_match: dict[int, list[ratings.SeatResult]] = {}
    for match_id, bot_id, place, score, outcome in seats:
        forfeited = outcome not in ("", Seat.Outcome.OK)
        # A finished seat always has a place; the fallback only keeps a corrupt row from failing a page.
        by_match.setdefault(match_id, []).append(ratings.SeatResult(bot_id, place or 1, score or 0, forfeited))
    return list(by_match.values())


def tournament_match_seats(*, tournament: Tournament) -> list[list[ratings.SeatResult]]:
    """The seats of the tournament's finished matches, grouped by match in match order (one query)."""
    rows = (
        Seat.objects.filter(match__tournament=tournament, match__status=Match.Status.FINISHED)
        .order_by("match_id", "position")
        .values_list("match_id", "bot_id", "place", "score", "outcome")
    )
    return seat_results_by_match(rows)


def _bot_names(bot_ids: Iterable[int]) -> dict[int, str]:
    return dict(Bot.objects.filter(id__in=set(bot_ids)).values_list("id", "name"))


def tournament_table(*, tournament: Tournament) -> list[dict]:
    """The standings, best first: each line of ``ratings.standings`` with the bot's name and its
    Bradley-Terry ``rating`` for this tournament, ``rating_stderr`` and the 95% interval
    ``rating_low``..``rating_high`` (``ratings.fit_tournament``). Bots of the tournament that have not
    finished a match yet are listed last with zeros and a prior-wide interval. Three queries."""
    matches = tournament_match_seats(tournament=tournament)
    table = ratings.standings(matches)
    entrants = list(tournament.bots.values_list("id", flat=True))
    played = {line.bot_id for line in table}
    waiting = [bot_id for bot_id in sorted(entrants) if bot_id not in played]
    fitted = ratings.fit_bradley_terry(
        ratings.match_pairwise_results(matches), bots=[line.bot_id for line in table] + waiting
    )
    names = _bot_names(list(played) + waiting)
    lines = [dataclasses.asdict(line) for line in table]
    last_rank = len(lines) + 1
    lines += [
        {"bot_id": bot_id, "rank": last_rank, "games": 0, "points": 0.0, "wins": 0, "draws": 0, "losses": 0,
         "forfeits": 0, "average_score": 0.0}
        for bot_id in waiting
    ]
    for line in lines:
        fit = fitted[line["bot_id"]]
        line.update(bot=names.get(line["bot_id"], ""), rating=fit.rating, rating_stderr=fit.stderr,
                    rating_low=fit.low, rating_high=fit.high)
    return lines


def tournament_crosstable(*, tournament: Tournament) -> dict:
    """Head-to-head pairwise results between every pair of the tournament's bots that met.

    ``{"bots": [{"id", "name"}] in standings order, "rows": [{"bot_id", "bot", "results": [{"opponent_id",
    "wins", "draws", "losses", "games", "score"}]}]}``; a row lists only opponents it met, in the same
    order as ``bots``.
    """
    matches = tournament_match_seats(tournament=tournament)
    order = [line.bot_id for line in ratings.standings(matches)]
    table = ratings.crosstable(matches)
    names = _bot_names(order)
    rows = []
    for bot_id in order:
        met = table.get(bot_id, {})
        results = [
            {"opponent_id": other, "wins": met[other].wins, "draws": met[other].draws,
             "losses": met[other].losses, "games": met[other].games, "score": met[other].score}
            for other in order
            if other in met
        ]
        rows.append({"bot_id": bot_id, "bot": names.get(bot_id, ""), "results": results})
    return {"bots": [{"id": bot_id, "name": names.get(bot_id, "")} for bot_id in order], "rows": rows}
