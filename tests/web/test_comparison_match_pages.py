"""The site keeps a version comparison's matches for the comparison's owner and staff: the match page
and its replay steps answer 404 to anyone else (the owner of an opponent bot included), and the home page,
a game's page and a bot's page list them to those two alone and count none of them."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from ladder.models import Match
from ladder.services.tournaments.comparisons import comparison_create
from tests.factories import BotFactory, BotVersionFactory, StaffFactory, UserFactory
from tests.web.conftest import finish_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def setup(bot_factory):
    """A comparison of ``bot``'s two versions against ``rival``'s bot, its first pair played."""
    owner, rival = UserFactory(), UserFactory()
    bot = bot_factory(owner=owner, name="learner")
    BotVersionFactory(bot=bot)
    opponent = BotFactory(owner=rival, game=bot.game, name="sparring")
    comparison = comparison_create(user=owner, bot_id=bot.id, baseline=1, candidate=2, opponents=[opponent.id])
    pair = list(comparison.matches.order_by("index")[:2])
    for match in pair:
        finish_match(match.id)
    return {"owner": owner, "rival": rival, "bot": bot, "matches": [Match.objects.get(pk=m.pk) for m in pair]}


def _as(client, user):
    client.logout()
    if user is not None:
        client.force_login(user)
    return client


def _strangers(setup):
    return {"anonymous": None, "another user": UserFactory(), "the opponent's owner": setup["rival"]}


def _readers(setup):
    return {"owner": setup["owner"], "staff": StaffFactory()}


def _match_links(html: str) -> set[int]:
    return {int(found) for found in re.findall(r'href="/matches/(\d+)/"', html)}


def test_the_match_page_and_its_steps_are_a_404_for_anyone_but_the_owner_and_staff(client, setup):
    match = setup["matches"][0]
    for who, user in _strangers(setup).items():
        _as(client, user)
        assert client.get(reverse("match", args=[match.id])).status_code == 404, who
        assert client.get(reverse("match-frame", args=[match.id]), {"step": 1}).status_code == 404, who
    for who, user in _readers(setup).items():
        _as(client, user)
        page = client.get(reverse("match", args=[match.id]))
        assert page.status_code == 200 and "version comparison" in page.content.decode(), who
        frame = client.get(reverse("match-frame", args=[match.id]), {"step": 1})
        assert frame.status_code == 200, who
        # Never kept by a shared cache, which would hand it to the next visitor.
        assert frame["Cache-Control"].startswith("private"), who


@pytest.mark.parametrize("page", ["home", "game", "bot"])
def test_recent_match_lists_show_a_comparisons_matches_to_the_owner_and_staff_only(client, setup, page):
    url = {"home": "/", "game": f"/games/{setup['bot'].game.slug}/", "bot": f"/bots/{setup['bot'].id}/"}[page]
    private = {match.id for match in setup["matches"]}
    for who, user in _strangers(setup).items():
        html = _as(client, user).get(url).content.decode()
        assert not private & _match_links(html), who
    for who, user in _readers(setup).items():
        html = _as(client, user).get(url).content.decode()
        assert private <= _match_links(html), who


def test_the_home_page_counts_no_comparison_match(client, setup):
    game = setup["bot"].game
    for user in (None, setup["owner"]):
        html = _as(client, user).get("/").content.decode()
        card = html[html.index(f'href="/games/{game.slug}/"'):]
        assert re.search(r"(\d+) finished match", card).group(1) == "0"
