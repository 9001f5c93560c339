"""What one response of the bulk export costs as the history grows, side by side in one run
(``manage.py bench``, the ``exports.*`` figures).

A generated history of finished two-player Kingdomino ladder matches (``leaderboard._History``,
grown in bulk SQL), each given the actions of a real playout (so that a line weighs what a real one
does), is built at each size of ``sizes``. At each one a full response of the export
(``EXPORT_MATCHES_PER_RESPONSE`` matches) is streamed by an anonymous client from the start and from
three quarters down the history (``after``; less deep where fewer than a response's matches would
follow), best of ``repeats``:

* ``exports.<first|deep>_s.<size>``: the seconds one full response takes to stream, end to end (to hold
  well inside gunicorn's ``WEB_TIMEOUT_S``);
* ``exports.matches_per_s.<size>``: the matches a second of the deep response;
* ``exports.peak_kib.<size>``: the most memory Python held while streaming it (``tracemalloc``, on a run
  of its own: tracing slows the timed ones);
* ``exports.bytes_per_match``: the mean size of a line;
* ``exports.<deep_s|peak_kib>_ratio``: the largest size's figure over the smallest's (1: a response
  costs as much however long the history, the memory bounded by the chunks, not by the history).
"""

from __future__ import annotations

import time
import tracemalloc

from django.conf import settings
from django.test import Client, override_settings

import engines
from ladder.benches.leaderboard import BENCH_GAME, HOST, _History
from ladder.benches.scratch_database import scratch_database


def bench_exports(*, sizes: tuple[int, ...] = (10_000, 100_000), bots: int = 20, repeats: int = 3) -> dict:
    """The ``exports.*`` figures as a flat dict (module docstring); ``sizes`` ascending."""
    with scratch_database():
        return measure_exports(_History(bots=bots), sizes=sizes, repeats=repeats)


def _playout_actions(seed: int = 1) -> list:
    """The actions of a first-legal-action Kingdomino game: what a generated match carries."""
    state = engines.get(BENCH_GAME).new_state(2, seed, None)
    actions = []
    while not state.is_terminal():
        action = state.legal_actions()[0]
        state.apply(action)
        actions.append(action)
    return actions


def _stream(client: Client, url: str) -> tuple[int, int]:
    """Stream ``url`` to its end: (lines, bytes)."""
    response = client.get(url)
    if response.status_code != 200:
        raise RuntimeError(f"{url} answered {response.status_code}: {response.content[:300]!r}")
    lines = size = 0
    for chunk in response.streaming_content:
        lines += chunk.count(b"\n")
        size += len(chunk)
    return lines, size


def measure_exports(history: _History, *, sizes: tuple[int, ...], repeats: int = 3) -> dict:
    """Grow ``history`` to each of ``sizes`` and measure a full export response there (:func:`bench_exports`,
    without the scratch database: the caller's database holds the history)."""
    from ladder.models import Match

    actions = _playout_actions()
    per_response = settings.EXPORT_MATCHES_PER_RESPONSE
    figures: dict = {"exports.per_response": per_response, "exports.actions_per_match": len(actions)}
    client = Client(HTTP_HOST=HOST)
    # The export's own throttle would count the bench's requests.
    rates = {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "exports": None}
    with override_settings(REST_FRAMEWORK={**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}):
        for size in sizes:
            history.grow_fast_to(size)
            Match.objects.filter(game=history.game, actions_json=[], actions_packed=None).update(actions=actions)
            ids = Match.objects.filter(game=history.game).order_by("id").values_list("id", flat=True)
            # Three quarters down, or deeper as far as a full response still follows.
            deep = min(size * 3 // 4, size - per_response)
            deep_after = ids[deep - 1] if deep > 0 else 0
            base = f"/api/exports/{BENCH_GAME}/matches/"
            for where, url in (("first", base), ("deep", f"{base}?after={deep_after}")):
                best = float("inf")
                for _ in range(repeats):
                    started = time.perf_counter()
                    lines, size_bytes = _stream(client, url)
                    best = min(best, time.perf_counter() - started)
                # Four places: a fast machine streams a small history in under 5 ms, which two places call 0.
                figures[f"exports.{where}_s.{size}"] = round(best, 4)
            figures[f"exports.matches_per_s.{size}"] = round(lines / max(best, 1e-6))
            figures["exports.bytes_per_match"] = round(size_bytes / max(lines, 1))
            tracemalloc.start()
            try:
                _stream(client, f"{base}?after={deep_after}")
                figures[f"exports.peak_kib.{size}"] = round(tracemalloc.get_traced_memory()[1] / 1024)
            finally:
                tracemalloc.stop()
    small, large = sizes[0], sizes[-1]
    for name in ("deep_s", "peak_kib"):
        figures[f"exports.{name}_ratio"] = round(figures[f"exports.{name}.{large}"]
                                                 / max(figures[f"exports.{name}.{small}"], 1e-6), 2)
    return figures
