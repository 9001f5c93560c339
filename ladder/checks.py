"""System checks of the ladder's settings, run by ``manage.py check``, ``migrate`` and ``runserver``.

A deployment whose sandbox limits or match time limits do not fit together is refused before it plays a
match, with a message naming the setting to change (ids ``ladder.E001`` to ``ladder.E005``).
"""

from __future__ import annotations

from django.conf import settings
from django.core import checks

import engines
from ladder.services.limits import limits_resolve, settings_problems

#: Seconds a match may spend outside its bots' clocks: spawning them, the engine, the referee's protocol
#: work, recording. A five-player carcassonne_dice match of 2,700 decisions costs under one second of
#: that on a small virtual machine; ten leaves room for slower machines and longer games.
ENGINE_MARGIN_S = 10


def sandbox_limits_check(app_configs=None, **kwargs) -> list[checks.CheckMessage]:
    """The limit settings are usable (E001-E003) and the caps fit in the match time limits (E004, E005)."""
    problems = settings_problems()
    if problems:
        return [checks.Error(message, id=check_id) for check_id, message in problems]
    return _time_limit_errors()


def _time_limit_errors() -> list[checks.CheckMessage]:
    soft, hard, lease = settings.MATCH_SOFT_TIME_LIMIT_S, settings.MATCH_TIME_LIMIT_S, settings.MATCH_LEASE_S
    if not soft < hard < lease:
        # A match still running when its lease expires is handed to a second worker while the first one
        # goes on playing it; the time limits are what stop the first one in time.
        return [checks.Error(
            f"MATCH_SOFT_TIME_LIMIT_S ({soft}) < MATCH_TIME_LIMIT_S ({hard}) < MATCH_LEASE_S ({lease}) must hold",
            hint="leave the two time limits unset: they default to 80% and 90% of MATCH_LEASE_S",
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
             f"MATCH_LEASE_S (the time limits follow it)",
        id="ladder.E004",
    )]


def _bounded_seconds(game: str) -> float:
    """The longest a match of ``game`` can last, whatever the bots do: a full table, every bot taking its
    whole start time and, at the cap, its whole match time (the referee forfeits a bot past either), one
    after the other, plus :data:`ENGINE_MARGIN_S`."""
    start_ms = limits_resolve(game_slug=game)["start_ms"]
    per_bot_ms = start_ms + settings.BOTS_MAX_MATCH_MS
    return engines.get(game).max_players * per_bot_ms / 1000 + ENGINE_MARGIN_S
