"""Read-side queries shared by the API and the website."""

from __future__ import annotations

from django.db.models import QuerySet

from ladder.models import Bot, Game, Match, Rating


def leaderboard(*, game: Game) -> list[dict]:
    """Active bots of ``game`` ranked by Elo (ties share a rank), with their record."""
    rows = (
        Rating.objects.filter(game=game, bot__active=True)
        .select_related("bot", "bot__owner")
        .order_by("-elo", "bot_id")
    )
    board = []
    for position, row in enumerate(rows, start=1):
        rank = board[-1]["rank"] if board and board[-1]["elo"] == row.elo else position
        board.append(
            {
                "rank": rank,
                "bot": row.bot.name,
                "bot_id": row.bot_id,
                "owner": row.bot.owner.username,
                "elo": row.elo,
                "games": row.games,
                "wins": row.wins,
                "draws": row.draws,
                "losses": row.losses,
            }
        )
    return board


def bot_list(*, game: str | None = None, owner: str | None = None) -> QuerySet[Bot]:
    bots = Bot.objects.select_related("game", "owner").order_by("id")
    if game:
        bots = bots.filter(game__slug=game)
    if owner:
        bots = bots.filter(owner__username=owner)
    return bots


def match_list(*, tournament: int | None = None, bot: int | None = None, game: str | None = None,
               status: str | None = None) -> QuerySet[Match]:
    matches = Match.objects.select_related("game").prefetch_related("seats__bot").order_by("-id")
    if tournament:
        matches = matches.filter(tournament_id=tournament)
    if bot:
        matches = matches.filter(seats__bot_id=bot)
    if game:
        matches = matches.filter(game__slug=game)
    if status:
        matches = matches.filter(status=status)
    return matches
