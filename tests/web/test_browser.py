"""The site in headless Chromium against a live server: what a visitor sees and does.

Each test fails on any JavaScript error or any dialog (the ``page`` fixture checks both when it closes),
so an injected ``alert`` anywhere fails the test it appears in. Screenshots of every page go to
tests/web/screenshots/ for a person to look at.
"""

from __future__ import annotations

import re

import pytest

from ladder.models import Bot, BotVersion
from tests.api.helpers import check_pending_uploads
from tests.web.conftest import finish_match, screenshot

# Browsers count as slow in this suite's markers; each test stays well under a minute.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

HOSTILE = "<script>alert(1)</script>"
GOOD_BOT = b"def act(observation, legal_actions):\n    return legal_actions[-1]\n"


def test_leaderboard_and_tournament_of_a_finished_round_robin(page, phone_page, tournament_factory):
    tournament = tournament_factory(bots=5, name="Autumn cup", rated=True)
    page.goto("/")
    assert page.get_by_role("link", name="Kingdomino").first.is_visible()
    screenshot(page, "home")

    page.get_by_role("link", name="Kingdomino").first.click()
    page.wait_for_url("**/games/kingdomino/")
    rows = page.locator("table.leaderboard tbody tr")
    assert rows.count() == 5
    elos = [int(text) for text in page.locator("table.leaderboard tbody td.num:nth-child(4)").all_inner_texts()]
    assert elos == sorted(elos, reverse=True) and len(set(elos)) > 1
    assert page.locator("table.leaderboard svg.spark").count() == 5
    screenshot(page, "leaderboard")

    page.goto(f"/tournaments/{tournament.id}/")
    assert page.locator("#progress .progress").get_attribute("aria-valuenow") == "100"
    assert page.locator("table.standings tbody tr").count() == 5
    assert page.locator("table.crosstable tbody tr").count() == 5
    screenshot(page, "tournament_finished")

    top = page.locator("table.standings tbody tr").first.get_by_role("link")
    top.click()
    page.wait_for_url(re.compile(r"/bots/\d+/$"))
    assert page.locator("svg.chart polyline").count() == 1
    screenshot(page, "bot")

    phone_page.goto("/games/kingdomino/")
    assert phone_page.locator("table.leaderboard tbody tr").count() == 5
    screenshot(phone_page, "leaderboard_phone")
    phone_page.goto("/")
    screenshot(phone_page, "home_phone")
    phone_page.goto(f"/tournaments/{tournament.id}/")
    screenshot(phone_page, "tournament_phone")


def test_sign_up_upload_a_bot_and_see_its_check_live(page):
    page.goto("/")
    page.get_by_role("navigation").get_by_role("link", name="Sign up").click()
    page.get_by_label("Username").fill("grace")
    page.get_by_label("Password").fill("a-long-passphrase")
    screenshot(page, "signup")
    page.get_by_role("button", name="Create account").click()
    page.wait_for_url("**/bots/new/")

    # A hostile name is refused beside the name field, shown as text, and runs nothing.
    page.get_by_label("Game").select_option("kingdomino")
    page.get_by_label("Name").fill(HOSTILE)
    page.get_by_label("Code").set_input_files({"name": "bot.py", "mimeType": "text/x-python", "buffer": GOOD_BOT})
    page.get_by_role("button", name="Upload").click()
    error = page.locator(".field.has-error .field-error").first
    assert "bot name" in error.inner_text()
    assert page.get_by_label("Name").input_value() == HOSTILE
    screenshot(page, "upload_error")

    page.get_by_label("Name").fill("grace-bot")
    page.get_by_label("Code").set_input_files({"name": "bot.py", "mimeType": "text/x-python", "buffer": GOOD_BOT})
    page.get_by_role("button", name="Upload").click()
    page.wait_for_url(re.compile(r"/bots/\d+/$"))
    # Stored, not yet run: the page says a worker is checking it...
    assert page.locator("#versions .status").first.inner_text() == "pending"
    assert "a worker is checking version 1 now" in page.locator(".messages").inner_text()
    screenshot(page, "bot_uploaded_pending")
    # ...and follows the check live, without a reload, once the worker (here: the same service) decides.
    assert check_pending_uploads() == ["accepted"]
    page.locator("#versions .status.accepted").first.wait_for(timeout=10_000)
    assert "smoke match against the random bot" in page.locator('#versions [data-field="message"]').first.inner_text()
    assert BotVersion.objects.get(bot__name="grace-bot").validation_status == "accepted"
    screenshot(page, "bot_uploaded")

    page.get_by_role("link", name="My bots").click()
    # Waited for: right after the click the new page may not be drawn yet (is_visible does not wait).
    page.get_by_role("link", name="grace-bot").wait_for(timeout=10_000)
    screenshot(page, "my_bots")
    assert not Bot.objects.filter(name=HOSTILE).exists()


def test_tournament_progress_bar_moves_while_matches_finish(page, tournament_factory):
    tournament = tournament_factory(bots=4, finish=False, name="Live cup")
    match_ids = list(tournament.matches.order_by("index").values_list("id", flat=True))
    page.goto(f"/tournaments/{tournament.id}/")
    bar = page.locator("#progress .progress")
    assert bar.get_attribute("aria-valuenow") == "0"
    screenshot(page, "tournament_running")
    seen = []
    for done, match_id in enumerate(match_ids, start=1):
        finish_match(match_id)
        percent = int(100 * done / len(match_ids))
        page.wait_for_function(
            "p => document.querySelector('#progress .progress').getAttribute('aria-valuenow') === String(p)",
            arg=percent, timeout=10_000,
        )
        seen.append(int(bar.get_attribute("aria-valuenow")))
        if done == 3:
            screenshot(page, "tournament_halfway")
    assert seen == [16, 33, 50, 66, 83, 100]
    assert page.locator('#progress [data-field="status"]').inner_text() == "finished"
    assert page.locator("#progress .bar").evaluate("e => e.style.width") == "100%"
    # The standings and crosstable follow without a reload.
    page.wait_for_function("() => document.querySelectorAll('table.standings tbody tr').length === 4")
    page.wait_for_function("() => document.querySelectorAll('#live-results ul.matches a[href*=\"/matches/\"]')"
                           ".length === 6")
    assert page.locator("table.crosstable tbody tr").count() == 4
    assert page.locator("#progress .notice").is_hidden()
    screenshot(page, "tournament_live_finished")


def _board(page) -> str:
    return page.locator("#replay .board").inner_html()


def _wait_shown(page, step: int) -> None:
    page.wait_for_function("s => document.getElementById('replay').dataset.shown === String(s)", arg=step)


def test_replay_viewer_steps_forward_and_back_and_the_board_changes(page, tournament_factory):
    match = tournament_factory(bots=2, names=["north", "south"]).matches.get()
    last = len(match.actions)
    page.goto(f"/matches/{match.id}/")
    start = _board(page)
    assert "<svg" in start
    assert page.locator('[data-field="action"]').inner_text() == "(start of the game)"
    screenshot(page, "replay_kingdomino_start")

    page.locator('[data-act="forward"]').click()
    _wait_shown(page, 1)
    after_one = _board(page)
    assert after_one != start
    assert page.url.endswith("?step=1")
    assert page.locator('[data-field="action"]').inner_text().startswith("seat ")
    assert page.locator(".scrubber").input_value() == "1"

    page.keyboard.press("ArrowRight")
    _wait_shown(page, 2)
    assert _board(page) not in (start, after_one)
    page.keyboard.press("ArrowLeft")
    _wait_shown(page, 1)
    assert _board(page) == after_one
    page.locator('[data-act="back"]').click()
    _wait_shown(page, 0)
    assert _board(page) == start

    page.locator(".scrubber").fill(str(last // 2))
    _wait_shown(page, last // 2)
    assert page.locator('[data-field="step"]').inner_text() == str(last // 2)
    permalink = page.locator(".permalink").get_attribute("href")
    assert permalink == f"?step={last // 2}"

    page.locator('[data-act="play"]').click()
    page.wait_for_function("s => Number(document.getElementById('replay').dataset.shown) >= s", arg=last // 2 + 2)
    page.locator('[data-act="play"]').click()  # pause
    paused_at = int(page.locator("#replay").get_attribute("data-step"))
    page.wait_for_timeout(1200)
    assert int(page.locator("#replay").get_attribute("data-step")) == paused_at

    page.keyboard.press("End")
    _wait_shown(page, last)
    assert "game is over" in page.locator('[data-field="to_move"]').inner_text()
    screenshot(page, "replay_kingdomino_end")

    # The permalink opens the same step with the server-drawn board.
    page.goto(f"/matches/{match.id}/?step=5")
    assert page.locator(".scrubber").input_value() == "5"
    page.locator('[data-act="forward"]').click()
    _wait_shown(page, 6)
    page.locator('[data-act="back"]').click()
    _wait_shown(page, 5)


@pytest.mark.parametrize("game", ["draftosaurus", "carcassonne_dice", "dice_king"])
def test_replay_viewer_draws_every_game(page, phone_page, tournament_factory, game):
    match = tournament_factory(game, bots=2).matches.get()
    middle = len(match.actions) // 2
    page.goto(f"/matches/{match.id}/?step={middle}")
    before = _board(page)
    assert "<svg" in before
    page.keyboard.press("ArrowRight")
    _wait_shown(page, middle + 1)
    assert _board(page) != before
    screenshot(page, f"replay_{game}")
    phone_page.goto(f"/matches/{match.id}/?step={middle}")
    screenshot(phone_page, f"replay_{game}_phone")


def test_hostile_names_and_logs_run_no_script_anywhere(page, tournament_factory):
    tournament = tournament_factory(bots=2, names=["plain", "renamed"], name=HOSTILE)
    Bot.objects.filter(name="renamed").update(name=HOSTILE)
    bot = Bot.objects.get(name=HOSTILE)
    match = tournament.matches.get()
    page.goto("/accounts/login/")
    page.get_by_label("Username").fill(bot.owner.username)
    page.get_by_label("Password").fill("correct-horse-battery")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/bots/mine/")
    for url, name in [("/", "xss_home"), ("/games/kingdomino/", "xss_leaderboard"), (f"/bots/{bot.id}/", "xss_bot"),
                      (f"/tournaments/{tournament.id}/", "xss_tournament"), (f"/matches/{match.id}/?step=3", "xss_match")]:
        page.goto(url)
        assert HOSTILE in page.locator("main").inner_text(), url  # shown as text, not run
        screenshot(page, name)
    page.keyboard.press("ArrowRight")
    _wait_shown(page, 4)
    assert page.locator("#replay .board svg").count() == 1
    # The only scripts in the page body are the replay's JSON data blocks.
    assert page.locator('main script:not([type="application/json"])').count() == 0
    assert page.locator('main script[type="application/json"]').count() == 2
