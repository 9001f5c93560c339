"""Reading games: the ones bots can play, with their bot and match counts for the home page."""

from __future__ import annotations

from django.db.models import Count, QuerySet, Sum

from ladder.models import Bot, Game, TournamentTally


def games_available() -> QuerySet[Game]:
    """The games bots can play, in the order they were installed."""
    return Game.objects.filter(available=True).order_by("id")


def games_with_counts() -> list[Game]:
    """:func:`games_available`, each with ``bot_count`` (active bots) and ``finished_count`` (finished
    public matches: a version comparison's are its owner's alone). Three queries; the finished matches
    are summed from the tournaments' tallies (``TournamentTally``: every public match is a tournament's),
    so the count costs as much after a million matches as after ten."""
    games = list(games_available())
    bots = dict(Bot.objects.filter(active=True).values("game_id").annotate(n=Count("id")).values_list("game_id", "n"))
    finished = dict(
        TournamentTally.objects.values("tournament__game_id").annotate(n=Sum("finished"))
        .values_list("tournament__game_id", "n")
    )
    for game in games:
        game.bot_count = bots.get(game.id, 0)
        game.finished_count = finished.get(game.id, 0)
    return games
