"""Reading games: the ones bots can play, with their bot and match counts for the home page."""

from __future__ import annotations

from django.db.models import Count, QuerySet

from ladder.models import Bot, Game, Match
from ladder.services import access


def games_available() -> QuerySet[Game]:
    """The games bots can play, in the order they were installed."""
    return Game.objects.filter(available=True).order_by("id")


def games_with_counts() -> list[Game]:
    """:func:`games_available`, each with ``bot_count`` (active bots) and ``finished_count`` (finished
    public matches: a version comparison's are its owner's alone). Three queries."""
    games = list(games_available())
    bots = dict(Bot.objects.filter(active=True).values("game_id").annotate(n=Count("id")).values_list("game_id", "n"))
    finished = dict(
        Match.objects.filter(access.PUBLIC_MATCHES, status=Match.Status.FINISHED)
        .values("game_id").annotate(n=Count("id")).values_list("game_id", "n")
    )
    for game in games:
        game.bot_count = bots.get(game.id, 0)
        game.finished_count = finished.get(game.id, 0)
    return games
