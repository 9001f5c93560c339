"""A version comparison in headless Chromium: started from the bot page's form, followed live on its page
(figures and LLR chart) to the verdict while its matches are recorded."""

from __future__ import annotations

import pytest

from ladder.models import Comparison
from ladder.ratings.sequential import elo_interval
from tests.factories import BotVersionFactory
from tests.ladder.services.tournaments.test_version_comparisons import play, queued
from tests.web.conftest import screenshot

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]


def log_in(page, user) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill("correct-horse-battery")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/bots/mine/")


def pairs_shown(page) -> int:
    return int(page.locator('#live-comparison [data-field="pairs"]').inner_text())


def test_start_a_comparison_on_the_bot_page_and_watch_it_decide(page, bot_factory, settings):
    settings.COMPARISON_PAIRS_IN_FLIGHT = 2
    bot = bot_factory(name="learner")
    BotVersionFactory(bot=bot)
    log_in(page, bot.owner)
    page.goto(f"/bots/{bot.id}/")
    form = page.locator("#comparison-form")
    assert form.get_by_label("Baseline").input_value() == "1"
    assert form.get_by_label("Candidate").input_value() == "2"
    form.get_by_label("Max. games").fill("400")
    screenshot(page, "comparison_form")
    form.get_by_role("button", name="Compare").click()
    page.wait_for_url("**/comparisons/*/")

    comparison = Comparison.objects.get()
    assert page.locator("h1").inner_text() == "Is v2 better than v1?"
    assert page.locator('#live-comparison [data-field="status"]').inner_text() == "running"
    # Both bounds are drawn from the start, before any pair.
    assert page.locator("svg.llr line.bound").count() == 2
    assert page.locator("svg.llr polyline.llr-line").count() == 0
    screenshot(page, "comparison_running")

    # The candidate wins every game; the page follows pair by pair without a reload.
    for pair in range(1, 4):
        for match in queued(comparison)[:2]:
            assert play(match, winner=comparison.candidate_id)
        page.wait_for_function(
            "n => document.querySelector('#live-comparison [data-field=\"pairs\"]').textContent.trim() === String(n)",
            arg=pair, timeout=10_000)
    assert page.locator("svg.llr polyline.llr-line").count() == 1
    screenshot(page, "comparison_live")
    while (comparison := Comparison.objects.get(pk=comparison.pk)).status == "running":
        for match in queued(comparison)[:2]:
            assert play(match, winner=comparison.candidate_id)
    page.wait_for_selector('#live-comparison [data-field="verdict"]', timeout=10_000)
    assert page.locator('#live-comparison [data-field="verdict"]').inner_text() == "better"
    assert pairs_shown(page) == sum(comparison.pairs) == len(comparison.llr_history)
    assert page.locator("#live-comparison").get_attribute("data-status") == "done"
    # Won every pair: an unbounded estimate, but a finite lower bound (the Wilson score bound).
    low = elo_interval(comparison.pairs).low
    assert 0 < low < 1000
    assert page.locator('#live-comparison [data-field="elo"]').inner_text() == f"+∞ [{low:.1f}, +∞]"
    screenshot(page, "comparison_done")

    # The bot page lists it with its verdict.
    page.goto(f"/bots/{bot.id}/")
    row = page.locator("#comparisons tbody tr").first
    assert "better" in row.inner_text() and "v2 vs v1" in row.inner_text()

