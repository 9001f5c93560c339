"""Read-side queries for the website's pages.

Each function answers one page (or one part of it) in a fixed number of queries, whatever the size of
the match history: lists are cut to a page's worth in SQL, counts are aggregated in SQL, and related
rows come through ``select_related`` / ``prefetch_related``. ``tests/web/test_query_counts.py`` pins the
numbers with 10,000 matches in the database.

Nothing here writes. Bot logs are returned only by the functions that take the viewer and check that the
viewer owns the bot (or is staff).
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser
from django.db.models import Count, F, Prefetch, Q, QuerySet, Window
from django.db.models.functions import RowNumber

from ladder.models import Bot, BotVersion, Game, Match, Rating, RatingChange, Seat, Tournament
from ladder.services import ratings
from ladder.services.tournaments import tournament_progress

# Rating changes per bot that the leaderboard's trend column covers.
TREND_GAMES = 20
# Recent matches listed on the home, bot and tournament pages.
RECENT_MATCHES = 15
# Matches of a bot that its head-to-head table is computed over (the newest ones).
HEAD_TO_HEAD_MATCHES = 1000
# Opponents listed in a bot's head-to-head table, the most frequent first.
HEAD_TO_HEAD_OPPONENTS = 10
# Bots shown in a tournament's crosstable (the best by standing); a wider table is unreadable.
CROSSTABLE_BOTS = 16


def can_see_logs(*, viewer: AbstractBaseUser | AnonymousUser, bot: Bot) -> bool:
    """Bot logs are private to the bot's owner and staff (DESIGN.md section 4)."""
    return bool(viewer.is_authenticated and (viewer.is_staff or viewer.pk == bot.owner_id))


def _finished_matches_with_seats() -> QuerySet[Match]:
    seats = Seat.objects.select_related("bot").defer("log").order_by("position")
    return (
        Match.objects.filter(status=Match.Status.FINISHED)
        .select_related("game")
        .prefetch_related(Prefetch("seats", queryset=seats))
    )


def recent_matches(*, game: Game | None = None, tournament: Tournament | None = None,
                   limit: int = RECENT_MATCHES) -> list[Match]:
    """The newest finished matches (by id, which follows scheduling), with their seats and bots."""
    matches = _finished_matches_with_seats()
    if game is not None:
        matches = matches.filter(game=game)
    if tournament is not None:
        matches = matches.filter(tournament=tournament)
    return list(matches.order_by("-id")[:limit])


# --- Home -------------------------------------------------------------------------------------------


def home() -> dict:
    """The games with their bot and match counts, running tournaments with progress, recent matches."""
    games = list(Game.objects.filter(available=True).order_by("id"))
    bots = dict(Bot.objects.filter(active=True).values("game_id").annotate(n=Count("id")).values_list("game_id", "n"))
    finished = dict(
        Match.objects.filter(status=Match.Status.FINISHED)
        .values("game_id").annotate(n=Count("id")).values_list("game_id", "n")
    )
    for game in games:
        game.bot_count = bots.get(game.id, 0)
        game.finished_count = finished.get(game.id, 0)
    running = list(
        Tournament.objects.filter(status=Tournament.Status.RUNNING)
        .select_related("game")
        .annotate(
            total=Count("matches"),
            done=Count("matches", filter=Q(matches__status__in=[Match.Status.FINISHED, Match.Status.FAILED])),
        )
        .order_by("-id")[:10]
    )
    for tournament in running:
        tournament.percent = _percent(tournament.done, tournament.total)
    return {"games": games, "running": running, "recent": recent_matches()}


def _percent(done: int, total: int) -> int:
    return int(100 * done / total) if total else 0


# --- Leaderboard ------------------------------------------------------------------------------------


@dataclasses.dataclass(frozen=True)
class LeaderboardFilters:
    """What the leaderboard's filter form asks for; empty values filter nothing."""

    search: str = ""
    owner: str = ""
    min_games: int = 0
    include_inactive: bool = False


def leaderboard(*, game: Game, filters: LeaderboardFilters) -> list[dict]:
    """The game's bots by Elo, ranked over the whole field (filters hide rows, they do not re-rank),
    with the record and the trend over each bot's last ``TREND_GAMES`` rated games."""
    rows = Rating.objects.filter(game=game).select_related("bot", "bot__owner").order_by("-elo", "bot_id")
    if not filters.include_inactive:
        rows = rows.filter(bot__active=True)
    board = []
    for position, row in enumerate(rows, start=1):
        rank = board[-1]["rank"] if board and board[-1]["elo"] == row.elo else position
        board.append({"rank": rank, "bot": row.bot, "owner": row.bot.owner.username, "elo": row.elo,
                      "games": row.games, "wins": row.wins, "draws": row.draws, "losses": row.losses})
    search, owner = filters.search.strip().lower(), filters.owner.strip().lower()
    board = [
        line for line in board
        if (not search or search in line["bot"].name.lower())
        and (not owner or owner == line["owner"].lower())
        and line["games"] >= filters.min_games
    ]
    trends = rating_trends(game=game, bot_ids=[line["bot"].id for line in board])
    for line in board:
        line["trend"] = trends.get(line["bot"].id, [])
        line["trend_delta"] = line["trend"][-1] - line["trend"][0] if len(line["trend"]) > 1 else 0.0
    return board


def rating_trends(*, game: Game, bot_ids: Iterable[int]) -> dict[int, list[float]]:
    """Each bot's ratings over its last ``TREND_GAMES`` rated games, oldest first (one query)."""
    recent = (
        RatingChange.objects.filter(game=game, bot_id__in=list(bot_ids))
        .annotate(newest_first=Window(RowNumber(), partition_by=[F("bot_id")], order_by=F("id").desc()))
        .filter(newest_first__lte=TREND_GAMES)
        .order_by("bot_id", "id")
        .values_list("bot_id", "before", "after")
    )
    trends: dict[int, list[float]] = {}
    for bot_id, before, after in recent:
        trends.setdefault(bot_id, [before]).append(after)
    return trends


# --- Bot --------------------------------------------------------------------------------------------


def bot_page(*, bot_id: int, viewer) -> dict | None:
    """Everything on a bot's page, or None if there is no such bot. Logs only for the owner or staff."""
    bot = Bot.objects.select_related("owner", "game").filter(pk=bot_id).first()
    if bot is None:
        return None
    owner_view = can_see_logs(viewer=viewer, bot=bot)
    versions = list(BotVersion.objects.filter(bot=bot).defer("code").order_by("-number"))
    rating = Rating.objects.filter(bot=bot, game=bot.game_id).first()
    history = list(RatingChange.objects.filter(bot=bot).order_by("id").values_list("before", "after"))
    ratings_over_time = ([history[0][0]] + [after for _, after in history]) if history else []
    own_seats = Seat.objects.filter(bot=bot, match__status=Match.Status.FINISHED).order_by("-match_id")
    if not owner_view:
        own_seats = own_seats.defer("log")
    own_seats = list(own_seats.select_related("bot_version")[:RECENT_MATCHES])
    matches = {m.id: m for m in _finished_matches_with_seats().filter(id__in=[s.match_id for s in own_seats])}
    recent = [{"seat": seat, "match": matches[seat.match_id]} for seat in own_seats if seat.match_id in matches]
    return {
        "bot": bot,
        "owner_view": owner_view,
        "versions": versions,
        "rating": rating,
        "ratings_over_time": ratings_over_time,
        "recent": recent,
        "head_to_head": head_to_head(bot=bot),
    }


def _match_seat_rows(seat_filter: Q) -> dict[int, list[tuple]]:
    """Seats of finished matches as the ratings module reads them, grouped by match (one query)."""
    rows = (
        Seat.objects.filter(seat_filter, match__status=Match.Status.FINISHED)
        .order_by("match_id", "position")
        .values_list("match_id", "bot_id", "place", "score", "outcome")
    )
    by_match: dict[int, list[tuple]] = defaultdict(list)
    for match_id, bot_id, place, score, outcome in rows:
        # A finished match always has places; a seat without one is read as last rather than dropped.
        by_match[match_id].append((bot_id, place or 99, score or 0, outcome not in ("", Seat.Outcome.OK)))
    return {match_id: seats for match_id, seats in by_match.items() if len(seats) >= 2}


def head_to_head(*, bot: Bot) -> list[dict]:
    """Pairwise results against the most frequent opponents over the bot's newest matches."""
    newest = (
        Seat.objects.filter(bot=bot, match__status=Match.Status.FINISHED)
        .order_by("-match_id").values("match_id")[:HEAD_TO_HEAD_MATCHES]
    )
    matches = _match_seat_rows(Q(match_id__in=list(newest.values_list("match_id", flat=True))))
    row = ratings.crosstable(matches.values()).get(bot.id, {})
    frequent = sorted(row.items(), key=lambda item: (-item[1].games, item[0]))[:HEAD_TO_HEAD_OPPONENTS]
    names = {b.id: b for b in Bot.objects.filter(id__in=[opponent for opponent, _ in frequent])}
    return [{"opponent": names[opponent], "record": record} for opponent, record in frequent if opponent in names]


# --- Tournament -------------------------------------------------------------------------------------


def tournament_page(*, tournament_id: int) -> dict | None:
    """Progress, standings with order-independent ratings and intervals, crosstable, recent matches."""
    tournament = Tournament.objects.select_related("game").filter(pk=tournament_id).first()
    if tournament is None:
        return None
    matches = list(_match_seat_rows(Q(match__tournament=tournament)).values())
    table = ratings.standings(matches) if matches else []
    fitted = ratings.fit_tournament(matches) if matches else {}
    cross = ratings.crosstable(matches)
    bots = {b.id: b for b in Bot.objects.filter(id__in=[row.bot_id for row in table])}
    standings = [
        {"line": row, "bot": bots.get(row.bot_id), "fit": fitted.get(row.bot_id)} for row in table
    ]
    shown = [row.bot_id for row in table[:CROSSTABLE_BOTS]]
    crosstable = [
        {"bot": bots.get(a), "cells": [None if a == b else cross.get(a, {}).get(b) for b in shown]}
        for a in shown
    ]
    return {
        "tournament": tournament,
        "progress": progress_json(tournament=tournament),
        "standings": standings,
        "crosstable": crosstable,
        "crosstable_bots": [bots.get(b) for b in shown],
        "crosstable_cut": len(table) > CROSSTABLE_BOTS,
        "recent": recent_matches(tournament=tournament),
    }


def progress_json(*, tournament: Tournament) -> dict:
    """The tournament's progress as the page's poller reads it (one query)."""
    progress = tournament_progress(tournament=tournament)
    done = progress.finished + progress.failed
    return {
        "status": tournament.status,
        "total": progress.total,
        "finished": progress.finished,
        "failed": progress.failed,
        "running": progress.running,
        "queued": progress.queued,
        "percent": _percent(done, progress.total),
        "estimated_finish": progress.estimated_finish.isoformat() if progress.estimated_finish else None,
    }


def tournaments_list(*, limit: int = 50) -> list[Tournament]:
    """The newest tournaments with their match counts."""
    rows = list(
        Tournament.objects.select_related("game")
        .annotate(
            total=Count("matches"),
            done=Count("matches", filter=Q(matches__status__in=[Match.Status.FINISHED, Match.Status.FAILED])),
        )
        .order_by("-id")[:limit]
    )
    for row in rows:
        row.percent = _percent(row.done, row.total)
    return rows


# --- Match ------------------------------------------------------------------------------------------


def match_with_seats(*, match_id: int) -> Match | None:
    """A match with its game, tournament and seats (bot, owner, version); logs are deferred."""
    seats = Seat.objects.select_related("bot", "bot__owner", "bot_version").defer("log", "bot_version__code")
    return (
        Match.objects.select_related("game", "tournament")
        .prefetch_related(Prefetch("seats", queryset=seats.order_by("position")))
        .filter(pk=match_id)
        .first()
    )


def match_logs(*, match: Match, viewer) -> dict[int, str]:
    """Logs of the seats whose bot the viewer owns (all seats for staff), by seat position."""
    if not viewer.is_authenticated:
        return {}
    seats = Seat.objects.filter(match=match)
    if not viewer.is_staff:
        seats = seats.filter(bot__owner=viewer)
    return dict(seats.values_list("position", "log"))


# --- My bots ----------------------------------------------------------------------------------------


def my_bots(*, owner) -> list[dict]:
    """The owner's bots with their game, rating and newest version."""
    bots = list(Bot.objects.filter(owner=owner).select_related("game").order_by("game_id", "name"))
    ratings_by_bot = {r.bot_id: r for r in Rating.objects.filter(bot__owner=owner)}
    newest: dict[int, BotVersion] = {}
    for version in BotVersion.objects.filter(bot__owner=owner).defer("code").order_by("bot_id", "number"):
        newest[version.bot_id] = version
    return [{"bot": b, "rating": ratings_by_bot.get(b.id), "version": newest.get(b.id)} for b in bots]
