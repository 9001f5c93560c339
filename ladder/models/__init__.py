"""The ladder's durable state (docs/architecture.md, "Data"), one module per domain. The database is the
source of truth.

Invariants live in the database as constraints, so that every writer (web, workers, admin, shell) is held
to them. Business logic lives in ``ladder.services``; these classes only describe data. Every model is
imported from here (``from ladder.models import Match``): the modules are how the models are kept, not how
they are found.
"""

from ladder.models.accounts import ApiToken
from ladder.models.base import TimeStampedModel
from ladder.models.bots import Bot, BotVersion
from ladder.models.games import Game
from ladder.models.matches import Match, MatchQuerySet, MatchSetup, MatchSetupManager, Seat
from ladder.models.ratings import PairFlag, PairRecord, PendingRating, Rating, RatingChange
from ladder.models.tournaments import (
    Comparison,
    LadderEntry,
    Tournament,
    TournamentHeadToHead,
    TournamentStanding,
    TournamentTally,
)
from ladder.models.webhooks import Webhook, WebhookAttempt, WebhookDelivery

__all__ = [
    "ApiToken",
    "Bot",
    "BotVersion",
    "Comparison",
    "Game",
    "LadderEntry",
    "Match",
    "MatchQuerySet",
    "MatchSetup",
    "MatchSetupManager",
    "PairFlag",
    "PairRecord",
    "PendingRating",
    "Rating",
    "RatingChange",
    "Seat",
    "TimeStampedModel",
    "Tournament",
    "TournamentHeadToHead",
    "TournamentStanding",
    "TournamentTally",
    "Webhook",
    "WebhookAttempt",
    "WebhookDelivery",
]
