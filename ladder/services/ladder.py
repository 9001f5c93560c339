"""The continuous ladder: a periodic tick pairs active bots of each game into new matches.

Ladder matches are played under their game's sandbox limits (``BOTS_LIMITS_BY_GAME`` over the global
settings): the ladder tournament sets no overrides of its own.
"""

from __future__ import annotations

import random

from django.conf import settings
from django.db import transaction
from django.db.models import Max

from ladder.models import Bot, BotVersion, Game, Match, Rating, Tournament
from ladder.services.scheduling import ladder_pairings
from ladder.services.tournaments import LADDER_PRIORITY, matches_create


def ladder_tournament_get(*, game: Game) -> Tournament:
    """The one ladder tournament of ``game`` (created on first use); ladder matches belong to it."""
    tournament, _ = Tournament.objects.get_or_create(
        game=game,
        kind=Tournament.Kind.LADDER,
        defaults={
            "name": f"{game.title} ladder",
            "players_per_match": game.min_players if game.min_players >= 2 else min(2, game.max_players),
            "options": game.default_options,
            # The server chose these games: they move leaderboard ratings, each with a secret seed.
            "rated": True,
        },
    )
    return tournament


def ladder_tick(*, matches_per_game: int | None = None, rng: random.Random | None = None) -> dict[str, int]:
    """Schedule ladder matches for every available game; returns matches scheduled per game slug.

    Tournaments come first: nothing is scheduled while more than ``LADDER_MAX_BACKLOG`` matches of any
    kind wait in the queue, and ladder matches carry a lower priority.
    """
    if not settings.LADDER_ENABLED:
        return {}
    backlog = Match.objects.filter(status=Match.Status.QUEUED).count()
    if backlog >= settings.LADDER_MAX_BACKLOG:
        return {}
    per_game = settings.LADDER_MATCHES_PER_TICK if matches_per_game is None else matches_per_game
    rng = rng or random.Random()
    scheduled: dict[str, int] = {}
    for game in Game.objects.filter(available=True):
        eligible = Bot.objects.filter(game=game, active=True, versions__validation_status=BotVersion.Validation.ACCEPTED)
        candidates = list(
            Rating.objects.filter(game=game, bot__in=eligible).distinct().values_list("bot_id", "elo", "games")
        )
        if len(candidates) < max(2, game.min_players):
            continue
        with transaction.atomic():
            # The game comes along for the per-game sandbox limits; only the tournament row is locked.
            tournament = Tournament.objects.select_for_update(of=("self",)).select_related("game").filter(
                id=ladder_tournament_get(game=game).id
            ).get()
            players = tournament.players_per_match
            groups = ladder_pairings(candidates, players=players, matches=per_game, rng=rng)
            if not groups:
                continue
            # Max is None for a ladder without matches, and 0 (falsy, but taken) after its first one.
            highest = tournament.matches.aggregate(n=Max("index"))["n"]
            first = 0 if highest is None else highest + 1
            matches_create(tournament=tournament, seatings=groups, first_index=first, priority=LADDER_PRIORITY)
        scheduled[game.slug] = len(groups)
    return scheduled
