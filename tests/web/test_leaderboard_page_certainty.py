"""The game's page says how sure its leaderboard is: each row's 95% interval with a bar, its rank range and
the chance that it beats the next row, a mark where the order is settled, the share of the order that is,
and the ladder's pace."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest
from django.utils import timezone

from ladder.models import Game, Match
from ladder.selectors.leaderboards import ladder_pace
from ladder.services.tournaments.ladder import ladder_tournament_get
from tests.factories import BotFactory, rated_field, rated_result

pytestmark = pytest.mark.django_db


def _rows(html: str) -> list[str]:
    body = html.split('<table class="leaderboard">', 1)[1].split("</table>", 1)[0].split("<tbody>", 1)[1]
    return re.findall(r"<tr[^>]*>.*?</tr>", body, flags=re.S)


def _cell(row: str, cls: str) -> str:
    cell = re.search(rf'<td class="[^"]*\b{cls}\b[^"]*">(.*?)</td>', row, flags=re.S).group(1)
    return re.sub(r"<svg.*?</svg>", "", re.sub(r"\s+", " ", cell)).strip()


def test_rows_show_their_interval_rank_range_and_settled_marks(client):
    rated_field()
    response = client.get("/games/kingdomino/")
    board = response.context["board"]
    rows = _rows(response.content.decode())
    assert len(rows) == 4 and all('class="interval-bar"' in row for row in rows)
    for line, row in zip(board, rows, strict=True):
        interval = line["elo_interval"]
        assert re.sub(r"<[^>]+>", "", _cell(row, "interval")) == f"{interval['low']:.0f}–{interval['high']:.0f}"
    assert [_cell(row, "rank-range") for row in rows] == ["1", "2–3", "2–3", "4"]
    # Marks under the first row and under the third; the two middle bots are a coin toss.
    assert ['class="settled"' in row.split(">", 1)[0] for row in rows] == [True, False, True, False]
    assert [row.count('class="settled-mark"') for row in rows] == [1, 0, 1, 0]
    assert "50%" in _cell(rows[1], "p-above") and _cell(rows[3], "p-above").endswith("–</span>")
    summary = response.content.decode().split('id="order-summary"', 1)[1].split("</p>", 1)[0]
    assert "Order settled between 2 of 3 adjacent pairs (67%)" in summary


def test_a_filter_marks_only_rows_that_are_neighbours_on_the_whole_board(client):
    rated_field()
    # top and low are far apart and both contain an "o", but between them stand the middle bots.
    shown = client.get("/games/kingdomino/", {"search": "o"})
    assert [line["bot"].name for line in shown.context["board"]] == ["top", "low"]
    assert [line["settled"] for line in shown.context["board"]] == [False, False]
    assert shown.content.decode().count('class="settled-mark"') == 0
    # The share of the order settled is the whole board's, whatever the filter hides.
    assert shown.context["order"] == {"pairs": 3, "settled": 2, "share": pytest.approx(2 / 3)}


def test_the_page_gives_the_ladder_pace_over_the_last_ten_minutes(client):
    game = Game.objects.get(slug="kingdomino")
    ladder = ladder_tournament_get(game=game)
    a, b = BotFactory(), BotFactory()
    for _ in range(5):
        rated_result(bots=[a, b], places=[1, 2], tournament=ladder)
    old = [rated_result(bots=[b, a], places=[1, 2], tournament=ladder) for _ in range(3)]
    Match.objects.filter(pk__in=[m.pk for m in old]).update(finished_at=timezone.now() - timedelta(minutes=11))
    rated_result(bots=[a, b], places=[2, 1])  # a rated round robin's match: not the ladder's pace
    assert ladder_pace(game=game) == {"matches": 5, "minutes": 10.0, "per_minute": 0.5}
    assert ladder_pace(game=game, now=timezone.now() + timedelta(minutes=20))["matches"] == 0
    page = client.get("/games/kingdomino/").content.decode()
    assert "Ladder pace: 0.5 matches a minute over the last 10 minutes." in page


def test_an_empty_board_has_no_order_to_settle(client):
    page = client.get("/games/dice_king/").content.decode()
    assert "No order to settle yet." in page and "Ladder pace: 0.0 matches a minute" in page
