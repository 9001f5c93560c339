"""Every page answers in a fixed number of queries with 10,000 matches in the database.

One history is built per module (bulk_create, a few seconds; ``big_history`` in tests/conftest.py), and the
pages are checked together, as a table of (url, queries) with the expected count per page. The numbers are exact on purpose:
a change that adds a query to a page shows up here, and the author decides whether it is worth it.
"""

from __future__ import annotations

import time

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

pytestmark = pytest.mark.django_db

# Anonymous visitor: no session, so no session or user query.
ANONYMOUS_PAGES = [
    ("/", 6),  # games, bot counts, match counts, running tournaments, recent matches + their seats
    ("/games/kingdomino/", 7),  # game, ratings, pair records, trends, recent matches + seats, ladder pace
    # bot, versions, rating, history, own seats, their matches + seats, h2h seats, names; ladder players, opponents;
    # its ladder entry
    ("/bots/{bot}/", 13),
    # tournament, stored standings, head-to-head records, bots, progress, recent matches + seats
    ("/tournaments/{tournament}/", 7),
    ("/tournaments/", 1),
    ("/tournaments/{tournament}/progress/", 2),
    ("/matches/{match}/", 2),  # match, seats
    ("/matches/{match}/frame/", 2),
]


def _count(client, url: str) -> tuple[int, int, float]:
    with CaptureQueriesContext(connection) as queries:
        started = time.perf_counter()
        response = client.get(url)
        elapsed = time.perf_counter() - started
    return response.status_code, len(queries), elapsed


def test_pages_answer_in_a_fixed_number_of_queries(client, big_history):
    ids = {"bot": big_history["bots"][0].id, "tournament": big_history["tournament"].id,
           "match": big_history["match_ids"][-1]}
    measured = {}
    for template, expected in ANONYMOUS_PAGES:
        url = template.format(**ids)
        status, queries, elapsed = _count(client, url)
        measured[url] = (status, queries, round(elapsed, 3))
    print("\n".join(f"{url}: {m}" for url, m in measured.items()))
    assert [(url, m[0], m[1]) for url, m in measured.items()] == [
        (template.format(**ids), 200, expected) for template, expected in ANONYMOUS_PAGES
    ]


def test_owner_pages_add_only_the_session_and_logs(client, big_history):
    bot = big_history["bots"][0]
    client.force_login(bot.owner)
    match_id = big_history["match_ids"][-1]
    # Session and user: 2 queries; the bot page lists the owner's comparisons: 1 more; the match page
    # reads the owner's seats' logs: 1 more.
    assert _count(client, f"/bots/{bot.id}/")[:2] == (200, 16)
    assert _count(client, f"/matches/{match_id}/")[:2] == (200, 5)
    assert _count(client, "/bots/mine/")[:2] == (200, 5)
    assert _count(client, "/bots/new/")[:2] == (200, 4)  # session, user, the game choices (read twice)
    # Session, user, the games, the game's enterable bots with owners and ratings.
    assert _count(client, "/tournaments/new/")[:2] == (200, 4)


def test_the_match_page_reads_decisions_in_one_query_however_many_seats_and_decisions(client, tournament_factory):
    from ladder.models import Bot
    from tests.factories import StaffFactory
    from tests.web.conftest import fill_decisions

    small = tournament_factory(bots=2, name="small", names=["s0", "s1"]).matches.get()
    big = tournament_factory(bots=4, players=4, name="big", names=["b0", "b1", "b2", "b3"]).matches.get()
    fill_decisions(big)
    seats = list(big.seats.order_by("position"))
    owner = seats[0].bot.owner
    Bot.objects.filter(pk__in=[s.bot_id for s in seats[1:3]]).update(owner=owner)  # three seats of four
    assert sum(len(s.decisions) for s in seats) == len(big.actions) > 90
    counts = {"anonymous": [_count(client, f"/matches/{m.id}/")[:2] for m in (small, big)]}
    client.force_login(owner)
    counts["owner"] = [_count(client, f"/matches/{m.id}/")[:2] for m in (small, big)]
    client.force_login(StaffFactory())
    counts["staff"] = [_count(client, f"/matches/{m.id}/")[:2] for m in (small, big)]
    # Anonymous: match, seats. Logged in: session, user, match, seats, the readable seats' logs and decisions.
    assert counts == {"anonymous": [(200, 2)] * 2, "owner": [(200, 5)] * 2, "staff": [(200, 5)] * 2}
