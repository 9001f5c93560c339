"""Every read of the API answers in a fixed number of queries with 10,000 matches in the database.

The API's counterpart of ``tests/web/test_query_counts.py``, on the same history: a table of (url,
queries), checked together in one test because the history takes seconds to build. The numbers are exact
on purpose: a change that adds a query to a route shows up here, and its author decides whether it is
worth it. Anonymous requests (no token, so no token query).
"""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db

ANONYMOUS_READS = [
    ("/api/games/", 1),
    ("/api/leaderboards/kingdomino/", 3),  # game, ratings with bots and owners, pair records (the fit)
    ("/api/bots/", 2),  # count, the page with Elo and current version
    ("/api/bots/{bot}/", 6),  # bot with its current version number, versions, ratings; ladder players, opponents;
    # its ladder entry
    ("/api/bots/{bot}/ratings/", 3),  # bot, count, the page of changes
    ("/api/bots/{bot}/head-to-head/{opponent}/", 3),  # the two bots, the shared seats
    ("/api/tournaments/", 3),  # count, the page, entered bots
    # tournament, entered bots, progress, stored standings, head-to-head records, bot names
    ("/api/tournaments/{tournament}/", 6),
    ("/api/tournaments/{tournament}/standings/", 4),  # tournament, standings, head-to-head, bot names
    ("/api/tournaments/{tournament}/crosstable/", 4),  # tournament, standings, head-to-head, bot names
    ("/api/matches/", 3),  # count, the page, seats
    ("/api/matches/?bot={bot}", 3),
    ("/api/matches/{match}/", 2),  # match, seats
    ("/api/matches/{match}/replay/", 1),
]


def _count(client, url: str) -> tuple[int, int]:
    with CaptureQueriesContext(connection) as queries:
        response = client.get(url)
    return response.status_code, len(queries)


def test_api_reads_answer_in_a_fixed_number_of_queries(api_client, big_history):
    bots = big_history["bots"]
    ids = {"bot": bots[0].id, "opponent": bots[1].id, "tournament": big_history["tournament"].id,
           "match": big_history["match_ids"][-1]}
    measured = {template.format(**ids): _count(api_client, template.format(**ids)) for template, _ in ANONYMOUS_READS}
    print("\n".join(f"{url}: {m}" for url, m in measured.items()))
    assert list(measured.items()) == [(template.format(**ids), (200, expected)) for template, expected in ANONYMOUS_READS]
