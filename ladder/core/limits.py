"""The sandbox limits a match is played under: global settings, per game, per tournament.

Resolution, later wins: the referee's ``Limits`` defaults <- the global settings (``BOTS_MOVE_MS``,
``BOTS_BANK_MS``, ``BOTS_MATCH_MS``, ``BOTS_MEMORY_MB``, ``BOTS_LOG_BYTES``) <-
``BOTS_LIMITS_BY_GAME[game]`` <- the tournament's overrides (``Tournament.limits``). :func:`limits_resolve`
gives every field of ``Limits``; it runs once, when a match is scheduled, and the result is stored on the
match (``Match.limits``), so that a match is played, retried and read back under exactly those limits
whatever the settings say later. A match stored with ``{}`` (scheduled before matches recorded their
limits) is played under the settings of the moment, and so is any limit its stored dict lacks
(``match_ms`` for matches scheduled before it existed): those settings are held to today's caps, which
the referee's fixed default might not be.

A tournament may set only the limits in :data:`TOURNAMENT_LIMITS`, each between its floor and a
server-side cap (``BOTS_MAX_*``). The global and per-game settings are held to the same floors and caps,
so the caps bound every match; ``ladder/checks.py`` holds the caps against the match time limits. Only
staff (and the server itself) may loosen a limit beyond the game's own value, up to the cap: anyone
else's tournament may only tighten them (:func:`tournament_limits_check`), so what a user's match can
cost the workers and the database is what the operator configured for the game.

:func:`match_worst_case_s` is the longest a match can take under its limits, whatever its bots do: the
bound the system check holds the caps to, and what a user's budget of worker time reserves for each
match until it is played (``ladder.core.worker_time``). An upload check's smoke match has no limits
of its own: it is played under those of its game's rated ladder matches
(``ladder.services.tournaments.ladder.ladder_match_setup``), so that no bot can tell it from one by its clock.

No database access here: these are rules over settings and plain dicts.
"""

from __future__ import annotations

import dataclasses
import logging
from collections.abc import Mapping
from functools import cache

from django.conf import settings
from django.core.exceptions import ImproperlyConfigured

import engines
from bots.limits import Limits
from ladder.core.errors import ServiceError

logger = logging.getLogger(__name__)


@dataclasses.dataclass(frozen=True)
class Settable:
    """A limit a tournament may choose: its floor, the setting holding its cap, what it means."""

    minimum: int
    cap_setting: str
    default_setting: str
    help: str


#: The user-facing limits: what a tournament may override, and what the global settings set.
TOURNAMENT_LIMITS: dict[str, Settable] = {
    # Below about 10 ms the scheduler's jitter decides, not the bot.
    "move_ms": Settable(10, "BOTS_MAX_MOVE_MS", "BOTS_MOVE_MS",
                        "Wall-clock milliseconds of every decision before the time bank is drawn on."),
    # Zero is meaningful: every decision must fit in move_ms.
    "bank_ms": Settable(0, "BOTS_MAX_BANK_MS", "BOTS_BANK_MS",
                        "Milliseconds per bot per match for decisions that outrun move_ms (a chess clock)."),
    # Below about 10 ms the scheduler's jitter decides; the cap is what bounds a match's length.
    "match_ms": Settable(10, "BOTS_MAX_MATCH_MS", "BOTS_MATCH_MS",
                         "Wall-clock milliseconds of all of a bot's decisions in one match; a bot that "
                         "spends them forfeits."),
    "memory_mb": Settable(16, "BOTS_MAX_MEMORY_MB", "BOTS_MEMORY_MB", "Memory cap of each bot process (MiB)."),
    # Zero keeps no log at all, which is a choice, not a fault.
    "log_bytes": Settable(0, "BOTS_MAX_LOG_BYTES", "BOTS_LOG_BYTES", "Bytes of each bot's log kept per seat."),
}


#: Seconds a match may spend outside its bots' clocks: spawning them, the engine, the referee's protocol
#: work, recording. A five-player carcassonne_dice match of 2,700 decisions costs under one second of
#: that on a small virtual machine; ten leaves room for slower machines and longer games.
MATCH_OVERHEAD_S = 10


def match_worst_case_s(*, players: int, limits: Mapping[str, int]) -> float:
    """The longest a match of ``players`` seats can last under ``limits`` (every limit resolved): the seats
    start and think in turn, and the referee forfeits a seat past its ``start_ms`` or its ``match_ms``,
    so ``players x (start_ms + match_ms)`` plus :data:`MATCH_OVERHEAD_S`. ``move_ms`` and ``bank_ms``
    shape single decisions and are bounded by ``match_ms``."""
    return players * (limits["start_ms"] + limits["match_ms"]) / 1000 + MATCH_OVERHEAD_S


@cache
def limit_names() -> tuple[str, ...]:
    """Every field of the referee's ``Limits``, in declaration order."""
    return tuple(field.name for field in dataclasses.fields(Limits))


@cache
def _referee_defaults() -> dict[str, int]:
    return dataclasses.asdict(Limits())


def limit_floor(name: str) -> int:
    """The smallest value ``name`` may take; the limits no tournament sets must be positive."""
    settable = TOURNAMENT_LIMITS.get(name)
    return settable.minimum if settable else 1


def limit_cap(name: str) -> int | None:
    """The server's cap on ``name`` (``BOTS_MAX_*``), or None for the limits no tournament sets."""
    settable = TOURNAMENT_LIMITS.get(name)
    return getattr(settings, settable.cap_setting) if settable else None


def limit_value_problem(name: str, value: object) -> str | None:
    """Why ``value`` cannot be limit ``name`` (a known name is assumed), or None if it can."""
    if isinstance(value, bool) or not isinstance(value, int):
        return f"must be a whole number, not {value!r}"
    floor = limit_floor(name)
    if value < floor:
        return f"must be at least {floor}"
    cap = limit_cap(name)
    if cap is not None and value > cap:
        return f"may be at most {cap} (the server's cap, {TOURNAMENT_LIMITS[name].cap_setting})"
    return None


def limits_global() -> dict[str, object]:
    """The global limit settings (``BOTS_MOVE_MS``, ...) by limit name, as configured (unchecked)."""
    return {name: getattr(settings, settable.default_setting) for name, settable in TOURNAMENT_LIMITS.items()}


def _cap_problems() -> list[tuple[str, str]]:
    problems = []
    for settable in TOURNAMENT_LIMITS.values():
        cap = getattr(settings, settable.cap_setting)
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < settable.minimum:
            problems.append(("ladder.E003", f"{settable.cap_setting} = {cap!r}: must be a whole number of at "
                                            f"least {settable.minimum}"))
    return problems


def _global_problems() -> list[tuple[str, str]]:
    problems = _cap_problems()
    if problems:
        # Every value below is measured against the caps.
        return problems
    for name, value in limits_global().items():
        problem = limit_value_problem(name, value)
        if problem:
            problems.append(("ladder.E003", f"{TOURNAMENT_LIMITS[name].default_setting} = {value!r}: {problem}"))
    if not isinstance(settings.BOTS_LIMITS_BY_GAME, Mapping):
        problems.append(("ladder.E001", "BOTS_LIMITS_BY_GAME must be a JSON object of games, e.g. "
                                        '{"carcassonne_dice": {"move_ms": 500}}'))
    return problems


def _game_problems(game: str, overrides: object) -> list[tuple[str, str]]:
    where = f"BOTS_LIMITS_BY_GAME[{game!r}]"
    if game not in engines.names():
        return [("ladder.E001", f"{where}: no game {game!r} is installed; games: {', '.join(engines.names())}")]
    if not isinstance(overrides, Mapping):
        return [("ladder.E001", f"{where} must be a JSON object of limits, e.g. {{\"move_ms\": 500}}")]
    problems = []
    for name, value in overrides.items():
        if name not in limit_names():
            problems.append(("ladder.E002", f"{where}[{name!r}]: no such limit; limits: {', '.join(limit_names())}"))
            continue
        problem = limit_value_problem(name, value)
        if problem:
            problems.append(("ladder.E003", f"{where}[{name!r}] = {value!r}: {problem}"))
    return problems


def settings_problems() -> list[tuple[str, str]]:
    """Everything wrong with the limit settings, as ``(check id, message naming the setting)``: empty when
    the global limits, ``BOTS_LIMITS_BY_GAME`` and the caps are usable. The system check reports these."""
    problems = _global_problems()
    if problems:
        return problems
    for game, overrides in settings.BOTS_LIMITS_BY_GAME.items():
        problems += _game_problems(game, overrides)
    return problems


def limits_resolve(*, game_slug: str, overrides: Mapping[str, int] | None = None) -> dict[str, int]:
    """Every limit a match of ``game_slug`` is played under: ``Limits`` defaults <- global settings <-
    ``BOTS_LIMITS_BY_GAME[game_slug]`` <- ``overrides``.

    ``overrides`` are a tournament's (checked by :func:`tournament_limits_check`) or a match's stored
    limits; a name that is no field of ``Limits`` is a ValueError. Raises ImproperlyConfigured, naming the
    setting, when the settings this game depends on are unusable (the system check reports them at
    startup; a mistake about another game does not stop this one).
    """
    problems = _global_problems()
    by_game = {} if problems else settings.BOTS_LIMITS_BY_GAME.get(game_slug, {})
    if not problems and game_slug in settings.BOTS_LIMITS_BY_GAME:
        problems = _game_problems(game_slug, by_game)
    if problems:
        raise ImproperlyConfigured("; ".join(message for _, message in problems))
    unknown = sorted(set(overrides or {}) - set(limit_names()))
    if unknown:
        raise ValueError(f"no such limits: {', '.join(unknown)}")
    return {**_referee_defaults(), **limits_global(), **by_game, **(overrides or {})}


def limits_playable(stored: Mapping[str, int]) -> dict[str, int]:
    """A match's stored limits without names this version's ``Limits`` lacks (stored by a newer or older
    version during a rolling deploy): a worker plays the match under the rest rather than failing it.
    Names missing from ``stored`` stay missing, so :func:`limits_resolve` fills them from the settings."""
    known = set(limit_names())
    dropped = sorted(set(stored) - known)
    if dropped:
        logger.warning("ignoring stored limits this version does not know: %s", ", ".join(dropped))
    return {name: value for name, value in stored.items() if name in known}


def sandbox_limits(*, game: str | None = None, overrides: Mapping[str, int] | None = None):
    """The referee's ``Limits`` for a match of ``game``: the settings (the game's own over the global
    ones), under ``overrides`` (a match's stored limits; ``{}`` for a match stored without them).

    Without a game, the global settings alone. Stored names this version does not know are ignored
    (``limits_playable``); ImproperlyConfigured for unusable limit settings.
    """
    if game is None:
        return Limits(**limits_global())
    return Limits(**limits_resolve(game_slug=game, overrides=limits_playable(overrides or {})))


def sandbox_limit_caps():
    """The most a match on this server may be given, as the referee's ``Limits``: the server's cap
    (``BOTS_MAX_*``) of each limit a tournament may set, and of every other limit the largest the settings
    give any game (no match is played with more). What a bundle played locally is held to."""
    resolved = [dataclasses.asdict(sandbox_limits(game=game)) for game in engines.names()]
    resolved.append(dataclasses.asdict(sandbox_limits()))
    return Limits(**{name: limit_cap(name) or max(limits[name] for limits in resolved) for name in resolved[0]})


def tournament_limits_check(*, limits: object, game_slug: str | None = None, staff: bool = True) -> dict[str, int]:
    """A tournament's limit overrides, checked: a JSON object of names from :data:`TOURNAMENT_LIMITS`
    with whole-number values between each one's floor and the server's cap; and, unless ``staff``, at
    most the game's own value (``game_slug``'s limits from the settings): anyone but staff may tighten the
    sandbox, never loosen it. ``staff`` stands for the server's own tournaments too.

    Raises ServiceError naming the input at fault (``limits`` or ``limits.<name>``) and, past a maximum,
    the maximum allowed.
    """
    if limits is None:
        return {}
    if not isinstance(limits, Mapping):
        raise ServiceError("limits must be a JSON object such as {\"move_ms\": 500}", field="limits")
    for name, value in limits.items():
        if name not in TOURNAMENT_LIMITS:
            raise ServiceError(f"no limit {name!r} can be set; a tournament may set "
                               f"{', '.join(TOURNAMENT_LIMITS)}", field=f"limits.{name}")
        problem = limit_value_problem(name, value)
        if problem:
            raise ServiceError(f"{name} {problem}", field=f"limits.{name}")
    if not staff and game_slug is not None:
        _no_loosening(limits, game_slug=game_slug)
    return dict(limits)


def tournament_limits_allowed(*, game_slug: str, staff: bool) -> dict[str, int]:
    """The most each limit of :data:`TOURNAMENT_LIMITS` may be in a tournament of ``game_slug``: the
    server's cap for staff, the game's own limit for anyone else."""
    if staff:
        return {name: limit_cap(name) for name in TOURNAMENT_LIMITS}
    own = limits_resolve(game_slug=game_slug)
    return {name: own[name] for name in TOURNAMENT_LIMITS}


def _no_loosening(limits: Mapping[str, int], *, game_slug: str) -> None:
    """ServiceError for the first limit of ``limits`` above ``game_slug``'s own value."""
    own = limits_resolve(game_slug=game_slug)
    for name, value in limits.items():
        if value > own[name]:
            setting = TOURNAMENT_LIMITS[name].cap_setting
            raise ServiceError(
                f"{name} may be at most {own[name]} ({game_slug}'s own limit): a tournament may tighten the "
                f"sandbox limits, and only staff may loosen them, up to the server's cap ({setting} = "
                f"{limit_cap(name)})", field=f"limits.{name}")
