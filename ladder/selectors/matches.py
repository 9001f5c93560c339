"""Reading matches: lists, one match with its seats, seat results for the tables, logs, and replays.

Public reads leave out the bulky private columns (bot code, the seats' packed logs and decisions,
``Seat.logs``); logs and decisions come only through ``ladder.services.access``. Every read of matches takes
the reader and keeps to ``access.matches_readable_by``: a version comparison's matches exist for its owner
and staff only.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
from collections.abc import Iterable

from django.db.models import Prefetch, Q, QuerySet

import engines
from ladder import seat_logs
from ladder.models import Game, Match, Seat, Tournament
from ladder.ratings.tables import PlacedSeat
from ladder.services import access
from ladder.services.errors import ServiceError
from ladder.services.rated_play import match_seed_visible

# Recent matches listed on the home, leaderboard, bot and tournament pages.
RECENT_MATCHES = 15


def seat_results_by_match(rows: Iterable[tuple]) -> dict[int, list[PlacedSeat]]:
    """``(match_id, bot_id, place, score, outcome)`` rows, sorted by match then seat, as the match data of
    ``ladder.ratings.tables``, by match id.

    A seat forfeited when ``Seat.outcome_forfeits`` says so. A finished match always has places; a seat
    without one (a corrupt row) is read as last of its match rather than dropped or failing the page.
    """
    grouped: dict[int, list[tuple]] = {}
    for match_id, *seat in rows:
        grouped.setdefault(match_id, []).append(seat)
    return {
        match_id: [
            PlacedSeat(bot_id, place or len(seats), score or 0, Seat.outcome_forfeits(outcome))
            for bot_id, place, score, outcome in seats
        ]
        for match_id, seats in grouped.items()
    }


def finished_seat_results(seat_filter: Q) -> dict[int, list[PlacedSeat]]:
    """The seats matching ``seat_filter`` of finished matches, as :func:`seat_results_by_match` reads them,
    in match order. One query."""
    rows = (
        Seat.objects.filter(seat_filter, match__status=Match.Status.FINISHED)
        .order_by("match_id", "position")
        .values_list("match_id", "bot_id", "place", "score", "outcome")
    )
    return seat_results_by_match(rows)


def _public_seats() -> QuerySet[Seat]:
    return (
        Seat.objects.select_related("bot", "bot__owner", "bot_version")
        .defer("logs", "bot_version__code")
        .order_by("position")
    )


def matches_listed(*, user) -> QuerySet[Match]:
    """Every match ``user`` may see (``access.matches_readable_by``) with its game, tournament (whether it
    is rated, for the seed) and seats (bot, owner, version) prefetched: two queries per page, and no
    ``actions`` (a list shows no moves)."""
    return (
        Match.objects.filter(access.matches_readable_by(user))
        .select_related("game", "tournament")
        .defer("actions")
        .prefetch_related(Prefetch("seats", queryset=_public_seats()))
    )


def match_get(*, match_id: int, user) -> Match:
    """One match ``user`` may see with its game, tournament and seats (bot, owner, version; logs left
    out), or ServiceError 404 (the same for a match hidden from ``user`` as for none). Two queries."""
    match = (
        Match.objects.filter(access.matches_readable_by(user))
        .select_related("game", "tournament")
        .prefetch_related(Prefetch("seats", queryset=_public_seats()))
        .filter(pk=match_id)
        .first()
    )
    if match is None:
        raise ServiceError(f"no match with id {match_id}", status=404)
    return match


def finished_matches_with_seats() -> QuerySet[Match]:
    """Finished matches with their game, tournament (whether its logs are withheld) and seats (bot; logs
    left out) prefetched."""
    seats = Seat.objects.select_related("bot").defer("logs").order_by("position")
    return (
        Match.objects.filter(status=Match.Status.FINISHED)
        .select_related("game", "tournament")
        .prefetch_related(Prefetch("seats", queryset=seats))
    )


def recent_matches(*, user=None, game: Game | None = None, tournament: Tournament | None = None,
                   limit: int = RECENT_MATCHES) -> list[Match]:
    """The newest finished matches ``user`` may see (by id, which follows scheduling; no user: the public
    ones), with their seats and bots."""
    matches = finished_matches_with_seats().filter(access.matches_readable_by(user))
    if game is not None:
        matches = matches.filter(game=game)
    if tournament is not None:
        matches = matches.filter(tournament=tournament)
    return list(matches.order_by("-id")[:limit])


def match_private_by_position(*, match: Match, user) -> dict[int, tuple[str, list]]:
    """``(log, decisions)`` of each seat of ``match`` whose private record ``user`` may read (``access``:
    their own bots' seats, every seat for staff), by seat position; none while ``access.match_logs_withheld``
    withholds them (a rated match's, until its seed is shown). One query however many seats and decisions;
    none for a visitor who is not logged in, or while withheld. Reads ``match.tournament``."""
    if access.match_logs_withheld(match) is not None:
        return {}
    seats = access.seats_with_logs_readable_by(user).filter(match=match).order_by("position")
    unpacked = {position: seat_logs.unpack(logs) for position, logs in seats.values_list("position", "logs")}
    return {position: (logs.log, logs.decisions) for position, logs in unpacked.items()}


class ReplayUnavailable(ServiceError):
    """A finished match that cannot be replayed by the engine installed now: its game's rules changed
    since it was played (410), or its stored actions do not fit them (409). Its actions and its result
    stay readable."""


def replay_unavailable_reason(*, match: Match) -> ReplayUnavailable | None:
    """Why ``match`` (finished) cannot be replayed by the installed rules, before trying: its game is no
    longer installed, or it was played under another ``rules_version``. None when the versions agree, and
    for a match stored without a version (scheduled by code that did not record it, so under the rules
    installed then): its replay is tried, and an engine failure is :func:`replay_failed`."""
    try:
        game = engines.get(match.game.slug)
    except KeyError:
        return ReplayUnavailable(f"match {match.id} cannot be replayed: the game {match.game.slug!r} is not "
                                 "installed on this server. Its actions and its result can still be read "
                                 f"(GET /api/matches/{match.id}/ and the match's page).", status=410)
    if match.rules_version is not None and match.rules_version != game.rules_version:
        return ReplayUnavailable(
            f"match {match.id} was played under version {match.rules_version} of the {match.game.slug} rules, "
            f"and the server now plays version {game.rules_version}: the rules changed since, so its moves "
            f"cannot be replayed. Its actions and its result (scores, places, outcomes) can still be read "
            f"(GET /api/matches/{match.id}/ and the match's page).", status=410,
        )
    return None


def replay_failed(*, match: Match, error: Exception) -> ReplayUnavailable:
    """The answer for a match whose stored actions the engine refused or failed on while replaying."""
    return ReplayUnavailable(
        f"match {match.id} cannot be replayed: its stored actions do not fit the {match.game.slug} rules as "
        f"installed now ({type(error).__name__}: {error}). Its actions and its result (scores, places, "
        f"outcomes) can still be read (GET /api/matches/{match.id}/ and the match's page).", status=409,
    )


def _finished_match_to_read(*, match_id: int, what: str, user) -> Match:
    """The match (with its game and tournament) whose ``what`` (its replay, its bundle) ``user`` may read:
    ServiceError 404 for no such match or one hidden from ``user`` (``access.matches_readable_by``), 409
    until it finished, and 409 for a rated duplicate deal's rotation until its tournament finished
    (``rated_play.match_seed_visible``: the deal's seed is secret until then)."""
    match = (Match.objects.filter(access.matches_readable_by(user)).select_related("game", "tournament")
             .filter(pk=match_id).first())
    if match is None:
        raise ServiceError(f"no match with id {match_id}", status=404)
    if match.status != Match.Status.FINISHED:
        raise ServiceError(f"match {match_id} is {match.status}; its {what} exists once it finished: poll "
                           f"GET /api/matches/{match_id}/ until status is finished", status=409)
    if not match_seed_visible(match):
        raise ServiceError(f"match {match_id} is one rotation of a rated deal whose other rotations share its "
                           f"secret seed; its {what} exists once its tournament finished", status=409)
    return match


def match_replay(*, match_id: int, user) -> dict:
    """``{"actions", "frames"}`` of a finished match: the spectator view before the first action and after
    each one, recomputed by the engine.

    ServiceError 404 for no such match (or one hidden from ``user``), 409 until it finished (a rated
    duplicate deal's rotation: until its tournament finished, ``rated_play.match_seed_visible``);
    ``ReplayUnavailable`` (410) when it was
    played under another ``rules_version`` of its game, or (409) when the engine fails on its actions.
    """
    match = _finished_match_to_read(match_id=match_id, what="replay", user=user)
    unavailable = replay_unavailable_reason(match=match)
    if unavailable is not None:
        raise unavailable
    try:
        frames = engines.replay(match.game.slug, match.players, match.seed, match.options, match.actions)
    except Exception as error:  # noqa: BLE001 - any engine fault on stored actions is this one answer
        raise replay_failed(match=match, error=error) from error
    return {"actions": match.actions, "frames": frames}


#: What a match bundle says it is, and the version of its shape (``bots.play`` reads both).
BUNDLE_FORMAT = "bot-ladder-match"
BUNDLE_FORMAT_VERSION = 1


def match_bundle(*, match_id: int, user) -> dict:
    """A finished match as one JSON object to take home and replay (``manage.py play --from-bundle``).

    ``{"format", "format_version", "match", "game", "rules_version", "players", "seed", "options", "limits",
    "actions", "seats": [{"position", "bot", "bot_id", "version", "outcome", "score", "place", "code"}]}``:
    ``limits`` are every limit the match was played under (the settings', for a match stored without
    them), and ``code`` is ``{"kind": "py" | "zip", "sha256", "base64"}`` for the seats whose bot version
    ``user`` may read (``access.bot_versions_readable_by``: their own bots, every bot for staff), null for
    the others. ServiceError 404 for no such match (or one hidden from ``user``), 409 until it finished,
    and, like its replay, for a rated
    duplicate deal's rotation until its tournament finished (its seed is secret until then). Three queries.
    """
    from ladder.services.bots import sandbox_limits

    match = _finished_match_to_read(match_id=match_id, what="bundle", user=user)
    seats = list(match.seats.select_related("bot", "bot_version").defer("logs", "bot_version__code")
                 .order_by("position"))
    readable = access.bot_versions_readable_by(user).filter(id__in=[seat.bot_version_id for seat in seats])
    code = {version.id: version for version in readable.only("id", "code", "kind", "sha256")}
    return {
        "format": BUNDLE_FORMAT,
        "format_version": BUNDLE_FORMAT_VERSION,
        "match": match.id,
        "game": match.game.slug,
        "rules_version": match.rules_version,
        "players": match.players,
        "seed": match.seed,
        "options": match.options,
        "limits": dataclasses.asdict(sandbox_limits(game=match.game.slug, overrides=match.limits)),
        "actions": match.actions,
        "seats": [
            {"position": seat.position, "bot": seat.bot.name, "bot_id": seat.bot_id,
             "version": seat.bot_version.number, "outcome": seat.outcome, "score": seat.score, "place": seat.place,
             "code": _bundled_code(code.get(seat.bot_version_id))}
            for seat in seats
        ],
    }


def _bundled_code(version) -> dict | None:
    if version is None:
        return None
    data = bytes(version.code)
    return {"kind": version.kind, "sha256": hashlib.sha256(data).hexdigest(),
            "base64": base64.b64encode(data).decode("ascii")}
