"""Starting a tournament from the site in headless Chromium: log in, choose a game, pick bots, tick
duplicate deals, submit, and follow the new tournament live on its page."""

from __future__ import annotations

import re

import pytest

from ladder.models import Bot, Game, Tournament
from tests.factories import UserFactory
from tests.web.conftest import finish_match, screenshot

pytestmark = [pytest.mark.slow, pytest.mark.timeout(180)]

HOSTILE = "<script>alert(1)</script>"


def test_a_user_starts_a_duplicate_round_robin_and_lands_on_its_page(page, bot_factory):
    kingdomino, draftosaurus = Game.objects.get(slug="kingdomino"), Game.objects.get(slug="draftosaurus")
    ada = UserFactory(username="ada")
    grace = UserFactory(username="grace")
    north = bot_factory(game=kingdomino, owner=ada, name="north")
    south = bot_factory(game=kingdomino, owner=grace, name="south")
    hostile = bot_factory(game=kingdomino, owner=grace, name="renamed")
    Bot.objects.filter(pk=hostile.pk).update(name=HOSTILE)
    bot_factory(game=draftosaurus, owner=grace, name="dino")

    page.goto("/tournaments/new/")
    page.wait_for_url("**/accounts/login/?next=/tournaments/new/")
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill("correct-horse-battery")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/tournaments/new/")

    # Choosing a game reloads the form with that game's bots, keeping the name typed so far.
    page.get_by_label("Name").fill("Winter cup")
    page.get_by_label("Game", exact=True).select_option("draftosaurus")
    page.wait_for_url("**/tournaments/new/?game=draftosaurus&name=Winter+cup")
    assert page.locator("table.bot-choices tbody tr").all_inner_texts() == ["\tdino\tgrace\t1500"]
    assert page.get_by_label("Players per match").get_attribute("max") == "5"
    page.get_by_label("Game", exact=True).select_option("kingdomino")
    page.wait_for_url("**/tournaments/new/?game=kingdomino&name=Winter+cup")
    assert page.get_by_label("Name").input_value() == "Winter cup"
    assert page.locator("table.bot-choices tbody tr").count() == 3
    assert HOSTILE in page.locator("table.bot-choices").inner_text()  # shown as text, not run
    assert page.get_by_label("Players per match").get_attribute("max") == "4"

    page.get_by_label("north").check()
    page.get_by_label("south").check()
    page.get_by_label("Games per pairing").fill("2")
    page.get_by_label("Duplicate deals").check()
    assert "every seat rotation" in page.locator(".field:has(#id_duplicate) .help").inner_text()
    page.get_by_label("Seed").fill("42")
    page.get_by_label("Options").fill('{"harmony": true}')
    screenshot(page, "tournament_new")
    page.get_by_role("button", name="Start the tournament").click()

    page.wait_for_url(re.compile(r"/tournaments/\d+/$"))
    tournament = Tournament.objects.get()
    assert page.url.endswith(f"/tournaments/{tournament.id}/")
    assert (tournament.name, tournament.created_by, tournament.duplicate, tournament.seed) == (
        "Winter cup", ada, True, 42)
    assert sorted(tournament.bots.values_list("id", flat=True)) == sorted([north.id, south.id])
    assert page.get_by_role("heading", name="Winter cup").is_visible()
    assert "is scheduled" in page.locator(".messages").inner_text()
    assert page.locator('#progress [data-field="total"]').inner_text() == "4"  # 2 deals x 2 seat orders
    screenshot(page, "tournament_new_created")

    # The page it lands on follows the matches live.
    finish_match(tournament.matches.order_by("index").values_list("id", flat=True)[0])
    page.wait_for_function("() => document.querySelector('#progress .progress')"
                           ".getAttribute('aria-valuenow') === '25'", timeout=10_000)


def test_a_refusal_is_shown_beside_its_field_in_the_browser(page, phone_page, bot_factory):
    kingdomino = Game.objects.get(slug="kingdomino")
    ada = UserFactory(username="ada")
    bot_factory(game=kingdomino, owner=ada, name="lonely")
    page.goto("/accounts/login/?next=/tournaments/new/")
    page.get_by_label("Username").fill("ada")
    page.get_by_label("Password").fill("correct-horse-battery")
    page.get_by_role("button", name="Log in").click()
    page.wait_for_url("**/tournaments/new/")
    page.get_by_label("Name").fill("Solo cup")
    page.get_by_label("lonely").check()
    page.get_by_label("Options").fill("{harmony: true}")
    page.get_by_role("button", name="Start the tournament").click()
    page.wait_for_load_state()
    assert "options must be JSON" in page.locator(".field.has-error:has(#id_options) .field-error").inner_text()
    assert page.get_by_label("lonely").is_checked()
    screenshot(page, "tournament_new_error")
    assert not Tournament.objects.exists()

    # On a phone the bots' table fits the screen without scrolling sideways.
    phone_page.goto("/accounts/login/?next=/tournaments/new/")
    phone_page.get_by_label("Username").fill("ada")
    phone_page.get_by_label("Password").fill("correct-horse-battery")
    phone_page.get_by_role("button", name="Log in").click()
    phone_page.wait_for_url("**/tournaments/new/")
    assert phone_page.evaluate("() => document.documentElement.scrollWidth <= window.innerWidth")
    screenshot(phone_page, "tournament_new_phone")
