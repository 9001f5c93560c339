"""How long a game's matches take to play, by the recent history: what sizes the messages a send of
matches goes out in (``ladder.messaging.enqueue.match_message_sizes``).

The figure is the mean of the referee's own time (``Match.duration_s``) over the finished matches of each
game and player count among the ``RECENT_MATCHES`` finished last, read once per ``CACHE_S`` seconds per
process: a send costs no statement of its own in between, and the read is bounded (the newest entries of
the index on ``finished_at``) however long the history. A game and player count with fewer than
``MIN_SAMPLES`` of those matches has no figure, and its sends are sized as if none had been played (at
least ``MATCH_MESSAGES_MIN`` messages of at most ``MATCHES_PER_MESSAGE``).

Bots can lengthen their matches (play slowly) or shorten them (forfeit at once): a long figure only
spreads sends over more messages; a short one changes nothing, as a send is never spread over fewer than
``MATCH_MESSAGES_MIN`` messages.
"""

from __future__ import annotations

import threading
import time

from ladder.models import Match

RECENT_MATCHES = 1000
MIN_SAMPLES = 10
CACHE_S = 10.0

_lock = threading.Lock()
_cached: tuple[float, dict[tuple[int, int], float]] | None = None


def match_seconds(*, game_id: int, players: int) -> float | None:
    """The mean seconds a recent finished match of ``game_id`` with ``players`` seats took to play; None
    where the recent history holds too few of them (module docstring)."""
    return _recent_means().get((game_id, players))


def match_seconds_forget() -> None:
    """Drop this process's figures: the next :func:`match_seconds` reads the history again."""
    global _cached
    with _lock:
        _cached = None


def _recent_means() -> dict[tuple[int, int], float]:
    global _cached
    with _lock:
        if _cached is not None and time.monotonic() - _cached[0] < CACHE_S:
            return _cached[1]
    means = _read_means()
    with _lock:
        _cached = (time.monotonic(), means)
    return means


def _read_means() -> dict[tuple[int, int], float]:
    recent = (Match.objects.filter(status=Match.Status.FINISHED, finished_at__isnull=False, duration_s__isnull=False)
              .order_by("-finished_at").values_list("game_id", "players", "duration_s")[:RECENT_MATCHES])
    sums: dict[tuple[int, int], list[float]] = {}
    for game_id, players, seconds in recent:
        total = sums.setdefault((game_id, players), [0.0, 0])
        total[0] += max(0.0, seconds)
        total[1] += 1
    return {key: total / count for key, (total, count) in sums.items() if count >= MIN_SAMPLES}
