"""The continuous ladder: a periodic tick pairs active bots of each game into new matches.

Each bot's games spread over many opponents (``LADDER_PAIR_SHARE``), and a pair flagged for arranged games
(``ladder.services.ratings.collusion``) is never seated together.

Ladder matches are played under their game's sandbox limits (``BOTS_LIMITS_BY_GAME`` over the global
settings): the ladder tournament sets no overrides of its own. They are rated, so no ladder match seats
two bots of one owner (``ladder.core.rated_play``); ``ladder.selectors.ladder.bot_ladder_status``
says why a bot gets no ladder games, that rule among the reasons. An upload's smoke match is played as a
ladder match of its game is (:func:`ladder_match_setup`): a bot must not be able to behave only where it
is checked.
"""

from __future__ import annotations

import dataclasses
import itertools
import logging
import math
import random
from datetime import datetime, timedelta

import numpy as np
from django.conf import settings
from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from ladder.core.limits import limits_resolve
from ladder.core.rated_play import rated_owner_keys
from ladder.models import BotVersion, Game, LadderEntry, Match, PairRecord, Rating, Seat, Tournament
from ladder.ratings.confidence import SETTLED_P
from ladder.ratings.pairing import (
    Candidate,
    candidate_deviations,
    half_width,
    misorder_probabilities,
    select_groups,
)
from ladder.selectors.ladder import RECENT_STEP_S, RECENT_STEPS, ladder_entrants, ladder_players
from ladder.services.ratings.collusion import held_pairs
from ladder.services.tournaments.round_robins import current_versions, matches_create

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class LadderMatchSetup:
    """What every match of a game's ladder is played with, besides its bots and its secret seed."""

    players: int
    options: dict
    #: Every field of the referee's ``Limits``, resolved (``limits.limits_resolve``).
    limits: dict[str, int]


def ladder_match_setup(*, game: Game) -> LadderMatchSetup:
    """The players, options and limits of ``game``'s ladder matches: its ladder tournament's, or, before
    that exists, those it will be made with (:func:`ladder_tournament_get`), without making it."""
    ladder = Tournament.objects.filter(game=game, kind=Tournament.Kind.LADDER).first()
    if ladder is None:
        return LadderMatchSetup(players=ladder_players(game), options=dict(game.default_options),
                                limits=limits_resolve(game_slug=game.slug))
    return LadderMatchSetup(players=ladder.players_per_match, options=dict(ladder.options),
                            limits=limits_resolve(game_slug=game.slug, overrides=ladder.limits))


def ladder_tournament_get(*, game: Game) -> Tournament:
    """The one ladder tournament of ``game`` (created on first use); ladder matches belong to it."""
    tournament, _ = Tournament.objects.get_or_create(
        game=game,
        kind=Tournament.Kind.LADDER,
        defaults={
            "name": f"{game.title} ladder",
            "players_per_match": ladder_players(game),
            "options": game.default_options,
            # The server chose these games: they move leaderboard ratings, each with a secret seed.
            "rated": True,
        },
    )
    return tournament


@dataclasses.dataclass(frozen=True)
class LadderField:
    """What one tick knows of a game's ladder: its candidates and whether it still has something to learn."""

    tournament: Tournament
    candidates: list[Candidate]
    versions: dict[int, int]  # bot id -> the version its next games seat
    #: Some active bot is new (fewer than LADDER_PROVISIONAL_GAMES games with its version), or has a 95%
    #: interval wider than +-LADDER_TARGET_HALF_WIDTH and an order in doubt against some other bot: the
    #: ladder plays as fast as the workers allow.
    learning: bool
    #: The widest half width of a 95% interval among the bots whose order is in doubt, in Elo points.
    widest: float
    last_scheduled_at: datetime | None
    #: ``(a, b, weight)``: the games each pair has had together, scheduled ones included.
    pair_games: list[tuple[int, int, float]] = dataclasses.field(default_factory=list)
    #: Pairs flagged for arranged games (``ladder.services.ratings.collusion``): never seated together.
    apart: set[frozenset[int]] = dataclasses.field(default_factory=set)


def priority_work_waiting() -> bool:
    """Whether a tournament's or a comparison's match, or an upload check, waits: the ladder then adds
    nothing, so that they get every worker that comes free."""
    if Match.objects.filter(status=Match.Status.QUEUED, priority__lt=Match.Priority.LADDER).exists():
        return True
    return BotVersion.objects.filter(validation_status=BotVersion.Validation.PENDING).exists()


def ladder_backlog_target(*, now: datetime) -> int:
    """How many ladder matches should wait in the queue: what the workers finish in ``LADDER_LEAD_S`` at the
    ladder's pace over the last ``LADDER_RATE_WINDOW_S``, plus those playing now, within
    ``LADDER_MIN_BACKLOG``..``LADDER_MAX_BACKLOG``. Measured, so that it follows the fleet without settings:
    a queue that ran dry shows a pace as high as the workers went, and the next target is higher still
    (``LADDER_LEAD_S`` over ``LADDER_RATE_WINDOW_S`` times the matches the window saw)."""
    ladders = list(Tournament.objects.filter(kind=Tournament.Kind.LADDER).values_list("id", flat=True))
    since = now - timedelta(seconds=settings.LADDER_RATE_WINDOW_S)
    finished = Match.objects.filter(tournament_id__in=ladders, finished_at__gte=since).count()
    running = Match.objects.filter(status=Match.Status.RUNNING, priority=Match.Priority.LADDER).count()
    paced = math.ceil(finished / settings.LADDER_RATE_WINDOW_S * settings.LADDER_LEAD_S) + running
    return max(settings.LADDER_MIN_BACKLOG, min(settings.LADDER_MAX_BACKLOG, paced))


def ladder_field(*, game: Game, now: datetime) -> LadderField | None:
    """The candidates of ``game``'s ladder (module ``ladder.ratings.pairing``), or None when it has fewer
    entrants than a match seats. Reads the ratings, the pair records, the ladder entries and the seats of the
    ladder's unplayed matches: a few rows per bot and pair, none per finished match."""
    ratings = list(Rating.objects.filter(game=game, bot__in=ladder_entrants(game=game)).values_list("bot_id", "elo"))
    if len(ratings) < max(2, game.min_players):
        return None
    tournament = ladder_tournament_get(game=game)
    elo = dict(ratings)
    owners = rated_owner_keys(bot_ids=elo)
    versions = current_versions(list(elo))
    entries = {entry.bot_id: entry for entry in LadderEntry.objects.filter(tournament=tournament, bot_id__in=elo)}
    pairs = list(PairRecord.objects.filter(game=game).values_list("bot_low_id", "bot_high_id", "weight"))
    # Games scheduled and not yet played count as played, or the next ticks would choose them again.
    pairs += _unplayed_pairs(tournament)
    deviations = candidate_deviations(elo, pairs)
    # Whether the ladder still learns is judged on what the games say of the strengths (the leaderboard's
    # intervals), not on the online Elo's wander that the pairing allows for.
    spread = candidate_deviations(elo, pairs, jitter=0.0)
    players = tournament.players_per_match
    candidates = []
    for bot_id, rating in elo.items():
        entry = entries.get(bot_id)
        version_games = entry.version_games if entry and entry.version_id == versions[bot_id] else 0
        waited = math.inf if entry is None or entry.last_scheduled_at is None else (
            (now - entry.last_scheduled_at).total_seconds())
        owner = owners.get(bot_id)
        candidates.append(Candidate(
            bot_id=bot_id, owner_id=-bot_id if owner is None else owner, elo=rating, deviation=deviations[bot_id],
            waited_s=waited, seat_counts=tuple((entry.seat_counts if entry else [])[:players]), games=version_games,
        ))
    widest = _widest_in_doubt(elo, spread)
    provisional = any(c.games < settings.LADDER_PROVISIONAL_GAMES for c in candidates)
    last = max((e.last_scheduled_at for e in entries.values() if e.last_scheduled_at), default=None)
    return LadderField(tournament=tournament, candidates=candidates, versions=versions,
                       learning=provisional or widest > settings.LADDER_TARGET_HALF_WIDTH, widest=widest,
                       last_scheduled_at=last, pair_games=pairs, apart=held_pairs(game_id=game.id))


#: A bot's order against another is in doubt while the chance that it is the other way round is this or more.
ORDER_DOUBT = 1.0 - SETTLED_P


def _widest_in_doubt(elo: dict[int, float], deviation: dict[int, float]) -> float:
    """The widest half width of a 95% interval among the bots whose order against some other bot is in
    doubt (:data:`ORDER_DOUBT`); 0 when every order is certain. A bot that beats everyone keeps a wide
    interval (only the prior bounds how much stronger it is), but nothing more is to be learnt of the order
    from its games."""
    bots = list(elo)
    misorder = misorder_probabilities(np.array([elo[b] for b in bots]), np.array([deviation[b] for b in bots]))
    doubtful = misorder.max(axis=1) >= ORDER_DOUBT
    return max((half_width(deviation[b]) for b, d in zip(bots, doubtful) if d), default=0.0)


def _unplayed_pairs(tournament: Tournament) -> list[tuple[int, int, float]]:
    """(a, b, 2/N) for every pair of bots at the table of each queued or running match of ``tournament``."""
    tables: dict[int, list[int]] = {}
    rows = Seat.objects.filter(match__tournament=tournament,
                               match__status__in=[Match.Status.QUEUED, Match.Status.RUNNING])
    for match_id, bot_id in rows.values_list("match_id", "bot_id"):
        tables.setdefault(match_id, []).append(bot_id)
    return [(a, b, 2.0 / len(bots)) for bots in tables.values() for a, b in itertools.combinations(bots, 2)]


def _maintenance_due(field: LadderField, *, now: datetime) -> int:
    """Matches a settled ladder owes at ``LADDER_MAINTENANCE_PER_HOUR`` since its last scheduled one."""
    if field.last_scheduled_at is None:
        return 1
    elapsed = (now - field.last_scheduled_at).total_seconds()
    return int(elapsed * settings.LADDER_MAINTENANCE_PER_HOUR / 3600.0)


def ladder_tick(*, now: datetime | None = None, rng: random.Random | None = None,
                matches_per_game: int | None = None) -> dict[str, int]:
    """Top the ladders up; returns the matches scheduled per game slug.

    Nothing while a tournament's or comparison's match or an upload check waits
    (:func:`priority_work_waiting`). Otherwise the games still learning (``LadderField.learning``) share the
    room below :func:`ladder_backlog_target`, and a settled game gets its maintenance games. The groups are
    ``ladder.ratings.pairing.select_groups``'s: the most informative about the order, new versions first,
    no bot waiting past ``LADDER_MAX_WAIT_S``, balanced seats, never two bots of one owner.

    ``matches_per_game`` asks for that many groups of every game instead, learning or not, whatever the
    queue holds (still nothing while other work waits): a burst on demand, and what tests ask for.
    """
    if not settings.LADDER_ENABLED or priority_work_waiting():
        return {}
    now = now or timezone.now()
    rng = rng or random.Random()
    if matches_per_game is not None:
        room = matches_per_game
    else:
        target = ladder_backlog_target(now=now)
        queued = Match.objects.filter(status=Match.Status.QUEUED, priority=Match.Priority.LADDER).count()
        room = target - queued
        logger.info("ladder tick: %d queued of a target of %d", queued, target)
    if room <= 0:
        return {}
    fields = [f for game in Game.objects.filter(available=True) if (f := ladder_field(game=game, now=now))]
    learning = [f for f in fields if f.learning]
    scheduled: dict[str, int] = {}
    for field in fields:
        if matches_per_game is not None:
            count = matches_per_game
        elif field.learning:
            count = math.ceil(room / len(learning))
        else:
            count = min(room, _maintenance_due(field, now=now))
        if count > 0 and (made := _schedule(field, count=count, now=now, rng=rng)):
            scheduled[field.tournament.game.slug] = made
    if scheduled:
        logger.info("ladder tick: scheduled %s (learning: %s)", scheduled,
                    ", ".join(f"{f.tournament.game.slug} +-{f.widest:.0f}" for f in learning) or "none")
    return scheduled


def _schedule(field: LadderField, *, count: int, now: datetime, rng: random.Random) -> int:
    """Create up to ``count`` of the field's groups as matches and count them in its entries."""
    players = field.tournament.players_per_match
    groups = select_groups(field.candidates, players=players, count=count, rng=rng,
                           max_wait_s=settings.LADDER_MAX_WAIT_S,
                           provisional_games=settings.LADDER_PROVISIONAL_GAMES,
                           settling_games=settings.LADDER_PROVISIONAL_GAMES,
                           apart=field.apart, pair_games=field.pair_games, pair_share=settings.LADDER_PAIR_SHARE)
    if not groups:
        return 0
    with transaction.atomic():
        # Ticks of one game take turns on its ladder row, so match indexes and entry counts never race.
        tournament = Tournament.objects.select_for_update(of=("self",)).select_related("game").get(
            id=field.tournament.id)
        # Max is None for a ladder without matches, and 0 (falsy, but taken) after its first one.
        highest = tournament.matches.aggregate(n=Max("index"))["n"]
        first = 0 if highest is None else highest + 1
        matches_create(tournament=tournament, seatings=groups, first_index=first, priority=Match.Priority.LADDER)
        ladder_entries_count(tournament=tournament, groups=groups, versions=field.versions, now=now)
    return len(groups)


def ladder_entries_count(*, tournament: Tournament, groups: list[tuple[int, ...]], versions: dict[int, int],
                         now: datetime) -> None:
    """Count ``groups`` (seat orders) as scheduled in their bots' ladder entries, creating missing ones.
    The caller holds the ladder's row locked. Three statements whatever the number of groups."""
    players = tournament.players_per_match
    bucket = int(now.timestamp()) // RECENT_STEP_S
    oldest = bucket - RECENT_STEPS
    entries = {e.bot_id: e for e in LadderEntry.objects.filter(
        tournament=tournament, bot_id__in={bot for group in groups for bot in group})}
    fresh = []
    for group in groups:
        for seat, bot_id in enumerate(group):
            entry = entries.get(bot_id)
            if entry is None:
                entry = entries[bot_id] = LadderEntry(tournament=tournament, bot_id=bot_id, seat_counts=[], recent={})
                fresh.append(entry)
            counts = list(entry.seat_counts) + [0] * max(0, players - len(entry.seat_counts))
            counts[seat] += 1
            entry.seat_counts = counts
            entry.scheduled += 1
            entry.last_scheduled_at = now
            if entry.version_id != versions.get(bot_id):
                entry.version_id, entry.version_games = versions.get(bot_id), 0
            entry.version_games += 1
            recent = {key: n for key, n in entry.recent.items() if int(key) > oldest}
            recent[str(bucket)] = recent.get(str(bucket), 0) + 1
            entry.recent = recent
    LadderEntry.objects.bulk_create(fresh)
    LadderEntry.objects.bulk_update([e for e in entries.values() if e not in fresh],
                                    ["seat_counts", "scheduled", "last_scheduled_at", "version", "version_games",
                                     "recent"])
