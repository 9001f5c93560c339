"""The leaderboard's certainty in headless Chromium: each row's interval as text and as a bar, its rank
range, a green line and a mark where the order with the next row is settled, and the page's summary of
how much of the order is settled and how fast the ladder plays."""

from __future__ import annotations

import re

import pytest

from ladder.models import Game
from ladder.services.tournaments.ladder import ladder_tournament_get
from tests.factories import rated_field, rated_result
from tests.web.conftest import screenshot

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def test_the_leaderboard_shows_intervals_and_marks_the_settled_order(page):
    bots = rated_field()
    ladder = ladder_tournament_get(game=Game.objects.get(slug="kingdomino"))
    for _ in range(4):
        rated_result(bots=[bots["top"], bots["low"]], places=[1, 2], tournament=ladder)

    page.goto("/games/kingdomino/")
    rows = page.locator("table.leaderboard tbody tr")
    assert rows.count() == 4
    names = page.locator("table.leaderboard tbody td:nth-child(2) a").all_inner_texts()
    assert names[0] == "top" and names[3] == "low"

    intervals = page.locator("table.leaderboard td.interval .interval-text").all_inner_texts()
    assert all(re.fullmatch(r"\d{3,4}–\d{3,4}", text) for text in intervals)
    bounds = [tuple(int(end) for end in text.split("–")) for text in intervals]
    assert all(low < high for low, high in bounds) and bounds[0][0] > bounds[3][1]
    bars = page.locator("table.leaderboard svg.interval-bar")
    assert bars.count() == 4 and bars.first.is_visible()
    assert "95% interval" in bars.first.get_attribute("aria-label")
    assert page.locator("table.leaderboard td.rank-range").all_inner_texts() == ["1", "2–3", "2–3", "4"]

    settled = page.locator("table.leaderboard tbody tr.settled")
    assert settled.count() == 2
    assert page.locator("table.leaderboard .settled-mark").count() == 2
    assert page.locator("table.leaderboard .settled-mark").first.is_visible()
    # The mark between rows: a line under a settled row, thicker than the others.
    widths = rows.evaluate_all("rows => rows.map(r => getComputedStyle(r.cells[0]).borderBottomWidth)")
    assert widths == ["2px", "1px", "2px", "1px"]

    summary = page.locator("#order-summary")
    assert "Order settled between 2 of 3 adjacent pairs (67%)" in summary.locator('[data-field="settled"]').inner_text()
    assert "Ladder pace: 0.4 matches a minute" in summary.locator('[data-field="pace"]').inner_text()
    path = screenshot(page, "leaderboard_certainty")
    assert path.stat().st_size > 10_000
