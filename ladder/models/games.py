"""The games: one row per installed engine (``ladder.core.games`` keeps the rows in step with the engines)."""

from __future__ import annotations

from django.db import models
from django.db.models import F, Q

from ladder.models.base import TimeStampedModel


class Game(TimeStampedModel):
    """A game with an installed engine; rows mirror ``engines.names()`` (``ladder.core.games``)."""

    slug = models.SlugField(max_length=40, unique=True)
    title = models.CharField(max_length=100)
    min_players = models.PositiveSmallIntegerField()
    max_players = models.PositiveSmallIntegerField()
    default_options = models.JSONField(default=dict, blank=True)
    # False when the engine is no longer installed: its history stays, no new matches are scheduled.
    available = models.BooleanField(default=True)

    class Meta:
        ordering = ["id"]
        constraints = [
            models.CheckConstraint(condition=Q(min_players__gte=1), name="game_min_players_positive"),
            models.CheckConstraint(condition=Q(max_players__gte=F("min_players")), name="game_player_range"),
        ]

    def __str__(self) -> str:
        return self.slug
