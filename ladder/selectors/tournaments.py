"""Reading tournaments: one tournament, the list, progress, standings and crosstable.

The standings are read here once, for the API and the site alike, from the rows the recorder keeps as
results come in (``ladder.services.ratings.tournament_records``: each bot's line, each pair's head-to-head
record, the count of finished matches), so that a tournament's page costs the same after a million matches as
after ten. The rows hold what ``ladder.ratings.tables`` (``standings``, ``crosstable``) computes from the
finished matches, and the pairs' sums are the sufficient statistics of its Bradley-Terry fit. Every bot
entered in the tournament is listed, those still waiting for their first match last with 0 games and a
prior-wide rating interval.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime, timedelta

from django.db.models import Count, Exists, OuterRef, Q, QuerySet, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from ladder.core.errors import ServiceError
from ladder.models import Bot, Match, Tournament, TournamentHeadToHead, TournamentStanding, TournamentTally
from ladder.ratings.bradley_terry import PairwiseResult, fit_bradley_terry
from ladder.ratings.tables import HeadToHead, Standing, match_points
from ladder.selectors.matches import finished_seat_results, recent_matches

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


def _progress_counts() -> dict:
    """Annotations of a Tournament queryset: its matches ``queued``, ``running``, ``failed`` and
    ``finished``, and ``first_start`` (its first match's start). None counts the history: finished
    matches come from the tally kept as they are recorded (``TournamentTally``), the others from the
    (tournament, status) index, which holds only the live queue and the rare failures; the first start
    is the head of the (tournament, started_at) index."""

    def count(status: str):
        matches = (Match.objects.filter(tournament=OuterRef("pk"), status=status).order_by()
                   .values("tournament").annotate(n=Count("id")).values("n"))
        return Coalesce(Subquery(matches), 0)

    return {
        "queued": count(Match.Status.QUEUED),
        "running": count(Match.Status.RUNNING),
        "failed": count(Match.Status.FAILED),
        "finished": Coalesce(Subquery(TournamentTally.objects.filter(tournament=OuterRef("pk")).values("finished")), 0),
        "first_start": Subquery(Match.objects.filter(tournament=OuterRef("pk"), started_at__isnull=False)
                                .order_by("started_at").values("started_at")[:1]),
    }


def _with_match_counts(tournaments):
    rows = list(tournaments.select_related("game").annotate(**_progress_counts()))
    for row in rows:
        row.done = row.finished + row.failed
        row.total = row.done + row.queued + row.running
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
    """Counts of matches by status, and an estimated finish from the rate of matches done so far. One
    query, as fast for the ladder after millions of matches as for a new round robin."""
    counts = Tournament.objects.filter(pk=tournament.pk).values(**_progress_counts()).get()
    counts["total"] = counts["queued"] + counts["running"] + counts["finished"] + counts["failed"]
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
    """A tournament's stored standings (``TournamentStanding``) in table order, as ``Standing``
    lines, its head-to-head records by pair of bots (lower id first, that bot's counts), the names of
    every bot that played or entered, and the entered bots by id."""

    table: list[Standing]
    pairs: dict[tuple[int, int], TournamentHeadToHead]
    names: dict[int, str]
    entrants: list[int]


def _results(tournament: Tournament) -> _Results:
    """Three queries, each as long as the tournament has bots (or pairs of bots), not matches: the stored
    standings, the head-to-head records, and the bots seated or entered."""
    lines = list(TournamentStanding.objects.filter(tournament=tournament))
    # standings' order: points, then pairwise wins, then fewest losses; full ties in the order
    # the bots were first seen in the finished matches (by id, then seat).
    lines.sort(key=lambda line: (-line.points, -line.wins, line.losses, line.first_match_id, line.first_position))
    table = []
    for position, line in enumerate(lines, start=1):
        tied_above = position > 1 and _order_key(lines[position - 2]) == _order_key(line)
        table.append(Standing(
            bot_id=line.bot_id, rank=table[-1].rank if tied_above else position, games=line.games,
            points=line.points, wins=line.wins, draws=line.draws, losses=line.losses, forfeits=line.forfeits,
            average_score=line.score / line.games,
        ))
    pairs = {(pair.bot_low_id, pair.bot_high_id): pair
             for pair in TournamentHeadToHead.objects.filter(tournament=tournament)}
    seated = [line.bot_id for line in table]
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
    return _Results(table=table, pairs=pairs, names=names, entrants=sorted(entrants))


def _order_key(line: TournamentStanding) -> tuple[float, int, int]:
    return (-line.points, -line.wins, line.losses)


def _crosstable(results: _Results) -> dict[int, dict[int, HeadToHead]]:
    """``crosstable`` from the stored pairs: ``table[a][b]`` is a's record against b."""
    table: dict[int, dict[int, HeadToHead]] = {}
    for (low, high), pair in results.pairs.items():
        table.setdefault(low, {})[high] = HeadToHead(pair.wins, pair.draws, pair.losses)
        table.setdefault(high, {})[low] = HeadToHead(pair.losses, pair.draws, pair.wins)
    return table


def _standings(results: _Results) -> list[dict]:
    table = results.table
    played = {line.bot_id for line in table}
    waiting = [bot_id for bot_id in results.entrants if bot_id not in played]
    # The pairs' sums are the fit's sufficient statistics: the same fit as from every pairwise result.
    fitted = fit_bradley_terry(
        [PairwiseResult(low, high, min(1.0, pair.score / pair.weight), pair.weight)
         for (low, high), pair in results.pairs.items() if pair.weight > 0],
        bots=[line.bot_id for line in table] + waiting,
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
    """The standings, best first: each line of ``standings`` (``rank``, ``bot_id``, ``games``,
    ``points``, ``wins``, ``draws``, ``losses``, ``forfeits``, ``average_score``) with the bot's name as
    ``bot`` and its Bradley-Terry ``rating`` for this tournament, ``rating_stderr`` and the 95% interval
    ``rating_low``..``rating_high``. Every entered bot that has not finished a match yet is listed last,
    sharing the rank after the others, with zeros and a prior-wide interval. Read from the stored
    standings and head-to-head records (``ladder.services.ratings.tournament_records``): three queries, whose
    cost follows the bots, not the matches."""
    return _standings(_results(tournament))


def _deals(tournament: Tournament, names: dict[int, str]) -> list[dict]:
    if not tournament.duplicate:
        return []
    # A duplicate tournament is a round robin, whose size its creation bounds: read from its matches.
    by_match = {match_id: seats for match_id, seats in finished_seat_results(Q(match__tournament=tournament)).items()
                if len(seats) >= 2}
    deal_of = dict(Match.objects.filter(id__in=list(by_match)).exclude(deal=None).values_list("id", "deal"))
    points: dict[int, dict] = {}
    games: dict[int, int] = {}
    for match_id, seats in by_match.items():
        deal = deal_of.get(match_id)
        if deal is None:
            continue
        totals = points.setdefault(deal, {})
        for seat, earned in zip(seats, match_points(seats), strict=True):
            totals[seat.bot_id] = totals.get(seat.bot_id, 0.0) + earned
        games[deal] = games.get(deal, 0) + 1
    return [
        {"deal": deal, "games": games[deal], "rotations": tournament.players_per_match,
         "complete": games[deal] == tournament.players_per_match,
         "bots": [{"bot_id": bot_id, "bot": names.get(bot_id, ""), "points": points[deal][bot_id]}
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
    names = dict(Bot.objects.filter(seats__match__tournament=tournament).distinct().values_list("id", "name"))
    return _deals(tournament, names)


def tournament_crosstable(*, tournament: Tournament) -> dict:
    """Head-to-head pairwise results between every pair of the tournament's bots that met.

    ``{"bots": [{"id", "name"}] in standings order, "rows": [{"bot_id", "bot", "results": [{"opponent_id",
    "wins", "draws", "losses", "games", "score"}]}]}``; only bots that played are listed, and a row lists
    only opponents it met, in the same order as ``bots``. Read from the stored records.
    """
    results = _results(tournament)
    order = [line.bot_id for line in results.table]
    table = _crosstable(results)
    rows = []
    for bot_id in order:
        met = table.get(bot_id, {})
        rows.append({"bot_id": bot_id, "bot": results.names.get(bot_id, ""), "results": [
            {"opponent_id": other, "wins": met[other].wins, "draws": met[other].draws,
             "losses": met[other].losses, "games": met[other].games, "score": met[other].score}
            for other in order if other in met
        ]})
    return {"bots": [{"id": bot_id, "name": results.names.get(bot_id, "")} for bot_id in order], "rows": rows}


def tournament_page_data(*, tournament_id: int) -> dict:
    """Everything on a tournament's page: progress, the standings (:func:`tournament_standings`), the
    crosstable of the best ``CROSSTABLE_BOTS`` that played, a duplicate round robin's results per deal
    (:func:`tournament_deals`), recent matches. ServiceError 404 if there is
    no such tournament."""
    tournament = tournament_get(tournament_id=tournament_id)
    results = _results(tournament)
    standings = _standings(results)
    played = [line["bot_id"] for line in standings if line["games"]]
    shown = played[:CROSSTABLE_BOTS]
    cross = _crosstable(results)
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
        "deals": _deals(tournament, results.names),
        "recent": recent_matches(tournament=tournament),
    }
