"""Reading a game's leaderboard: bots ranked by Elo, and the site's filtered view with rating trends."""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable

from django.conf import settings
from django.db.models import F, Window
from django.db.models.functions import RowNumber

from ladder.models import Game, Rating, RatingChange
from ladder.services.errors import ServiceError

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
    ``games``, ``wins``, ``draws``, ``losses``, ``provisional``. One query."""
    rows = Rating.objects.filter(game=game).select_related("bot", "bot__owner").order_by("-elo", "bot_id")
    if not include_inactive:
        rows = rows.filter(bot__active=True)
    board: list[dict] = []
    for position, row in enumerate(rows, start=1):
        rank = board[-1]["rank"] if board and board[-1]["elo"] == row.elo else position
        board.append({"rank": rank, "bot": row.bot, "bot_id": row.bot_id, "owner": row.bot.owner.username,
                      "elo": row.elo, "games": row.games, "wins": row.wins, "draws": row.draws,
                      "losses": row.losses, "provisional": rating_is_provisional(row.games)})
    return board


@dataclasses.dataclass(frozen=True)
class LeaderboardFilters:
    """What the site's leaderboard filter form asks for; empty values filter nothing."""

    search: str = ""
    owner: str = ""
    min_games: int = 0
    include_inactive: bool = False


def leaderboard_with_trends(*, game: Game, filters: LeaderboardFilters) -> list[dict]:
    """:func:`leaderboard_ranked` ranked over the whole field (filters hide lines, they do not re-rank),
    each line with ``trend``, the bot's ratings over its last ``TREND_GAMES`` rated games, and
    ``trend_delta``. Two queries."""
    board = leaderboard_ranked(game=game, include_inactive=filters.include_inactive)
    search, owner = filters.search.strip().lower(), filters.owner.strip().lower()
    board = [
        line for line in board
        if (not search or search in line["bot"].name.lower())
        and (not owner or owner == line["owner"].lower())
        and line["games"] >= filters.min_games
    ]
    trends = rating_trends(game=game, bot_ids=[line["bot_id"] for line in board])
    for line in board:
        line["trend"] = trends.get(line["bot_id"], [])
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
