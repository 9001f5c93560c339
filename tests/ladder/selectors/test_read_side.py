"""The read side answers the API and the site alike: one tournament table, whichever interface shows it.

A round robin where one bot forfeits a match and another has not played yet is read through
``GET /api/tournaments/{id}/`` and through the page ``/tournaments/{id}/``; both list the same bots in the
same order with the same points, games and forfeits.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

import pytest

from tests.factories import BotFactory, TournamentFactory, finished_match

pytestmark = pytest.mark.django_db


class _StandingsTable(HTMLParser):
    """The cells of ``table.standings`` on a tournament page, one list of texts per body row."""

    def __init__(self) -> None:
        super().__init__()
        self.rows: list[list[str]] = []
        self._in_table = self._in_body = False
        self._cell: list[str] | None = None

    def handle_starttag(self, tag, attrs):
        classes = (dict(attrs).get("class") or "").split()
        if tag == "table" and "standings" in classes:
            self._in_table = True
        elif self._in_table and tag == "tbody":
            self._in_body = True
        elif self._in_body and tag == "tr":
            self.rows.append([])
        elif self._in_body and tag == "td":
            self._cell = []

    def handle_endtag(self, tag):
        if tag == "td" and self._cell is not None:
            self.rows[-1].append(" ".join("".join(self._cell).split()))
            self._cell = None
        elif tag == "tbody":
            self._in_body = False
        elif tag == "table":
            self._in_table = False

    def handle_data(self, data):
        if self._cell is not None:
            self._cell.append(data)


def _page_standings(html: str) -> list[tuple]:
    table = _StandingsTable()
    table.feed(html)
    # Columns: rank, bot, points, games, W / D / L, forfeits, average score, rating, interval.
    return [(row[1], float(row[2]), int(row[3]), int(row[5])) for row in table.rows]


def _forfeit_cup():
    ada, bob, cyd, dee = (BotFactory(name=name) for name in ("ada", "bob", "cyd", "dee"))
    cup = TournamentFactory(bots=[ada, bob, cyd, dee])
    finished_match(bots=[ada, bob], tournament=cup, places=[2, 1], outcomes=["timeout", "ok"])
    finished_match(bots=[ada, cyd], tournament=cup, places=[1, 2])
    finished_match(bots=[bob, cyd], tournament=cup, places=[1, 2])
    return cup  # dee is entered but has played no match yet


def test_api_and_page_show_the_same_standings_for_a_tournament_with_a_forfeit(client):
    cup = _forfeit_cup()

    api = client.get(f"/api/tournaments/{cup.id}/").json()["standings"]
    page = client.get(f"/tournaments/{cup.id}/")

    assert page.status_code == 200
    from_api = [(line["bot"], round(line["points"], 1), line["games"], line["forfeits"]) for line in api]
    assert from_api == _page_standings(page.content.decode())
    assert from_api == [("bob", 2.0, 2, 0), ("ada", 1.0, 2, 1), ("cyd", 0.0, 2, 0), ("dee", 0.0, 0, 0)]


def test_a_bot_entered_but_not_played_yet_is_listed_with_no_games_on_both(client):
    waiting = BotFactory(name="waiting")
    cup = TournamentFactory(bots=[waiting, BotFactory(name="other")])

    api = client.get(f"/api/tournaments/{cup.id}/").json()["standings"]
    html = client.get(f"/tournaments/{cup.id}/").content.decode()

    assert sorted((line["bot"], line["games"]) for line in api) == [("other", 0), ("waiting", 0)]
    assert sorted((name, games) for name, _, games, _ in _page_standings(html)) == [("other", 0), ("waiting", 0)]
    assert re.search(r"table class=\"standings\"", html)


def test_a_seat_without_a_place_is_read_as_last_of_its_match_and_a_bad_outcome_as_a_forfeit():
    from ladder.ratings.tables import PlacedSeat
    from ladder.selectors.matches import seat_results_by_match

    rows = [(7, 1, None, 3, "ok"), (7, 2, 1, 9, "ok"), (7, 3, 2, None, "crash"), (8, 1, 1, 5, "")]

    assert seat_results_by_match(rows) == {
        7: [PlacedSeat(1, 3, 3, False), PlacedSeat(2, 1, 9, False), PlacedSeat(3, 2, 0, True)],
        8: [PlacedSeat(1, 1, 5, False)],
    }
