"""Tournaments: validating and scheduling round robins, progress and standings."""

from __future__ import annotations

import random
from collections.abc import Sequence

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.db import transaction
from django.utils import timezone

import engines
from ladder.core.database import db_datetime, insert_rows, statement_cursor, statements_batched
from ladder.core.errors import ServiceError
from ladder.core.games import game_get
from ladder.core.limits import limits_resolve, tournament_limits_check
from ladder.core.quotas import unrated_matches_reserve, write_rate_check
from ladder.core.rated_play import (
    match_moves_ratings,
    rated_match_seed,
    rated_seatings_check,
    round_robin_owners_check,
    tournament_rated_check,
)
from ladder.core.worker_time import match_reservation_s, matches_reserve
from ladder.messaging.enqueue import matches_enqueue_on_commit
from ladder.models import Bot, BotVersion, Game, Match, MatchSetup, Seat, Tournament
from ladder.services.tournaments import tournament_sql
from ladder.services.tournaments.rotations import first_rotations, rotations_in_sequence
from ladder.services.tournaments.scheduling import (
    derive_deal_seed,
    derive_seed,
    duplicate_round_robin,
    duplicate_round_robin_count,
    round_robin,
    round_robin_count,
)
from ladder.services.webhooks.events import tournament_finished


def game_options_check(*, game: Game, players: int, options: dict | None) -> dict:
    """The options merged over the game's defaults, after the engine accepted them for ``players``."""
    if options is not None and not isinstance(options, dict):
        raise ServiceError("options must be a JSON object", field="options")
    merged = {**game.default_options, **(options or {})}
    try:
        engines.get(game.slug).new_state(players, 0, merged)
    except (ValueError, TypeError, KeyError) as exc:
        raise ServiceError(f"the game refused these settings: {exc}", field="options") from exc
    return merged


def current_versions(bot_ids: Sequence[int]) -> dict[int, int]:
    """bot id -> id of its newest accepted version, for the bots that have one."""
    rows = (
        BotVersion.objects.filter(bot_id__in=bot_ids, validation_status=BotVersion.Validation.ACCEPTED)
        .order_by("bot_id", "-number")
        .values_list("bot_id", "id")
    )
    current: dict[int, int] = {}
    for bot_id, version_id in rows:
        current.setdefault(bot_id, version_id)
    return current


def entrants_check(*, bot_ids: Sequence[int], game: Game, field: str) -> dict[int, Bot]:
    """The bots ``bot_ids`` by id, once each, if every one may play: it exists, plays ``game``, is active
    and has an accepted version. Otherwise ServiceError naming ``field`` and every bot at fault. Two
    queries."""
    if len(set(bot_ids)) != len(bot_ids):
        raise ServiceError("each bot may be listed once", field=field)
    bots = {bot.id: bot for bot in Bot.objects.filter(id__in=bot_ids)}
    missing = [bot_id for bot_id in bot_ids if bot_id not in bots]
    if missing:
        raise ServiceError(f"no bots with ids {missing}", field=field)
    wrong_game = sorted(b.name for b in bots.values() if b.game_id != game.id)
    if wrong_game:
        raise ServiceError(f"these bots play another game than {game.slug}: {', '.join(wrong_game)}", field=field)
    inactive = sorted(b.name for b in bots.values() if not b.active)
    if inactive:
        raise ServiceError(f"these bots are inactive: {', '.join(inactive)}", field=field)
    current = current_versions(bot_ids)
    without_code = sorted(bots[b].name for b in bot_ids if b not in current)
    if without_code:
        raise ServiceError(f"these bots have no accepted version: {', '.join(without_code)}", field=field)
    return bots


def _seeds(*, tournament: Tournament, first_index: int, count: int, deals: Sequence[int] | None) -> list[int]:
    """The seed of each new match. Rated: secret, from the CSPRNG, one per match or, with ``deals``, one
    per deal shared by its rotations. Unrated: derived from the tournament's seed and the match's index,
    or with ``deals`` the deal's number."""
    rated = match_moves_ratings(tournament)
    if deals is None:
        return [rated_match_seed() if rated else derive_seed(tournament.seed, first_index + offset)
                for offset in range(count)]
    by_deal = {deal: rated_match_seed() if rated else derive_deal_seed(tournament.seed, deal) for deal in set(deals)}
    return [by_deal[deal] for deal in deals]


def matches_create(
    *,
    tournament: Tournament,
    seatings: Sequence[Sequence[int]],
    first_index: int,
    priority: int,
    deals: Sequence[int] | None = None,
) -> list[int]:
    """Create queued matches (and their seats) for ``seatings`` and enqueue them after commit.

    Each bot plays with its newest accepted version at the time of scheduling, and each match under the
    sandbox limits resolved now (settings, the game's, the tournament's overrides). A rated tournament's
    match draws a secret seed of its own; an unrated one's derives from the tournament's seed and the
    match's index. ``deals`` (one per seating, a duplicate round robin's) names each match's deal: the
    matches of one deal share one seed, secret or derived from the deal's number. In a rated duplicate
    only the first rotation of each deal is sent now, the others wait held
    (``ladder.services.tournaments.rotations``). Returns the match ids.

    ValueError for a rated seating of two bots of one owner (``rated_play.rated_seatings_check``): callers
    pair bots so that none is formed.
    """
    if deals is not None and len(deals) != len(seatings):
        raise ValueError("deals must name one deal per seating")
    rated_seatings_check(tournament=tournament, seatings=seatings)
    held: set[int] = set()  # offsets of the rotations sent later, one by one
    if deals is not None and rotations_in_sequence(tournament):
        held = set(range(len(seatings))) - set(first_rotations(range(len(seatings)), deals))
    versions = current_versions({bot_id for seating in seatings for bot_id in seating})
    limits = limits_resolve(game_slug=tournament.game.slug, overrides=tournament.limits)
    setup = MatchSetup.objects.for_parts(options=tournament.options, limits=limits)
    reserved = {players: match_reservation_s(game_slug=tournament.game.slug, players=players, limits=limits)
                for players in {len(seating) for seating in seatings}}
    seeds = _seeds(tournament=tournament, first_index=first_index, count=len(seatings), deals=deals)
    rules_version = engines.get(tournament.game.slug).rules_version
    now = timezone.now()
    matches = [
        Match(
            game_id=tournament.game_id,
            tournament=tournament,
            index=first_index + offset,
            players=len(seating),
            deal=None if deals is None else deals[offset],
            seed=seeds[offset],
            rules_version=rules_version,
            setup=setup,
            reserved_s=reserved[len(seating)],
            priority=priority,
            # A held rotation has no message yet: it is sent when the rotation before it is done.
            enqueued_at=None if offset in held else now,
        )
        for offset, seating in enumerate(seatings)
    ]
    # One statement each, the rows as arrays (insert_rows): a thousand-match round robin is
    # created in a fraction of what bulk_create's spelled-out rows cost.
    ids_by_index = dict(insert_rows(Match, matches, returning=("index", "id")))
    seats = [
        Seat(
            match_id=ids_by_index[first_index + offset],
            position=position,
            bot_id=bot_id,
            bot_version_id=versions[bot_id],
        )
        for offset, seating in enumerate(seatings)
        for position, bot_id in enumerate(seating)
    ]
    insert_rows(Seat, seats)
    match_ids = [ids_by_index[first_index + offset] for offset in range(len(seatings))]
    matches_enqueue_on_commit([match_id for offset, match_id in enumerate(match_ids) if offset not in held],
                              stamped=True)
    return match_ids


def tournament_create(
    *,
    created_by: AbstractBaseUser | None,
    game_slug: str,
    name: str,
    bot_ids: Sequence[int],
    players_per_match: int,
    games_per_pairing: int = 1,
    options: dict | None = None,
    seed: int | None = None,
    limits: dict | None = None,
    rated: bool = False,
    duplicate: bool = False,
) -> Tournament:
    """Schedule a round robin: every combination of ``players_per_match`` of the bots, each played
    ``games_per_pairing`` times with rotated seats. Matches are enqueued after commit.

    ``duplicate``: ``games_per_pairing`` counts deals, and every deal (one seed) is played once in each
    cyclic seat rotation of its bots (both orders for two players), so every bot meets the same deal from
    every seat; the match count, checked against ``TOURNAMENT_MAX_MATCHES`` and the quota, counts every
    rotation (``players_per_match`` matches per deal).

    Unrated (the default) it keeps its own standings and leaves leaderboard ratings alone; its matches'
    seeds derive from ``seed`` (random if not given), and they count against the creator's
    ``UNRATED_MATCHES_PER_DAY`` and, at their worst case, its ``WORKER_SECONDS_PER_DAY``
    (``ladder.core.worker_time``). ``rated`` (staff only) moves leaderboard ratings; each match then draws
    a secret seed and no ``seed`` may be chosen, and no two of the bots may have one owner
    (``ladder.core.rated_play``). A rated duplicate plays each deal's rotations one after another
    (``ladder.services.tournaments.rotations``); an unrated one plays them at the same time.

    Raises ServiceError (what to fix) for: an unknown game, players outside the game's range, unknown,
    duplicate, inactive or other-game bots, bots without an accepted version, too few bots, more matches
    than ``TOURNAMENT_MAX_MATCHES``, options the engine refuses, ``limits`` overrides that are not
    user-facing limits within the server's caps (``ladder.core.limits``) or, for anyone but staff,
    within the game's own limits, a seed for a rated tournament, two bots of one owner in a rated one;
    ServiceError 403 for a rated tournament asked by anyone but staff; QuotaExceeded (429) past the
    creator's rate of tournaments created (``quotas.write_rate_check``, counted first) or daily quota of
    unrated matches or of worker seconds.
    """
    write_rate_check(user=created_by, kind="tournaments")
    tournament_rated_check(created_by=created_by, rated=rated, seed=seed)
    game = game_get(slug=game_slug)
    name = (name or "").strip()
    if not name:
        raise ServiceError("give the tournament a name", field="name")
    if not (game.min_players <= players_per_match <= game.max_players):
        raise ServiceError(
            f"{game.slug} is played by {game.min_players} to {game.max_players} players, "
            f"not {players_per_match}",
            field="players_per_match",
        )
    if games_per_pairing < 1:
        raise ServiceError("games_per_pairing must be at least 1", field="games_per_pairing")
    bot_ids = list(bot_ids)
    entrants = entrants_check(bot_ids=bot_ids, game=game, field="bots")
    round_robin_owners_check(bots=entrants, players_per_match=players_per_match, rated=rated)
    if len(bot_ids) < players_per_match:
        raise ServiceError(
            f"a {players_per_match}-player round robin needs at least {players_per_match} bots", field="bots"
        )
    count = duplicate_round_robin_count if duplicate else round_robin_count
    total = count(len(bot_ids), players_per_match, games_per_pairing)
    if total > settings.TOURNAMENT_MAX_MATCHES:
        raise ServiceError(
            f"this tournament would play {total} matches; the limit is {settings.TOURNAMENT_MAX_MATCHES}",
            field="games_per_pairing",
        )
    merged = game_options_check(game=game, players=players_per_match, options=options)
    limits = tournament_limits_check(limits=limits, game_slug=game.slug,
                                     staff=created_by is None or created_by.is_staff)
    if seed is None and not rated:
        seed = random.SystemRandom().randrange(1 << 62)
    with transaction.atomic():
        if not rated and created_by is not None:
            unrated_matches_reserve(user=created_by, count=total)
            matches_reserve(user=created_by, game_slug=game.slug, players=players_per_match, count=total,
                            limits=limits)
        tournament = Tournament.objects.create(
            game=game,
            name=name,
            kind=Tournament.Kind.ROUND_ROBIN,
            players_per_match=players_per_match,
            games_per_pairing=games_per_pairing,
            options=merged,
            limits=limits,
            rated=rated,
            duplicate=duplicate,
            seed=seed,
            created_by=created_by,
            started_at=timezone.now(),
        )
        tournament.bots.set(bot_ids)
        if duplicate:
            schedule = duplicate_round_robin(bot_ids, players_per_match, games_per_pairing)
            seatings, deals = [seating for _, seating in schedule], [deal for deal, _ in schedule]
        else:
            seatings, deals = round_robin(bot_ids, players_per_match, games_per_pairing), None
        matches_create(
            tournament=tournament, seatings=seatings, first_index=0, priority=Match.Priority.TOURNAMENT, deals=deals
        )
    return tournament


def tournament_finish_if_done(*, tournament_id: int) -> bool:
    """Mark the tournament finished when none of its matches is queued or running, and tell its creator's
    webhooks once the transaction commits (``tournament.finished``). Caller holds a transaction; the
    tournament row is locked so that two workers finishing the last two matches at once cannot both miss
    it: the second one's look waits for the first one's commit. One round trip (the lock and the
    conditional UPDATE, two statements sent together: ``tournament_sql.tournament_hold_sql``)."""
    creator = _finish_held(tournament_id)
    if creator is None:
        return False
    if creator[0] is not None:
        tournament_finished(tournament=Tournament.objects.select_related("game").get(id=tournament_id))
    return True


def _finish_held(tournament_id: int) -> tuple[int | None] | None:
    """Hold the tournament's row and finish it if nothing is left, in one round trip; its creator's id in
    a tuple if it finished it, else None."""
    now = db_datetime(timezone.now())
    queued, running = Match.Status.QUEUED.value, Match.Status.RUNNING.value
    with statement_cursor() as hold, statement_cursor() as finish:
        with statements_batched():
            hold.execute(tournament_sql.tournament_hold_sql(), [tournament_id, tournament_id, queued])
            finish.execute(tournament_sql.tournament_finish_sql(), [
                Tournament.Status.FINISHED.value, now, now, tournament_id, Tournament.Kind.ROUND_ROBIN.value,
                Tournament.Status.RUNNING.value, tournament_id, queued, running])
        return finish.fetchone()
