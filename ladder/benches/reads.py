"""Whether the site's reads keep their speed as the history grows, measured side by side in one run
(``manage.py bench``, the ``reads.*`` figures).

A generated history of finished two-player Kingdomino ladder matches (``leaderboard._History``,
grown in bulk SQL by its ``grow_fast_to``: draws, forfeits, the stronger bot winning more often) is built
at each size of ``sizes``, and at each one every route of :data:`ROUTES` is requested by an anonymous
visitor, best of ``repeats`` (3):

* ``reads.<route>_ms.<size>``: the best time of the route, in milliseconds;
* ``reads.<route>_ratio``: the largest size's time over the smallest's (1: the route does not slow down
  as the history grows).

``matches_deep`` is a page of ``GET /api/matches/`` three quarters of the way down the list, as a client
walking it reaches it (the ``next`` link of the page before: a cursor). Everything runs in a scratch
database that is dropped afterwards, like the other figures of the bench.
"""

from __future__ import annotations

import time

from django.conf import settings
from django.test import Client, override_settings

from ladder.api.pagination import keyset_cursor
from ladder.benches.leaderboard import BENCH_GAME, HOST, _best_ms, _get, _History
from ladder.benches.scratch_database import scratch_database

#: The routes measured: name -> URL template (``{tournament}``: the ladder, ``{bot}``: a bot of the field).
ROUTES = {
    "home": "/",
    "tournament_api": "/api/tournaments/{tournament}/",
    "tournament_page": "/tournaments/{tournament}/",
    "standings_api": "/api/tournaments/{tournament}/standings/",
    "crosstable_api": "/api/tournaments/{tournament}/crosstable/",
    "progress": "/tournaments/{tournament}/progress/",
    "tournaments_api": "/api/tournaments/",
    "tournaments_page": "/tournaments/",
    "matches_api": "/api/matches/",
    "matches_deep": None,  # built per size: see deep_page_url
    "matches_of_bot": "/api/matches/?bot={bot}",
    "matches_of_tournament": "/api/matches/?tournament={tournament}&status=finished",
    "leaderboard_api": f"/api/leaderboards/{BENCH_GAME}/",
    "leaderboard_page": f"/games/{BENCH_GAME}/",
    "bot_page": "/bots/{bot}/",
}


def bench_reads(*, sizes: tuple[int, ...] = (10_000, 100_000), bots: int = 20, repeats: int = 3,
                routes: tuple[str, ...] | None = None) -> dict:
    """The ``reads.*`` figures as a flat dict (module docstring); ``sizes`` ascending, ``routes`` a subset
    of :data:`ROUTES` (all by default)."""
    # Pages name their static files through the plain storage: the bench needs no collected manifest,
    # and what a page costs does not depend on it.
    plain = {**settings.STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
    with scratch_database(), override_settings(STORAGES=plain):
        return measure_reads(_History(bots=bots), sizes=sizes, repeats=repeats, routes=routes)


def measure_reads(history: _History, *, sizes: tuple[int, ...], repeats: int = 3,
                  routes: tuple[str, ...] | None = None) -> dict:
    """Grow ``history`` to each of ``sizes`` and time the routes there (:func:`bench_reads`, without the
    scratch database: the caller's database holds the history)."""
    names = list(routes or ROUTES)
    figures: dict = {"reads.bots": len(history.bots)}
    client = Client(HTTP_HOST=HOST)
    for size in sizes:
        started = time.perf_counter()
        history.grow_fast_to(size)
        figures[f"reads.build_s.{size}"] = round(time.perf_counter() - started, 1)
        ids = {"tournament": history.tournament.id, "bot": history.bots[len(history.bots) // 2].id}
        for name in names:
            url = deep_page_url(client, size) if name == "matches_deep" else ROUTES[name].format(**ids)
            figures[f"reads.{name}_ms.{size}"] = _best_ms(repeats, lambda url=url: _get(client, url))
    small, large = sizes[0], sizes[-1]
    for name in names:
        figures[f"reads.{name}_ratio"] = round(figures[f"reads.{name}_ms.{large}"]
                                               / max(figures[f"reads.{name}_ms.{small}"], 0.1), 2)
    return figures


def deep_page_url(client: Client, size: int) -> str:
    """The URL of the page of ``GET /api/matches/`` three quarters down a list of ``size`` matches, as the
    list's own links reach it: the ``next`` link of the page before (a cursor; a page number where the
    list pages by number)."""
    from ladder.models import Match

    page_size = 50
    depth = (3 * size // 4) // page_size * page_size
    if depth == 0:
        return f"/api/matches/?page_size={page_size}"
    # The last match of the page before, in the list's order (newest first).
    before = Match.objects.order_by("-id").values_list("id", flat=True)[depth - 1]
    return f"/api/matches/?page_size={page_size}&cursor={keyset_cursor(ordering='-id', value=before, id=before)}"

