"""Fixtures for the website's tests: finished tournaments played in-process, a big history, a browser.

Matches are finished the way a worker finishes them (``match_claim`` then ``match_record_result``), but
the moves come from the engine in this process, chosen by a seeded random policy, so no worker and no
sandbox is needed and every match has a real, replayable action list.
"""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

import engines
from bots.referee import MatchResult, SeatResult
from ladder.models import Tournament
from ladder.services.play.matches import match_claim, match_record_result
from ladder.services.tournaments.round_robins import tournament_create

SCREENSHOTS = Path(__file__).resolve().parent / "screenshots"
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
]
INSTALL_HINT = "install it with: apt-get update && apt-get install -y chromium chromium-driver"


# --- Finishing matches without workers ---------------------------------------------------------------


def play_in_process(claim) -> MatchResult:
    """Play a claimed match with the engine here; each seat picks uniformly at random, seeded per match."""
    state = engines.get(claim.game).new_state(claim.players, claim.seed, claim.options or None)
    rng = random.Random(claim.seed)
    actions = []
    while not state.is_terminal():
        action = rng.choice(state.legal_actions())
        state.apply(action)
        actions.append(action)
    scores, places = state.scores(), state.ranking()
    return MatchResult(
        game=claim.game, players=claim.players, seed=claim.seed, options=claim.options, actions=actions,
        seats=[SeatResult(bot=seat.bot_name, score=scores[i], place=places[i], outcome="ok", reason="",
                          time_used_ms=5, log=f"{seat.bot_name} says <script>alert('log')</script>\n")
               for i, seat in enumerate(claim.seats)],
        duration_s=0.01,
    )


def fill_decisions(match, *, log=None, seed: int = 1) -> dict[int, list[dict]]:
    """Record on each seat of the finished ``match`` one decision per action it took, as the referee
    records them: ``{"step": action index, "ms", "log"}``. Think times are seeded, mostly well inside a
    second with an occasional slow one; ``log(position, step)`` is what the bot printed (by default a
    line naming the seat and the action). Returns the records by seat position."""
    from ladder.selectors.matches import replay_timeline

    rng = random.Random(seed)
    log = log or (lambda position, step: f"seat {position} weighs action {step}\nchose option {step % 3}\n")
    steps = replay_timeline(game=match.game.slug, players=match.players, seed=match.seed, options=match.options,
                            actions=match.actions)
    records: dict[int, list[dict]] = {}
    for step in steps[1:]:
        ms = rng.choice([rng.randint(15, 400)] * 9 + [rng.randint(1100, 2500)])
        records.setdefault(step.actor, []).append({"step": step.step - 1, "ms": ms, "log": log(step.actor, step.step - 1)})
    for seat in match.seats.all():
        seat.decisions = records.get(seat.position, [])
        seat.save(update_fields=["decisions"])
    return records


def finish_match(match_id: int) -> None:
    """Claim and record one queued match, exactly as a worker would (ratings and standings included)."""
    claim = match_claim(match_id=match_id, worker="web-tests")
    assert claim is not None, f"match {match_id} could not be claimed"
    assert match_record_result(match_id=match_id, token=claim.token, result=play_in_process(claim))


@pytest.fixture(autouse=True)
def matches_stay_in_process(settings, monkeypatch):
    """Tournament messages go to Kombu's in-memory broker for the length of the test: no worker consumes
    them here (matches are finished in-process), and none may be left on the real broker for one."""
    from ladder.messaging import enqueue

    settings.CELERY_BROKER_URL = "memory://"
    settings.CELERY_BROKER_TRANSPORT = "memory"  # the embedded default names its own transport class
    # Celery lets this variable override its configuration (CI sets it to Redis).
    monkeypatch.setenv("CELERY_BROKER_URL", "memory://")
    # The publishing client is built once per process from settings; a fresh one reads the override,
    # and the original comes back when the test ends.
    monkeypatch.setattr(enqueue, "_client", None)
    yield


@pytest.fixture
def tournament_factory(bot_factory):
    """``tournament_factory(game, bots=4, players=2, finish=True, rated=False, duplicate=False,
    games_per_pairing=1)``: a round robin between fresh bots, scheduled by the tournament service and,
    unless ``finish`` is False, played to the end. Unrated, it is the first bot's owner's with ``seed``;
    ``rated`` makes it a staff tournament that moves the leaderboard."""

    def make(game: str = "kingdomino", *, bots: int = 4, players: int = 2, finish: bool = True,
             name: str = "Autumn cup", names: list[str] | None = None, seed: int = 7,
             rated: bool = False, duplicate: bool = False, games_per_pairing: int = 1) -> Tournament:
        from ladder.models import Game
        from tests.factories import StaffFactory

        the_game = Game.objects.get(slug=game)
        names = names or [f"{game[:4]}-bot-{i}" for i in range(bots)]
        made = [bot_factory(game=the_game, name=bot_name) for bot_name in names]
        tournament = tournament_create(created_by=StaffFactory() if rated else made[0].owner,
                                       game_slug=game, name=name, bot_ids=[b.id for b in made],
                                       players_per_match=players, seed=None if rated else seed, rated=rated,
                                       duplicate=duplicate, games_per_pairing=games_per_pairing)
        if finish:
            for match_id in tournament.matches.order_by("index").values_list("id", flat=True):
                finish_match(match_id)
            tournament.refresh_from_db()
        return tournament

    return make


# --- The browser -------------------------------------------------------------------------------------


def chromium_or_skip() -> str:
    """The Chromium binary; skips the test when it is missing, but fails under CI, which must have it."""
    path = CHROMIUM if os.path.exists(CHROMIUM) else shutil.which("chromium")
    if path:
        return path
    if os.environ.get("CI"):
        pytest.fail(f"Chromium is missing at {CHROMIUM} and CI is set; {INSTALL_HINT}")
    pytest.skip(f"Chromium is missing at {CHROMIUM}; {INSTALL_HINT}")


@pytest.fixture(scope="module")
def browser():
    """One headless Chromium per test module, driven by Playwright (never ``playwright install``).

    Playwright's sync API keeps an asyncio loop running in this thread, which Django takes for an async
    context and refuses database calls in. The test thread's database calls are plain synchronous code
    (finishing matches, reading rows), so Django's check is lifted while the browser lives, and only then:
    the module scope ends the loop before other modules run.
    """
    path = chromium_or_skip()
    from playwright.sync_api import sync_playwright

    SCREENSHOTS.mkdir(exist_ok=True)
    previous = os.environ.get("DJANGO_ALLOW_ASYNC_UNSAFE")
    os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = "true"
    try:
        with sync_playwright() as playwright:
            chromium = playwright.chromium.launch(executable_path=path, args=CHROMIUM_ARGS, headless=True)
            yield chromium
            chromium.close()
    finally:
        if previous is None:
            os.environ.pop("DJANGO_ALLOW_ASYNC_UNSAFE", None)
        else:
            os.environ["DJANGO_ALLOW_ASYNC_UNSAFE"] = previous


class ConsoleWatch:
    """Collects JavaScript errors and dialogs (an ``alert`` means injected script ran) of one page."""

    def __init__(self, page) -> None:
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        page.on("console", lambda msg: self.errors.append(msg.text) if msg.type == "error" else None)
        page.on("pageerror", lambda exc: self.errors.append(str(exc)))
        page.on("dialog", self._dialog)

    def _dialog(self, dialog) -> None:
        self.dialogs.append(dialog.message)
        dialog.dismiss()


@pytest.fixture
def page(browser, live_server):
    """A fresh browser context (no cookies) at a laptop's size; ``page.console`` collects JS errors."""
    context = browser.new_context(viewport={"width": 1280, "height": 900}, base_url=live_server.url)
    context.set_default_timeout(15_000)
    tab = context.new_page()
    tab.console = ConsoleWatch(tab)
    yield tab
    context.close()
    assert tab.console.errors == [], f"JavaScript errors: {tab.console.errors}"
    assert tab.console.dialogs == [], f"a dialog opened (injected script ran?): {tab.console.dialogs}"


@pytest.fixture
def phone_page(browser, live_server):
    """Like ``page`` at a phone's size."""
    context = browser.new_context(viewport={"width": 390, "height": 844}, base_url=live_server.url,
                                  is_mobile=True, has_touch=True, device_scale_factor=2)
    tab = context.new_page()
    tab.console = ConsoleWatch(tab)
    yield tab
    context.close()
    assert tab.console.errors == [], f"JavaScript errors: {tab.console.errors}"


def screenshot(page, name: str) -> Path:
    """Save a full-page screenshot under tests/web/screenshots/ (gitignored) and return its path."""
    SCREENSHOTS.mkdir(exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=True)
    return path
