"""Reading the continuous ladder: which bots it pairs, and what a bot's page says of its ladder games (how
many of late, and if none, why, in words its owner can act on)."""

from __future__ import annotations

import dataclasses
from datetime import datetime

from django.conf import settings
from django.db.models import Count, Exists, OuterRef, Q, QuerySet
from django.utils import timezone

from ladder.core.rated_play import HOUSE_BOTS
from ladder.models import Bot, BotVersion, Game, LadderEntry, Rating, Tournament


def ladder_players(game: Game) -> int:
    """Players per match of a new ladder of ``game``: its fewest, and at least two where it allows."""
    return game.min_players if game.min_players >= 2 else min(2, game.max_players)


def ladder_entrants(*, game: Game | int) -> QuerySet[Bot]:
    """The bots the ladder of ``game`` pairs: active, with an accepted version and a rating row in the game."""
    accepted = BotVersion.objects.filter(bot=OuterRef("pk"), validation_status=BotVersion.Validation.ACCEPTED)
    rated = Rating.objects.filter(bot=OuterRef("pk"), game=OuterRef("game"))
    return Bot.objects.filter(game=game, active=True).filter(Exists(accepted), Exists(rated))


#: The ladder games a bot's page shows are counted in steps of ten minutes, for a day.
RECENT_STEP_S = 600
RECENT_STEPS = 86400 // RECENT_STEP_S


def ladder_games_recent(entry: LadderEntry | None, *, now: datetime) -> dict[str, int]:
    """``{"last_hour": n, "last_day": n}``: ladder games scheduled for the entry's bot in the ten-minute steps
    that overlap the last hour and the last day (0 without an entry)."""
    if entry is None:
        return {"last_hour": 0, "last_day": 0}
    current = int(now.timestamp()) // RECENT_STEP_S
    hour = sum(n for key, n in entry.recent.items() if int(key) > current - 3600 // RECENT_STEP_S)
    day = sum(n for key, n in entry.recent.items() if int(key) > current - RECENT_STEPS)
    return {"last_hour": hour, "last_day": day}


def bot_ladder_games(*, bot: Bot, now: datetime | None = None) -> dict[str, int]:
    """:func:`ladder_games_recent` of ``bot`` on its game's ladder: one query."""
    entry = LadderEntry.objects.filter(bot=bot, tournament__game_id=bot.game_id,
                                       tournament__kind=Tournament.Kind.LADDER).only("recent").first()
    return ladder_games_recent(entry, now=now or timezone.now())


@dataclasses.dataclass(frozen=True)
class LadderStatus:
    """Whether a bot plays on its game's ladder, and if not why, in words its owner can act on."""

    #: ``playing``; or why not: ``off`` (no ladder on this server), ``unavailable`` (its game is no longer
    #: installed), ``inactive``, ``no_accepted_version``, ``own_bots_only`` (every possible opponent is
    #: its owner's, or too few owners for a match), ``too_few_bots``.
    state: str
    message: str


def bot_ladder_status(*, bot: Bot) -> LadderStatus:
    """Whether the ladder pairs ``bot`` (with ``game`` loaded), and if not why. Two queries at most (the
    ladder's players per match, and a count of the bot's possible opponents by owner)."""
    game = bot.game
    if not settings.LADDER_ENABLED:
        return LadderStatus("off", "This server runs no ladder: bots play in tournaments only.")
    if not game.available:
        return LadderStatus("unavailable", f"{game.title} is no longer installed here: no new games are scheduled.")
    if not bot.active:
        return LadderStatus("inactive", "No ladder games: the bot is inactive. Reactivate it to play again.")
    players = (Tournament.objects.filter(game=game, kind=Tournament.Kind.LADDER)
               .values_list("players_per_match", flat=True).first()) or ladder_players(game)
    others = ~Q(id=bot.id)
    counts = ladder_entrants(game=game).aggregate(
        entered=Count("id", filter=Q(id=bot.id)),
        others=Count("id", filter=others),
        # House bots answer to no owner: each is an opponent of its own.
        house=Count("id", filter=others & HOUSE_BOTS),
        owners=Count("owner", distinct=True, filter=others & ~HOUSE_BOTS & ~Q(owner=bot.owner_id)),
    )
    if not counts["entered"]:
        return LadderStatus("no_accepted_version", "No ladder games yet: the bot has no accepted version. A new "
                                                   "upload plays once a worker has checked and accepted it.")
    needed = players - 1
    if counts["owners"] + counts["house"] >= needed:
        return LadderStatus("playing", f"Plays on the {game.title} ladder: each round pairs it with bots of other "
                                       "owners close to its rating.")
    if counts["others"] >= needed:
        opponents = counts["owners"] + counts["house"]
        if opponents == 0:
            why = "its only possible opponents are its owner's other bots"
        else:
            why = (f"a {players}-player ladder match seats bots of {players} different owners, and besides its "
                   f"owner's bots there are only {opponents} of other owners")
        return LadderStatus("own_bots_only", f"No ladder games: {why}, and a rated match never seats two bots of "
                                             "one owner (they could trade games). It plays once bots of other "
                                             f"owners join the {game.title} ladder.")
    return LadderStatus("too_few_bots", f"No ladder games yet: a {game.title} ladder match needs {players} active "
                                        f"bots, and {counts['others'] + 1} are there.")
