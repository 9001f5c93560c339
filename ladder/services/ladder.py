"""The continuous ladder: a periodic tick pairs active bots of each game into new matches.

Ladder matches are played under their game's sandbox limits (``BOTS_LIMITS_BY_GAME`` over the global
settings): the ladder tournament sets no overrides of its own. They are rated, so no ladder match seats
two bots of one owner (``ladder.services.rated_play``); :func:`bot_ladder_status` says why a bot gets no
ladder games, that rule among the reasons.
"""

from __future__ import annotations

import dataclasses
import functools
import random

from django.conf import settings
from django.db import transaction
from django.db.models import Count, Exists, Max, OuterRef, Q, QuerySet

from ladder.models import Bot, BotVersion, Game, Match, Rating, Tournament
from ladder.services.rated_play import HOUSE_BOTS, rated_owner_keys, seating_owners_distinct
from ladder.services.scheduling import ladder_pairings
from ladder.services.tournaments import LADDER_PRIORITY, matches_create


def _ladder_players(game: Game) -> int:
    """Players per match of a new ladder of ``game``: its fewest, and at least two where it allows."""
    return game.min_players if game.min_players >= 2 else min(2, game.max_players)


def ladder_entrants(*, game: Game | int) -> QuerySet[Bot]:
    """The bots the ladder of ``game`` pairs: active, with an accepted version and a rating row in the game."""
    accepted = BotVersion.objects.filter(bot=OuterRef("pk"), validation_status=BotVersion.Validation.ACCEPTED)
    rated = Rating.objects.filter(bot=OuterRef("pk"), game=OuterRef("game"))
    return Bot.objects.filter(game=game, active=True).filter(Exists(accepted), Exists(rated))


def ladder_tournament_get(*, game: Game) -> Tournament:
    """The one ladder tournament of ``game`` (created on first use); ladder matches belong to it."""
    tournament, _ = Tournament.objects.get_or_create(
        game=game,
        kind=Tournament.Kind.LADDER,
        defaults={
            "name": f"{game.title} ladder",
            "players_per_match": _ladder_players(game),
            "options": game.default_options,
            # The server chose these games: they move leaderboard ratings, each with a secret seed.
            "rated": True,
        },
    )
    return tournament


def ladder_tick(*, matches_per_game: int | None = None, rng: random.Random | None = None) -> dict[str, int]:
    """Schedule ladder matches for every available game; returns matches scheduled per game slug.

    Tournaments come first: nothing is scheduled while more than ``LADDER_MAX_BACKLOG`` matches of any
    kind wait in the queue, and ladder matches carry a lower priority. No match seats two bots of one
    owner (``rated_play.seating_owners_distinct``): a bot whose only possible opponents are its owner's
    other bots waits.
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
        candidates = list(
            Rating.objects.filter(game=game, bot__in=ladder_entrants(game=game)).values_list("bot_id", "elo", "games")
        )
        if len(candidates) < max(2, game.min_players):
            continue
        owners = rated_owner_keys(bot_ids=[bot_id for bot_id, _, _ in candidates])
        with transaction.atomic():
            # The game comes along for the per-game sandbox limits; only the tournament row is locked.
            tournament = Tournament.objects.select_for_update(of=("self",)).select_related("game").filter(
                id=ladder_tournament_get(game=game).id
            ).get()
            players = tournament.players_per_match
            groups = ladder_pairings(candidates, players=players, matches=per_game, rng=rng,
                                     may_seat=functools.partial(seating_owners_distinct, owners=owners))
            if not groups:
                continue
            # Max is None for a ladder without matches, and 0 (falsy, but taken) after its first one.
            highest = tournament.matches.aggregate(n=Max("index"))["n"]
            first = 0 if highest is None else highest + 1
            matches_create(tournament=tournament, seatings=groups, first_index=first, priority=LADDER_PRIORITY)
        scheduled[game.slug] = len(groups)
    return scheduled


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
               .values_list("players_per_match", flat=True).first()) or _ladder_players(game)
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
