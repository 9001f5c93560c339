"""The four events and their ``data``, each sent only to the owner of the object it is about: the bot's
owner, the comparison's bot's owner, the tournament's creator. docs/webhooks.md shows every payload.

Each function is called by the service where the thing happens, inside its transaction
(:func:`ladder.services.webhooks.deliveries.webhooks_emit`), and reads nothing the caller has not loaded but
the owner's webhooks (one query; none is written for an owner without a subscribed webhook).
"""

from __future__ import annotations

import math

from ladder.models import Bot, BotVersion, Comparison, Tournament
from ladder.services.webhooks.deliveries import webhooks_emit


def _bot(bot: Bot) -> dict:
    return {"id": bot.id, "name": bot.name, "game": bot.game.slug}


def bot_validated(*, version: BotVersion) -> int:
    """A worker decided ``version`` (select its bot and game with it): accepted, or rejected with why."""
    return webhooks_emit(event="bot.validated", owner_id=version.bot.owner_id, data={
        "bot": _bot(version.bot), "version": version.number, "status": version.validation_status,
        "message": version.validation_message,
    })


def bot_deactivated(*, bot: Bot) -> int:
    """``bot`` was taken out of new tournaments and the ladder."""
    return webhooks_emit(event="bot.deactivated", owner_id=bot.owner_id, data={"bot": _bot(bot), "active": False})


def _finite(value: float) -> float | None:
    return round(value, 2) if math.isfinite(value) else None


def comparison_finished(*, comparison: Comparison, elo: tuple[float, float, float]) -> int:
    """``comparison`` (with its bot, game and versions) is done; ``elo`` is its (estimate, low, high)."""
    estimate, low, high = elo
    counts = list(comparison.pairs or [0] * 5)
    return webhooks_emit(event="comparison.finished", owner_id=comparison.bot.owner_id, data={
        "comparison": comparison.id, "bot": _bot(comparison.bot), "baseline": comparison.baseline.number,
        "candidate": comparison.candidate.number, "verdict": comparison.verdict, "games": 2 * sum(counts),
        "pairs": counts, "llr": comparison.llr_history[-1] if comparison.llr_history else 0.0,
        "elo": {"estimate": _finite(estimate), "low": _finite(low), "high": _finite(high)},
        "url": f"/api/comparisons/{comparison.id}/",
    })


def tournament_finished(*, tournament: Tournament) -> int:
    """Every match of ``tournament`` is played (or given up); its standings are final."""
    return webhooks_emit(event="tournament.finished", owner_id=tournament.created_by_id, data={
        "tournament": tournament.id, "name": tournament.name, "game": tournament.game.slug,
        "rated": tournament.rated, "status": tournament.status, "finished_at": tournament.finished_at,
        "standings_url": f"/api/tournaments/{tournament.id}/standings/",
    })
