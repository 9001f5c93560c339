"""Reading matches: lists, one match with its seats, seat results for the tables, logs, and replays.

Public reads leave out the bulky private columns (bot code, the seats' packed logs and decisions,
``Seat.logs``); logs and decisions come only through ``ladder.selectors.access``. Every read of matches takes
the reader and keeps to ``access.matches_readable_by``: a version comparison's matches exist for its owner
and staff only.
"""

from __future__ import annotations

import base64
import dataclasses
import hashlib
import json
from collections.abc import Callable, Iterable, Iterator
from typing import TypeVar

from django.db.models import Prefetch, Q, QuerySet

import engines
from bots.bundle_format import BUNDLE_FORMAT, BUNDLE_FORMAT_VERSION
from ladder import seat_logs
from ladder.core.errors import ServiceError
from ladder.core.limits import sandbox_limits
from ladder.core.rated_play import match_seed_visible
from ladder.models import Game, Match, Seat, Tournament
from ladder.ratings.tables import PlacedSeat
from ladder.selectors import access

T = TypeVar("T")

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
    return seat_results(seat_filter & Q(match__status=Match.Status.FINISHED))


def seat_results(seat_filter: Q) -> dict[int, list[PlacedSeat]]:
    """The seats matching ``seat_filter``, as :func:`seat_results_by_match` reads them, in match order. One
    query, on the seats alone unless the filter names the match: for seats of matches already known to be
    finished (their ids read from finished matches), where joining the matches again only to check their
    status gives the planner an estimate to get wrong. With statistics taken while few matches had
    finished, it put the status filter's one expected row on the outer side of a nested loop over the
    seats: 16 s for a bot page at 10,000 matches, against 0.07 s."""
    rows = (
        Seat.objects.filter(seat_filter)
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
        .select_related("game", "tournament", "setup")
        .defer("actions_json", "actions_packed")
        .prefetch_related(Prefetch("seats", queryset=_public_seats()))
    )


def match_get(*, match_id: int, user) -> Match:
    """One match ``user`` may see with its game, tournament and seats (bot, owner, version; logs left
    out), or ServiceError 404 (the same for a match hidden from ``user`` as for none). Two queries."""
    match = (
        Match.objects.filter(access.matches_readable_by(user))
        .select_related("game", "tournament", "setup")
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
        .select_related("game", "tournament", "setup")
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


#: The one answer for each reason a replay cannot be had, for the API and the site alike: 409 for what
#: changes with time or data (the match is still to finish, a rated deal's seed still secret, stored actions
#: the engine refuses), 410 for what never comes back on this server (the game or that rules version gone).
REPLAY_STATUS = {
    "unfinished": 409,
    "seed_secret": 409,
    "game_missing": 410,
    "rules_changed": 410,
    "does_not_fit": 409,
}


class ReplayUnavailable(ServiceError):
    """Why a match cannot be replayed (or bundled) now: ``reason`` is a key of :data:`REPLAY_STATUS`, which
    gives its ``status``. The match's actions and its result stay readable."""

    def __init__(self, message: str, *, reason: str) -> None:
        super().__init__(message, status=REPLAY_STATUS[reason])
        self.reason = reason


@dataclasses.dataclass(frozen=True)
class Step:
    """What happened on the way to one step of a replay: ``actor`` took ``action`` (both None at step 0).
    Step ``s`` is the position after ``s`` actions."""

    step: int
    actor: int | None
    action: str | None
    to_move: int | None
    scores: list[int]

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


@dataclasses.dataclass(frozen=True)
class Position:
    """One step of a replay and the spectator ``view()`` of the game there."""

    step: Step
    view: dict


def action_text(action) -> str:
    """An action as compact JSON, the form bots and their authors read it in."""
    return json.dumps(action, separators=(", ", ": "), sort_keys=True)


def _replayed(*, game: str, players: int, seed: int, options: dict | None, actions: list,
              upto: int | None = None) -> Iterator[tuple[Step, object]]:
    """The one replay loop: each ``Step`` from 0 to ``upto`` (all by default) with the engine's state there
    (valid until the next step is taken). ReplayUnavailable ``game_missing`` for a game not installed,
    ``does_not_fit`` for options or an action the installed rules refuse or fail on."""
    try:
        state = engines.get(game).new_state(players, seed, options or None)
    except KeyError as error:
        raise ReplayUnavailable(f"{error.args[0]}.", reason="game_missing") from error
    except Exception as error:  # noqa: BLE001 - options the installed rules refuse or fail on: no replay
        raise ReplayUnavailable(f"its options do not fit the {game} rules as installed now "
                                f"({type(error).__name__}: {error}).", reason="does_not_fit") from error
    yield Step(step=0, actor=None, action=None, to_move=state.current_player(), scores=list(state.scores())), state
    for index, action in enumerate(actions if upto is None else actions[:upto]):
        actor = state.current_player()
        try:
            state.apply(action)
        # A stored action the engine refuses (IllegalAction) or chokes on (a malformed value) is one fact:
        # the match's actions no longer fit the installed rules.
        except Exception as error:  # noqa: BLE001
            raise ReplayUnavailable(
                f"its stored actions do not fit the {game} rules as installed now: action {index + 1} "
                f"({action_text(action)}) does not fit them ({type(error).__name__}: {error}).",
                reason="does_not_fit",
            ) from error
        yield Step(step=index + 1, actor=actor, action=action_text(action), to_move=state.current_player(),
                   scores=list(state.scores())), state


def replay_timeline(*, game: str, players: int, seed: int, options: dict | None, actions: list) -> list[Step]:
    """One ``Step`` per position of a recorded game, ``len(actions) + 1`` of them. Raises ReplayUnavailable."""
    return [step for step, _state in _replayed(game=game, players=players, seed=seed, options=options,
                                               actions=actions)]


def replay_position(*, game: str, players: int, seed: int, options: dict | None, actions: list,
                    step: int) -> Position:
    """The position after ``step`` actions (clamped to the game) of a recorded game, replaying no further.
    Raises ReplayUnavailable."""
    step = max(0, min(step, len(actions)))
    for info, state in _replayed(game=game, players=players, seed=seed, options=options, actions=actions,
                                 upto=step):
        if info.step == step:
            return Position(step=info, view=state.view())
    raise AssertionError("unreachable: the replay yields every step up to its end")


def replay_views(*, game: str, players: int, seed: int, options: dict | None, actions: list) -> list[dict]:
    """The spectator ``view()`` at every step of a recorded game. Raises ReplayUnavailable."""
    return [state.view() for _step, state in _replayed(game=game, players=players, seed=seed, options=options,
                                                       actions=actions)]


_STILL_READABLE = ("Its actions and its result (scores, places, outcomes) can still be read "
                   "(GET /api/matches/{id}/ and the match's page).")


def _match_to_read(*, match_id: int, user) -> Match:
    """The match with its game and tournament, or ServiceError 404 for no such match or one hidden from
    ``user`` (``access.matches_readable_by``). One query."""
    match = (Match.objects.filter(access.matches_readable_by(user)).select_related("game", "tournament", "setup")
             .filter(pk=match_id).first())
    if match is None:
        raise ServiceError(f"no match with id {match_id}", status=404)
    return match


def _wait_reason(*, match: Match, what: str) -> ReplayUnavailable | None:
    """Why ``match``'s ``what`` (its replay, its bundle) does not exist yet: ``unfinished`` until it
    finished, ``seed_secret`` for a rated duplicate deal's rotation until its tournament finished
    (``rated_play.match_seed_visible``: the deal's seed is secret until then). Reads ``match.tournament``."""
    if match.status != Match.Status.FINISHED:
        return ReplayUnavailable(f"match {match.id} is {match.status}; its {what} exists once it finished: poll "
                                 f"GET /api/matches/{match.id}/ until status is finished", reason="unfinished")
    if not match_seed_visible(match):
        return ReplayUnavailable(f"match {match.id} is one rotation of a rated deal whose other rotations share "
                                 f"its secret seed; its {what} exists once its tournament finished",
                                 reason="seed_secret")
    return None


def replay_unavailable_reason(*, match: Match) -> ReplayUnavailable | None:
    """Why ``match`` cannot be replayed now, before trying: not finished or its seed still secret, its game
    no longer installed, or played under another ``rules_version``. None when it may be tried, also for a
    match stored without a version (scheduled by code that did not record it, so under the rules installed
    then): an engine failure on its actions is then ``does_not_fit``. Reads ``match.game`` and
    ``match.tournament``."""
    waiting = _wait_reason(match=match, what="replay")
    if waiting is not None:
        return waiting
    try:
        game = engines.get(match.game.slug)
    except KeyError:
        return ReplayUnavailable(f"match {match.id} cannot be replayed: the game {match.game.slug!r} is not "
                                 f"installed on this server. {_STILL_READABLE.format(id=match.id)}",
                                 reason="game_missing")
    if match.rules_version is not None and match.rules_version != game.rules_version:
        return ReplayUnavailable(
            f"match {match.id} was played under version {match.rules_version} of the {match.game.slug} rules, "
            f"and the server now plays version {game.rules_version}: the rules changed since, so its moves "
            f"cannot be replayed. {_STILL_READABLE.format(id=match.id)}", reason="rules_changed",
        )
    return None


def _of_match(match: Match, replay: Callable[..., T], **arguments) -> T:
    """``replay(game=..., players=..., seed=..., options=..., actions=..., **arguments)`` for ``match``,
    refused first for every reason :func:`replay_unavailable_reason` knows, and an engine failure on its
    actions said of the match."""
    refused = replay_unavailable_reason(match=match)
    if refused is not None:
        raise refused
    try:
        return replay(game=match.game.slug, players=match.players, seed=match.seed, options=match.options,
                      actions=match.actions, **arguments)
    except ReplayUnavailable as error:
        raise ReplayUnavailable(f"match {match.id} cannot be replayed: {error.message} "
                                f"{_STILL_READABLE.format(id=match.id)}", reason=error.reason) from error


def match_timeline(*, match: Match) -> list[Step]:
    """The timeline of ``match`` (read with its game and tournament): one ``Step`` per position. Raises
    ReplayUnavailable (:data:`REPLAY_STATUS` gives the answer for each reason)."""
    return _of_match(match, replay_timeline)


def match_position(*, match: Match, step: int) -> Position:
    """The position of ``match`` after ``step`` actions (clamped). Raises ReplayUnavailable."""
    return _of_match(match, replay_position, step=step)


def match_replay(*, match_id: int, user) -> dict:
    """``{"actions", "frames"}`` of a finished match: the spectator view before the first action and after
    each one, recomputed by the engine. One query.

    ServiceError 404 for no such match (or one hidden from ``user``); otherwise ReplayUnavailable for
    every reason of :data:`REPLAY_STATUS` (409 until it finished, 410 under another ``rules_version``...).
    """
    match = _match_to_read(match_id=match_id, user=user)
    return {"actions": match.actions, "frames": _of_match(match, replay_views)}


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
    match = _match_to_read(match_id=match_id, user=user)
    waiting = _wait_reason(match=match, what="bundle")
    if waiting is not None:
        raise waiting
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
