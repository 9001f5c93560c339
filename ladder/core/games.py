"""Games: database rows that mirror the installed engines."""

from __future__ import annotations

from django.db import transaction

import engines
from ladder.core.errors import ServiceError
from ladder.models import Game


@transaction.atomic
def games_sync(*, using: str = "default") -> list[Game]:
    """Create or update one Game row per installed engine; mark rows of missing engines unavailable.

    Idempotent: safe after every migrate and every deploy.
    """
    installed = []
    for name in engines.names():
        game = engines.get(name)
        row, _ = Game.objects.using(using).update_or_create(
            slug=name,
            defaults={
                "title": getattr(game, "title", name) or name,
                "min_players": game.min_players,
                "max_players": game.max_players,
                "default_options": game.default_options(),
                "available": True,
            },
        )
        installed.append(row)
    Game.objects.using(using).exclude(slug__in=[g.slug for g in installed]).update(available=False)
    return installed


def game_get(*, slug: str) -> Game:
    """The available game called ``slug``; ServiceError naming the games if there is none."""
    game = Game.objects.filter(slug=slug, available=True).first()
    if game is None:
        known = ", ".join(Game.objects.filter(available=True).values_list("slug", flat=True))
        raise ServiceError(f"unknown game {slug!r}; games: {known}", field="game")
    return game
