"""Reading a game's leaderboard: bots ranked by Elo with how sure the order is, the site's filtered view
with rating trends, and the ladder's pace."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable
from datetime import datetime, timedelta
from functools import lru_cache

from django.conf import settings
from django.db.models import F, Window
from django.db.models.functions import RowNumber
from django.utils import timezone

from ladder.core.errors import ServiceError
from ladder.models import Game, Match, PairRecord, Rating, RatingChange, Tournament
from ladder.ratings.confidence import SETTLED_P, RowCertainty, board_certainty

# Rating changes per bot that the site's trend column covers.
TREND_GAMES = 20


def leaderboard_game(*, slug: str) -> Game:
    """The game whose leaderboard is asked for (a retired game keeps its board), or ServiceError 404."""
    game = Game.objects.filter(slug=slug).first()
    if game is None:
        raise ServiceError(f"no game {slug!r}: GET /api/games/ lists them", status=404)
    return game


def rating_is_provisional(games: int) -> bool:
    """Whether a rating is still in its first games, where K is larger and the rating moves fast."""
    return games < settings.RATING_PROVISIONAL_GAMES


def leaderboard_ranked(*, game: Game, include_inactive: bool = False) -> list[dict]:
    """The game's bots by Elo, best first, active ones only unless ``include_inactive``; equal Elo shares a
    rank (1, 2, 2, 4). Each line: ``rank``, ``bot`` (the Bot), ``bot_id``, ``owner`` (username), ``elo``,
    ``games``, ``wins``, ``draws``, ``losses``, ``provisional``, and how sure the board is of it
    (``ladder.ratings.confidence``, fitted to the game's pair records): ``elo_interval``
    ``{low, high, estimate}`` (95%), ``rank_range`` ``{best, worst}`` (95%, among the lines of this board)
    and ``p_above`` (the chance that it is stronger than the next line; None on the last). Two queries:
    the game's rating rows (every bot's Elo anchors the intervals, shown or not), its pair records."""
    rows = list(Rating.objects.filter(game=game).select_related("bot", "bot__owner").order_by("-elo", "bot_id"))
    board: list[dict] = []
    for row in rows:
        if not include_inactive and not row.bot.active:
            continue
        rank = board[-1]["rank"] if board and board[-1]["elo"] == row.elo else len(board) + 1
        board.append({"rank": rank, "bot": row.bot, "bot_id": row.bot_id, "owner": row.bot.owner.username,
                      "elo": row.elo, "games": row.games, "wins": row.wins, "draws": row.draws,
                      "losses": row.losses, "provisional": rating_is_provisional(row.games)})
    pairs = PairRecord.objects.filter(game=game).order_by("bot_low_id", "bot_high_id").values_list(
        "bot_low_id", "bot_high_id", "weight", "score")
    certainty = _certainty(tuple(line["bot_id"] for line in board), tuple((row.bot_id, row.elo) for row in rows),
                           tuple(pairs))
    for position, (line, sure) in enumerate(zip(board, certainty, strict=True)):
        line["elo_interval"] = {"low": sure.low, "high": sure.high, "estimate": sure.estimate}
        line["rank_range"] = {"best": sure.best, "worst": sure.worst}
        line["p_above"] = sure.p_above
        line["next_bot_id"] = board[position + 1]["bot_id"] if position + 1 < len(board) else None
    return board


@lru_cache(maxsize=32)
def _certainty(board: tuple, elos: tuple, pairs: tuple) -> list[RowCertainty]:
    """``board_certainty``, remembered by its inputs: a leaderboard read again before the next rated result
    (which changes its pair records and Elo) costs no fit. Keyed by content, so nothing is ever stale;
    the fit grows with the square of the bots."""
    return board_certainty(board, dict(elos), pairs)


def order_settled(board: list[dict]) -> dict:
    """How much of a whole board's order (:func:`leaderboard_ranked`) is settled: ``pairs`` of adjacent
    lines, how many of them are ``settled`` (``p_above`` at least ``SETTLED_P``) and their ``share`` (None
    without a pair)."""
    pairs = [line["p_above"] for line in board if line["p_above"] is not None]
    settled = sum(p >= SETTLED_P for p in pairs)
    return {"pairs": len(pairs), "settled": settled, "share": settled / len(pairs) if pairs else None}


@dataclasses.dataclass(frozen=True)
class LeaderboardFilters:
    """What the site's leaderboard filter form asks for; empty values filter nothing."""

    search: str = ""
    owner: str = ""
    min_games: int = 0
    include_inactive: bool = False


def leaderboard_page(*, game: Game, filters: LeaderboardFilters) -> dict:
    """What the site's leaderboard shows: ``board``, :func:`leaderboard_ranked` ranked over the whole field
    (filters hide lines, they do not re-rank), each line with ``trend``, the bot's ratings over its last
    ``TREND_GAMES`` rated games, ``trend_delta``, and ``settled``: whether the line and the next line
    shown are adjacent on the whole board with their order settled; and ``order``, :func:`order_settled`
    of the whole board. Three queries."""
    whole = leaderboard_ranked(game=game, include_inactive=filters.include_inactive)
    search, owner = filters.search.strip().lower(), filters.owner.strip().lower()
    board = [
        line for line in whole
        if (not search or search in line["bot"].name.lower())
        and (not owner or owner == line["owner"].lower())
        and line["games"] >= filters.min_games
    ]
    trends = rating_trends(game=game, bot_ids=[line["bot_id"] for line in board])
    for position, line in enumerate(board):
        line["trend"] = trends.get(line["bot_id"], [])
        line["trend_delta"] = line["trend"][-1] - line["trend"][0] if len(line["trend"]) > 1 else 0.0
        shown_next = board[position + 1]["bot_id"] if position + 1 < len(board) else None
        line["settled"] = (shown_next is not None and shown_next == line["next_bot_id"]
                           and line["p_above"] >= SETTLED_P)
    return {"board": board, "order": order_settled(whole)}


#: The span over which the game's page gives the ladder's pace.
PACE_WINDOW = timedelta(minutes=10)


def ladder_pace(*, game: Game, now: datetime | None = None) -> dict:
    """The ladder's pace in ``game``: ``matches`` of its ladder finished (played to the end) over the last
    ``PACE_WINDOW``, ``minutes`` in that window and ``per_minute``. One query, on the index of a
    tournament's matches by finish time."""
    now = now or timezone.now()
    finished = Match.objects.filter(
        tournament__game=game, tournament__kind=Tournament.Kind.LADDER, status=Match.Status.FINISHED,
        finished_at__gt=now - PACE_WINDOW, finished_at__lte=now,
    ).count()
    minutes = PACE_WINDOW.total_seconds() / 60.0
    return {"matches": finished, "minutes": minutes, "per_minute": finished / minutes}


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
