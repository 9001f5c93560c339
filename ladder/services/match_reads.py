"""Reading matches (public): lists and details with their seats, without the bulky columns (bot code,
bot logs) that no public view shows."""

from __future__ import annotations

from django.db.models import Prefetch, QuerySet

import engines
from ladder.models import Match, Seat
from ladder.services.errors import ServiceError


def _public_seats() -> QuerySet[Seat]:
    return Seat.objects.select_related("bot", "bot_version").defer("log", "bot_version__code").order_by("position")


def matches_listed() -> QuerySet[Match]:
    """Every match with its game, tournament (whether it is rated, for the seed) and seats (bot, version)
    prefetched: two queries per page, and no ``actions`` (a list shows no moves)."""
    return (
        Match.objects.select_related("game", "tournament")
        .defer("actions")
        .prefetch_related(Prefetch("seats", queryset=_public_seats()))
    )


def match_detail_get(*, match_id: int) -> Match:
    """One match with its game, tournament and seats, or ServiceError 404."""
    match = (
        Match.objects.select_related("game", "tournament")
        .prefetch_related(Prefetch("seats", queryset=_public_seats()))
        .filter(pk=match_id)
        .first()
    )
    if match is None:
        raise ServiceError(f"no match with id {match_id}", status=404)
    return match


def match_replay(*, match_id: int) -> dict:
    """``{"actions", "frames"}`` of a finished match: the spectator view before the first action and after
    each one, recomputed by the engine. ServiceError 404 for no such match, 409 until it finished."""
    match = Match.objects.select_related("game").filter(pk=match_id).first()
    if match is None:
        raise ServiceError(f"no match with id {match_id}", status=404)
    if match.status != Match.Status.FINISHED:
        raise ServiceError(f"match {match_id} is {match.status}; its replay exists once it finished: poll "
                           f"GET /api/matches/{match_id}/ until status is finished", status=409)
    frames = engines.replay(match.game.slug, match.players, match.seed, match.options, match.actions)
    return {"actions": match.actions, "frames": frames}
