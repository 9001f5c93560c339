"""System checks of the ladder's settings, run by ``manage.py check``, ``migrate`` and ``runserver``.

A deployment whose sandbox limits, match time limits or lease do not fit together is refused before it
plays a match, with a message naming the setting to change (ids ``ladder.E001`` to ``ladder.E006``; an
upload check's smoke match is played under its game's own limits, so E004 bounds it as one match of the
game, which is what the check's task may take).
"""

from __future__ import annotations

from django.conf import settings
from django.core import checks

import engines
from ladder.core.limits import MATCH_OVERHEAD_S, limits_resolve, match_worst_case_s, settings_problems

#: Seconds a match may spend outside its bots' clocks (``limits.MATCH_OVERHEAD_S``).
ENGINE_MARGIN_S = MATCH_OVERHEAD_S


def sandbox_limits_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """The limit settings are usable (E001-E003), the caps fit in the match time limits (E004, E005: they
    bound every match and every upload check's smoke match alike), and the lease outlasts its renewals
    (E006)."""
    problems = settings_problems()
    if problems:
        return [checks.Error(message, id=check_id) for check_id, message in problems]
    return _heartbeat_errors() + _time_limit_errors()


#: Renewals a lease must outlast: a renewal or two may come late on a busy machine or database.
HEARTBEATS_PER_LEASE = 3


def _heartbeat_errors() -> list[checks.CheckMessage]:
    lease, heartbeat = settings.MATCH_LEASE_S, settings.MATCH_HEARTBEAT_S
    if 0 < heartbeat * HEARTBEATS_PER_LEASE <= lease:
        return []
    # A lease that lapses between two renewals hands a live match to a second worker (which wastes its
    # time: the first one records, the second one's result is refused).
    return [checks.Error(
        f"MATCH_HEARTBEAT_S ({heartbeat:g}) must be above 0 and at most a third of MATCH_LEASE_S ({lease}), so "
        f"that a running match's lease outlasts a late renewal",
        hint=f"set MATCH_HEARTBEAT_S to {lease / HEARTBEATS_PER_LEASE:g} or less, or raise MATCH_LEASE_S",
        id="ladder.E006",
    )]


def _time_limit_errors() -> list[checks.CheckMessage]:
    soft, hard = settings.MATCH_SOFT_TIME_LIMIT_S, settings.MATCH_TIME_LIMIT_S
    if not 0 < soft < hard:
        # The soft limit lets the worker give the match back for a retry; the hard one kills the process.
        return [checks.Error(
            f"0 < MATCH_SOFT_TIME_LIMIT_S ({soft}) < MATCH_TIME_LIMIT_S ({hard}) must hold",
            hint="leave MATCH_TIME_LIMIT_S unset: it defaults to MATCH_SOFT_TIME_LIMIT_S + 30",
            id="ladder.E005",
        )]
    worst_s, game, players = max(
        (_bounded_seconds(slug), slug, engines.get(slug).max_players) for slug in engines.names()
    )
    if worst_s < soft:
        return []
    start_ms = limits_resolve(game_slug=game)["start_ms"]
    return [checks.Error(
        f"a {players}-player {game} match may last {worst_s:g} s: {players} x (start_ms {start_ms} ms + "
        f"BOTS_MAX_MATCH_MS {settings.BOTS_MAX_MATCH_MS} ms) + {ENGINE_MARGIN_S} s for the engine and "
        f"referee, which does not fit in MATCH_SOFT_TIME_LIMIT_S ({soft} s): such matches would be cut off "
        f"and fail",
        hint=f"lower BOTS_MAX_MATCH_MS (or start_ms in BOTS_LIMITS_BY_GAME['{game}']), or raise "
             f"MATCH_SOFT_TIME_LIMIT_S (MATCH_TIME_LIMIT_S follows it)",
        id="ladder.E004",
    )]


def _bounded_seconds(game: str) -> float:
    """The longest a match of ``game`` can last, whatever the bots do: a full table, every bot taking its
    whole start time and, at the cap, its whole match time (the referee forfeits a bot past either), one
    after the other, plus :data:`ENGINE_MARGIN_S`."""
    at_cap = {**limits_resolve(game_slug=game), "match_ms": settings.BOTS_MAX_MATCH_MS}
    return match_worst_case_s(players=engines.get(game).max_players, limits=at_cap)
