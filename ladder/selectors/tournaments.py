"""Reading tournaments: one tournament, the list, progress, standings and crosstable.

The standings are computed here once, for the API and the site alike: the seats of the finished matches
(``matches.finished_seat_results``) go through the pure functions of ``ladder.services.ratings``
(``standings``, ``crosstable``, the Bradley-Terry fit), and every bot entered in the tournament is listed,
those still waiting for their first match last with 0 games and a prior-wide rating interval.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

from django.db.models import Count, Exists, Min, OuterRef, Q, QuerySet
from django.utils import timezone

from ladder.models import Bot, Match, Tournament
from ladder.selectors.matches import finished_seat_results, recent_matches
from ladder.services import ratings
from ladder.services.errors import ServiceError
from ladder.services.ratings import PlacedSeat

# Bots shown in a tournament page's crosstable (the best by standing); a wider table is unreadable.
CROSSTABLE_BOTS = 16


def tournament_get(*, tournament_id: int) -> Tournament:
    """A tournament with its game and creator, or ServiceError 404."""
    tournament = Tournament.objects.select_related("game", "created_by").filter(pk=tournament_id).first()
    if tournament is None:
        raise ServiceError(f"no tournament with id {tournament_id}", status=404)
    return tournament


def tournaments_with_entrants() -> QuerySet[Tournament]:
    """Every tournament with its game, creator and entered bots prefetched (two queries per page)."""
    return Tournament.objects.select_related("game", "created_by").prefetch_related("bots")


def _with_match_counts(tournaments):
    rows = list(tournaments.select_related("game").annotate(
        total=Count("matches"),
        done=Count("matches", filter=Q(matches__status__in=[Match.Status.FINISHED, Match.Status.FAILED])),
    ))
    for row in rows:
        row.percent = percent_done(row.done, row.total)
    return rows


def percent_done(done: int, total: int) -> int:
    return int(100 * done / total) if total else 0


def tournaments_listed(*, limit: int = 50) -> list[Tournament]:
    """The newest tournaments with ``total``, ``done`` (finished or failed) and ``percent`` of matches."""
    return _with_match_counts(Tournament.objects.order_by("-id")[:limit])


def tournaments_running(*, limit: int = 10) -> list[Tournament]:
    """The newest running tournaments, with their match counts as :func:`tournaments_listed`."""
    return _with_match_counts(Tournament.objects.filter(status=Tournament.Status.RUNNING).order_by("-id")[:limit])


# --- Progress ---------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class Progress:
    total: int
    queued: int
    running: int
    finished: int
    failed: int
    started_at: datetime | None
    estimated_finish: datetime | None

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def tournament_progress(*, tournament: Tournament, now: datetime | None = None) -> Progress:
    """Counts of matches by status, and an estimated finish from the rate of matches done so far."""
    counts = tournament.matches.aggregate(
        total=Count("id"),
        queued=Count("id", filter=Q(status=Match.Status.QUEUED)),
        running=Count("id", filter=Q(status=Match.Status.RUNNING)),
        finished=Count("id", filter=Q(status=Match.Status.FINISHED)),
        failed=Count("id", filter=Q(status=Match.Status.FAILED)),
        first_start=Min("started_at"),
    )
    now = now or timezone.now()
    started = counts.pop("first_start") or None
    done = counts["finished"] + counts["failed"]
    remaining = counts["total"] - done
    estimate = None
    if remaining == 0 and done:
        estimate = tournament.finished_at or now
    elif done and started is not None:
        per_match = (now - started).total_seconds() / done
        estimate = now + timedelta(seconds=per_match * remaining)
    return Progress(started_at=started, estimated_finish=estimate, **counts)


def tournament_progress_summary(*, tournament: Tournament) -> dict:
    """The progress as the site's poller reads it: status, counts, ``percent`` done (one query)."""
    progress = tournament_progress(tournament=tournament)
    return {
        "status": tournament.status,
        "total": progress.total,
        "finished": progress.finished,
        "failed": progress.failed,
        "running": progress.running,
        "queued": progress.queued,
        "percent": percent_done(progress.finished + progress.failed, progress.total),
        "estimated_finish": progress.estimated_finish.isoformat() if progress.estimated_finish else None,
    }


# --- Standings and crosstable -----------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class _Results:
    """A tournament's finished matches as ratings match data, the names of every bot seated or entered,
    and the entered bots by id."""

    matches: list[list[PlacedSeat]]
    names: dict[int, str]
    entrants: list[int]
    match_ids: list[int]


def _results(tournament: Tournament) -> _Results:
    """Two queries: the seats of finished matches, and the bots seated or entered."""
    by_match = {match_id: seats for match_id, seats in finished_seat_results(Q(match__tournament=tournament)).items()
                if len(seats) >= 2}
    matches = list(by_match.values())
    seated = {seat.bot_id for match in matches for seat in match}
    entered = Tournament.bots.through.objects.filter(tournament=tournament, bot=OuterRef("pk"))
    bots = (
        Bot.objects.filter(Q(pk__in=seated) | Q(tournaments=tournament))
        .annotate(entered=Exists(entered))
        .distinct()
        .values_list("id", "name", "entered")
    )
    names, entrants = {}, []
    for bot_id, name, is_entrant in bots:
        names[bot_id] = name
        if is_entrant:
            entrants.append(bot_id)
    return _Results(matches=matches, names=names, entrants=sorted(entrants), match_ids=list(by_match))


def _standings(results: _Results) -> list[dict]:
    table = ratings.standings(results.matches)
    played = {line.bot_id for line in table}
    waiting = [bot_id for bot_id in results.entrants if bot_id not in played]
    fitted = ratings.fit_bradley_terry(
        ratings.match_pairwise_results(results.matches), bots=[line.bot_id for line in table] + waiting
    )
    lines = [dataclasses.asdict(line) for line in table]
    last_rank = len(lines) + 1
    lines += [
        {"bot_id": bot_id, "rank": last_rank, "games": 0, "points": 0.0, "wins": 0, "draws": 0, "losses": 0,
         "forfeits": 0, "average_score": 0.0}
        for bot_id in waiting
    ]
    for line in lines:
        fit = fitted[line["bot_id"]]
        line.update(bot=results.names.get(line["bot_id"], ""), rating=fit.rating, rating_stderr=fit.stderr,
                    rating_low=fit.low, rating_high=fit.high)
    return lines


def tournament_standings(*, tournament: Tournament) -> list[dict]:
    """The standings, best first: each line of ``ratings.standings`` (``rank``, ``bot_id``, ``games``,
    ``points``, ``wins``, ``draws``, ``losses``, ``forfeits``, ``average_score``) with the bot's name as
    ``bot`` and its Bradley-Terry ``rating`` for this tournament, ``rating_stderr`` and the 95% interval
    ``rating_low``..``rating_high``. Every entered bot that has not finished a match yet is listed last,
    sharing the rank after the others, with zeros and a prior-wide interval. Two queries."""
    return _standings(_results(tournament))


def _deals(tournament: Tournament, results: _Results) -> list[dict]:
    if not tournament.duplicate:
        return []
    deal_of = dict(Match.objects.filter(id__in=results.match_ids).exclude(deal=None).values_list("id", "deal"))
    points: dict[int, dict] = {}
    games: dict[int, int] = {}
    for match_id, seats in zip(results.match_ids, results.matches, strict=True):
        deal = deal_of.get(match_id)
        if deal is None:
            continue
        totals = points.setdefault(deal, {})
        for seat, earned in zip(seats, ratings.match_points(seats), strict=True):
            totals[seat.bot_id] = totals.get(seat.bot_id, 0.0) + earned
        games[deal] = games.get(deal, 0) + 1
    return [
        {"deal": deal, "games": games[deal], "rotations": tournament.players_per_match,
         "complete": games[deal] == tournament.players_per_match,
         "bots": [{"bot_id": bot_id, "bot": results.names.get(bot_id, ""), "points": points[deal][bot_id]}
                  for bot_id in sorted(points[deal])]}
        for deal in sorted(points)
    ]


def tournament_deals(*, tournament: Tournament) -> list[dict]:
    """A duplicate round robin's result per pairing and deal, by deal number: ``{"deal", "games" (its
    finished rotations), "rotations" (how many it has: the players per match), "complete", "bots":
    [{"bot_id", "bot", "points"}]}``, the points being each bot's (as in the standings) summed over the
    deal's finished rotations, its bots by id. Only deals with a finished rotation; [] for a tournament
    that is not duplicate. Three queries (none for a tournament that is not duplicate)."""
    if not tournament.duplicate:
        return []
    return _deals(tournament, _results(tournament))


def tournament_crosstable(*, tournament: Tournament) -> dict:
    """Head-to-head pairwise results between every pair of the tournament's bots that met.

    ``{"bots": [{"id", "name"}] in standings order, "rows": [{"bot_id", "bot", "results": [{"opponent_id",
    "wins", "draws", "losses", "games", "score"}]}]}``; only bots that played are listed, and a row lists
    only opponents it met, in the same order as ``bots``.
    """
    results = _results(tournament)
    order = [line.bot_id for line in ratings.standings(results.matches)]
    table = ratings.crosstable(results.matches)
    rows = []
    for bot_id in order:
        met = table.get(bot_id, {})
        rows.append({"bot_id": bot_id, "bot": results.names.get(bot_id, ""), "results": [
            {"opponent_id": other, "wins": met[other].wins, "draws": met[other].draws,
             "losses": met[other].losses, "games": met[other].games, "score": met[other].score}
            for other in order if other in met
        ]})
    return {"bots": [{"id": bot_id, "name": results.names.get(bot_id, "")} for bot_id in order], "rows": rows}


def tournament_page(*, tournament_id: int) -> dict:
    """Everything on a tournament's page: progress, the standings (:func:`tournament_standings`), the
    crosstable of the best ``CROSSTABLE_BOTS`` that played, a duplicate round robin's results per deal
    (:func:`tournament_deals`), recent matches. ServiceError 404 if there is
    no such tournament."""
    tournament = tournament_get(tournament_id=tournament_id)
    results = _results(tournament)
    standings = _standings(results)
    played = [line["bot_id"] for line in standings if line["games"]]
    shown = played[:CROSSTABLE_BOTS]
    cross = ratings.crosstable(results.matches)
    bots = {bot_id: {"id": bot_id, "name": results.names.get(bot_id, "")} for bot_id in shown}
    crosstable = [
        {"bot": bots[a], "cells": [None if a == b else cross.get(a, {}).get(b) for b in shown]} for a in shown
    ]
    return {
        "tournament": tournament,
        "progress": tournament_progress_summary(tournament=tournament),
        "standings": standings,
        "crosstable": crosstable,
        "crosstable_bots": [bots[b] for b in shown],
        "crosstable_cut": len(played) > CROSSTABLE_BOTS,
        "deals": _deals(tournament, results),
        "recent": recent_matches(tournament=tournament),
    }
