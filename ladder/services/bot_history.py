"""Reading bots: the list with each bot's Elo, a bot's detail, its rating history (one point per rated
match) and its head-to-head results against another bot."""

from __future__ import annotations

from django.db.models import F, OuterRef, Prefetch, QuerySet, Subquery

from ladder.models import Bot, BotVersion, Match, Rating, RatingChange, Seat
from ladder.services import ratings
from ladder.services.errors import ServiceError
from ladder.services.tournament_tables import seat_results_by_match


def bot_get(*, bot_id: int) -> Bot:
    """A bot with its game and owner (bots are public), or ServiceError 404."""
    bot = Bot.objects.select_related("game", "owner").filter(pk=bot_id).first()
    if bot is None:
        raise ServiceError(f"no bot with id {bot_id}", status=404)
    return bot


def bot_rating_history(*, bot: Bot) -> QuerySet[RatingChange]:
    """One row per rated match of ``bot``, oldest first (the order the changes were applied), with the
    match's finish time and the version that played annotated as ``finished_at`` and ``version``."""
    return (
        RatingChange.objects.filter(bot=bot)
        .annotate(finished_at=F("match__finished_at"), version=F("seat__bot_version__number"))
        .order_by("id")
    )


def bot_head_to_head(*, bot: Bot, opponent: Bot) -> dict:
    """Pairwise results of ``bot`` against ``opponent`` over every finished match where both sat.

    A multiplayer match counts as one result between the two (their places decide; a forfeit loses),
    as in ``ratings.crosstable``. Returns ``{"wins", "draws", "losses", "games", "score", "match_ids"}``
    with the match ids newest first. ServiceError 400 when the two bots are the same or play different
    games.
    """
    if bot.pk == opponent.pk:
        raise ServiceError("pick two different bots", field="opponent_id")
    if bot.game_id != opponent.game_id:
        raise ServiceError(f"{bot.name} and {opponent.name} play different games; they never meet",
                           field="opponent_id")
    shared = (
        Match.objects.filter(status=Match.Status.FINISHED, seats__bot=bot)
        .filter(seats__bot=opponent)
        .values("id")
    )
    rows = (
        Seat.objects.filter(match_id__in=shared)
        .order_by("match_id", "position")
        .values_list("match_id", "bot_id", "place", "score", "outcome")
    )
    rows = list(rows)
    record = ratings.crosstable(seat_results_by_match(rows)).get(bot.pk, {}).get(opponent.pk, ratings.HeadToHead())
    return {
        "wins": record.wins,
        "draws": record.draws,
        "losses": record.losses,
        "games": record.games,
        "score": record.score,
        "match_ids": sorted({row[0] for row in rows}, reverse=True),
    }


def bots_listed() -> QuerySet[Bot]:
    """Every bot with its game and owner, annotated with ``elo`` (its rating in its game, None before its
    rating row exists) and ``current_version`` (its newest accepted version number): one query per page."""
    rating = Rating.objects.filter(bot=OuterRef("pk"), game=OuterRef("game")).values("elo")[:1]
    newest = (
        BotVersion.objects.filter(bot=OuterRef("pk"), validation_status=BotVersion.Validation.ACCEPTED)
        .order_by("-number")
        .values("number")[:1]
    )
    return Bot.objects.select_related("game", "owner").annotate(elo=Subquery(rating),
                                                                 current_version=Subquery(newest))


def bot_detail_get(*, bot_id: int) -> Bot:
    """A bot with its versions (code left out) and ratings prefetched, or ServiceError 404. Three queries."""
    bot = (
        Bot.objects.select_related("game", "owner")
        .prefetch_related(
            Prefetch("versions", queryset=BotVersion.objects.defer("code").order_by("number")),
            Prefetch("ratings", queryset=Rating.objects.select_related("game").order_by("game_id")),
        )
        .filter(pk=bot_id)
        .first()
    )
    if bot is None:
        raise ServiceError(f"no bot with id {bot_id}", status=404)
    return bot
