"""The replay's log panel and charts in headless Chromium: an owner steps through a finished match and the
panel shows the right decision, the charts' cursors follow, and a click on a chart moves the viewer.

Set ``LADDER_REPLAY_SCREENSHOT=/some/path.png`` to also save the owner's view there (the screenshots
under tests/web/screenshots/ are written either way).
"""

from __future__ import annotations

import os
import re
import shutil
import time

import pytest

from tests.web.conftest import fill_decisions, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

HOSTILE_LOG = "<script>alert('log')</script></textarea><img src=x onerror=alert(2)>"


def _log_in(page, user) -> None:
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(user.username)
    page.get_by_label("Password").fill("correct-horse-battery")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/bots/mine/")


def _wait_shown(page, step: int) -> None:
    page.wait_for_function("s => document.getElementById('replay').dataset.shown === String(s)", arg=step)


def _panel(page, seat: int, field: str) -> str:
    return page.locator(f'.seat-log[data-seat="{seat}"] [data-field="decision-{field}"]').inner_text()


def _cursor_x(page, chart: str) -> float:
    return float(page.locator(f"svg.{chart} line.cursor").first.get_attribute("x1"))


def _expected_x(page, chart: str, step: int) -> float:
    svg = page.locator(f"svg.{chart}").first
    x0, x1, domain = (float(svg.get_attribute(f"data-{k}")) for k in ("x0", "x1", "domain"))
    return x0 + (x1 - x0) * step / domain


def _log(position: int, step: int) -> str:
    return f"seat {position} at action {step}: {HOSTILE_LOG}\nscore if placed: {step * 3}\n"


def test_owner_steps_the_replay_and_the_log_panel_and_both_charts_follow(page, tournament_factory):
    match = tournament_factory(bots=2, names=["north", "south"]).matches.get()
    records = fill_decisions(match, log=_log)
    mine = records[0]
    _log_in(page, match.seats.get(position=0).bot.owner)

    decision = mine[5]
    step = decision["step"] + 1
    page.goto(f"/matches/{match.id}/?step={step}")
    assert _panel(page, 0, "label") == f"seat 0 (north) decided step {step} in {decision['ms']} ms"
    assert _panel(page, 0, "log").strip() == _log(0, decision["step"]).strip()  # shown as text, not run
    assert page.locator('.seat-log[data-seat="1"]').count() == 0
    assert page.locator("svg.think-chart").count() == 1 and page.locator("svg.score-chart").count() == 1
    assert _cursor_x(page, "score-chart") == pytest.approx(_expected_x(page, "score-chart", step), abs=0.1)

    # Forward to the next decision of seat 0: the panel and both cursors follow.
    following = mine[6]
    page.locator(".scrubber").fill(str(following["step"] + 1))
    _wait_shown(page, following["step"] + 1)
    assert _panel(page, 0, "label") == f"seat 0 (north) decided step {following['step'] + 1} in {following['ms']} ms"
    assert f"seat 0 at action {following['step']}:" in _panel(page, 0, "log")
    for chart in ("score-chart", "think-chart"):
        assert _cursor_x(page, chart) == pytest.approx(_expected_x(page, chart, following["step"] + 1), abs=0.1)
    dots = page.locator("svg.score-chart circle.cursor-dot")
    assert dots.count() == 2
    assert {dots.nth(i).get_attribute("cx") for i in range(2)} == {f"{_expected_x(page, 'score-chart', following['step'] + 1):.1f}"}

    # A step another seat moved to: the panel keeps seat 0's latest decision and says so.
    theirs = next(r["step"] for r in records[1] if r["step"] > following["step"])
    latest = [r for r in mine if r["step"] < theirs][-1]
    page.locator(".scrubber").fill(str(theirs + 1))
    _wait_shown(page, theirs + 1)
    assert _panel(page, 0, "label") == (f"seat 0 (north) decided step {latest['step'] + 1} in {latest['ms']} ms "
                                        f"(its latest decision before step {theirs + 1})")
    page.keyboard.press("Home")
    _wait_shown(page, 0)
    assert _panel(page, 0, "label") == "seat 0 (north) has decided nothing before step 0"
    assert _panel(page, 0, "log") == ""

    # A click on a think-time bar goes to the step its decision led to.
    target = mine[10]
    svg = page.locator("svg.think-chart")
    box = svg.bounding_box()
    width = float(svg.get_attribute("viewBox").split()[2])
    bar_x = _expected_x(page, "think-chart", target["step"] + 1)
    svg.click(position={"x": bar_x / width * box["width"], "y": box["height"] * 0.6})
    _wait_shown(page, target["step"] + 1)
    assert page.locator(".scrubber").input_value() == str(target["step"] + 1)
    assert f"seat 0 at action {target['step']}:" in _panel(page, 0, "log")

    # And on the score chart, to the step under the pointer.
    score = page.locator("svg.score-chart")
    box = score.bounding_box()
    width = float(score.get_attribute("viewBox").split()[2])
    score.click(position={"x": _expected_x(page, "score-chart", 20) / width * box["width"], "y": box["height"] / 2})
    _wait_shown(page, 20)
    assert _cursor_x(page, "think-chart") == pytest.approx(_expected_x(page, "think-chart", 20), abs=0.1)

    page.locator(".scrubber").fill(str(mine[12]["step"] + 1))
    _wait_shown(page, mine[12]["step"] + 1)
    page.evaluate("() => window.scrollTo(0, 0)")  # the sticky controls would cover the board otherwise
    path = screenshot(page, "replay_owner_logs_and_charts")
    if os.environ.get("LADDER_REPLAY_SCREENSHOT"):
        shutil.copyfile(path, os.environ["LADDER_REPLAY_SCREENSHOT"])
    # Nothing the bot printed ran: the page fixture fails on any dialog; no element came from it either.
    assert page.locator("main img").count() == 0


def test_others_get_the_score_chart_following_the_cursor_and_no_panel(page, tournament_factory):
    match = tournament_factory(bots=2, names=["north", "south"]).matches.get()
    fill_decisions(match, log=_log)
    page.goto(f"/matches/{match.id}/?step=3")
    assert page.locator(".seat-log").count() == 0 and page.locator("svg.think-chart").count() == 0
    assert "seat 0 at action" not in page.content()
    page.keyboard.press("ArrowRight")
    _wait_shown(page, 4)
    assert _cursor_x(page, "score-chart") == pytest.approx(_expected_x(page, "score-chart", 4), abs=0.1)


def test_a_long_match_with_hundreds_of_decisions_a_seat_stays_quick(page, tournament_factory):
    match = tournament_factory("carcassonne_dice", bots=2, names=["east", "west"]).matches.get()
    records = fill_decisions(match)
    assert len(match.actions) > 1000 and min(len(r) for r in records.values()) > 300
    _log_in(page, match.seats.get(position=1).bot.owner)
    started = time.perf_counter()
    page.goto(f"/matches/{match.id}/?step=600")
    loaded = time.perf_counter() - started
    size = len(page.content())
    elements = page.evaluate("() => document.querySelectorAll('*').length")
    print(f"\ncarcassonne_dice, {len(match.actions)} actions: page {size} bytes, {elements} elements, "
          f"loaded in {loaded:.2f} s")
    assert elements < 3000  # one path per chart's bars, not one element per decision or step
    started = time.perf_counter()
    for _ in range(20):
        page.keyboard.press("ArrowRight")
    _wait_shown(page, 620)
    stepped = time.perf_counter() - started
    print(f"20 steps forward in {stepped:.2f} s")
    assert re.match(r"seat 1 \(west\) decided step \d+ in \d+ ms", _panel(page, 1, "label"))
    assert _cursor_x(page, "think-chart") == pytest.approx(_expected_x(page, "think-chart", 620), abs=0.1)


def test_on_a_phone_the_panel_goes_under_the_board(phone_page, tournament_factory):
    match = tournament_factory(bots=2, names=["north", "south"]).matches.get()
    records = fill_decisions(match, log=_log)
    _log_in(phone_page, match.seats.get(position=0).bot.owner)
    phone_page.goto(f"/matches/{match.id}/?step={records[0][4]['step'] + 1}")
    board = phone_page.locator("#replay .board").bounding_box()
    panel = phone_page.locator(".seat-log").bounding_box()
    assert panel["y"] >= board["y"] + board["height"]
    assert panel["width"] <= 390
    screenshot(phone_page, "replay_owner_logs_phone")
