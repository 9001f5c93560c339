"""Every write a user asks for meets its rate limit inside the service that performs it
(``ladder.core.quotas.write_rate_check``): the site and the API cannot skip it, and answer it alike,
429 with Retry-After.

The inventory test lists every route of both surfaces that accepts a write: each is either checked here
(its POST, with a body the service would accept, is refused past the limit and creates nothing) or named
with the reason it is not counted per user. A new write route fails it until it is sorted.
"""

from __future__ import annotations

import inspect

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client
from django.urls import URLPattern, URLResolver, get_resolver

from ladder.core.quotas import QuotaExceeded, write_rate_check, write_rate_usage
from ladder.models import Bot, BotVersion, Comparison, Tournament, Webhook
from ladder.services.uploads.bots import bot_create
from tests.api.helpers import token_client
from tests.factories import FIRST_LEGAL_BOT, BotFactory, BotVersionFactory, UserFactory, WebhookFactory

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]


@pytest.fixture
def rates(throttle_rates, settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True  # the webhooks created here point at the loopback
    return throttle_rates


def _code() -> SimpleUploadedFile:
    return SimpleUploadedFile("bot.py", FIRST_LEGAL_BOT)


def _count() -> tuple[int, ...]:
    return (Bot.objects.count(), BotVersion.objects.count(), Tournament.objects.count(), Comparison.objects.count(),
            Webhook.objects.count(), Bot.objects.filter(active=True).count())


# (surface, route name, request): each request is one the service would accept, sent by the bot's owner.
def _site(bot):
    client = Client()
    client.force_login(bot.owner)
    return client


def _api(bot):
    return token_client(bot.owner)


def _rival(bot):
    """Another owner's bot of the same game, made before the request (see ``_made``)."""
    return Bot.objects.exclude(owner=bot.owner).filter(game=bot.game).first()


def _made() -> Bot:
    """A bot with accepted versions 1 and 2, a rival of another owner, and a webhook of its owner."""
    bot = BotFactory()
    BotVersionFactory(bot=bot)
    BotFactory()
    WebhookFactory(owner=bot.owner)
    return bot


def _webhook_id(bot) -> int:
    return Webhook.objects.filter(owner=bot.owner).values_list("id", flat=True).first()


def _inactive(bot) -> Bot:
    Bot.objects.filter(pk=bot.pk).update(active=False)
    return bot


# Route name: (the kind of write it counts as, the request).
CHECKED = {
    "bot-upload": ("uploads", lambda bot: _site(bot).post("/bots/new/", {"game": "kingdomino", "name": "fresh",
                                                                          "code": _code()})),
    "bot-version-upload": ("uploads", lambda bot: _site(bot).post(f"/bots/{bot.id}/versions/", {"code": _code()})),
    "comparison-start": ("comparisons", lambda bot: _site(bot).post(f"/bots/{bot.id}/comparisons/",
                                                                    {"baseline": "1", "candidate": "2"})),
    "tournament-create": ("tournaments", lambda bot: _site(bot).post("/tournaments/new/", {
        "game": "kingdomino", "name": "cup", "bots": [bot.id, _rival(bot).id], "players_per_match": 2,
        "games_per_pairing": 1, "options": "", "seed": ""})),
    "api-bots": ("uploads", lambda bot: _api(bot).post("/api/bots/", {"game": "kingdomino", "name": "fresh",
                                                                      "code": _code()}, format="multipart")),
    "api-bot-versions": ("uploads", lambda bot: _api(bot).post(f"/api/bots/{bot.id}/versions/", {"code": _code()},
                                                               format="multipart")),
    "api-bot-comparisons": ("comparisons", lambda bot: _api(bot).post(f"/api/bots/{bot.id}/comparisons/",
                                                                      {"baseline": 1, "candidate": 2}, format="json")),
    "api-tournaments": ("tournaments", lambda bot: _api(bot).post("/api/tournaments/", {
        "game": "kingdomino", "name": "cup", "bots": [bot.id, _rival(bot).id], "players_per_match": 2},
        format="json")),
    # Each may send an event to every webhook of the owner, and a create and a delete together renew them.
    "api-bot-deactivate": ("activations", lambda bot: _api(bot).post(f"/api/bots/{bot.id}/deactivate/")),
    "api-bot-reactivate": ("activations", lambda bot: _api(_inactive(bot)).post(f"/api/bots/{bot.id}/reactivate/")),
    "api-webhooks": ("webhooks", lambda bot: _api(bot).post("/api/webhooks/", {
        "url": "http://127.0.0.1:9/other", "events": ["bot.deactivated"]}, format="json")),
    "api-webhook": ("webhooks", lambda bot: _api(bot).delete(f"/api/webhooks/{_webhook_id(bot)}/")),
}

# Writes not counted per user, and why.
EXEMPT = {
    "signup": "no user yet: registrations are limited per client address, with the API's counter",
    "login": "no user yet: limited per client address with the API's token requests (password guessing)",
    "logout": "ends a session",
    "api-register": "no user yet: limited per client address (RegistrationThrottle)",
    "api-token": "no user yet: limited per client address (LoginThrottle, password guessing)",
    "token-revoke": "revokes the token the request came with: no work for the server, nothing left to repeat",
    "api-tokens": "an account holds at most API_TOKENS_PER_USER tokens; making one is a row, no work for workers",
    "api-token-detail": "revokes one of the caller's own tokens",
    "api-token-rotate": "replaces one of the caller's own tokens' key: their number does not grow",
    "account": "the site's token page: makes (held to API_TOKENS_PER_USER) and revokes the caller's own tokens",
}


def _routes(patterns):
    """``(name, view)`` of every named route but the admin's (staff's own pages)."""
    for pattern in patterns:
        if isinstance(pattern, URLResolver):
            if pattern.namespace != "admin":
                yield from _routes(pattern.url_patterns)
        elif isinstance(pattern, URLPattern) and pattern.name:
            yield pattern.name, pattern.callback


def _takes_writes(view) -> bool:
    """Whether a view answers POST (or another write): a class-based view with such a handler, or a
    function view whose code reads a POST."""
    cls = getattr(view, "view_class", None) or getattr(view, "cls", None)
    if cls is not None:
        return any(hasattr(cls, method) for method in ("post", "put", "patch", "delete"))
    return "POST" in inspect.getsource(inspect.unwrap(view))


def test_every_write_route_of_the_site_and_the_api_is_rate_checked_or_exempt_with_a_reason():
    writes = {name for name, view in _routes(get_resolver().url_patterns) if _takes_writes(view)}
    known = set(CHECKED) | set(EXEMPT)
    assert writes == known, {"not sorted": sorted(writes - known), "no longer writes": sorted(known - writes)}


@pytest.mark.parametrize("route", sorted(CHECKED))
def test_past_its_rate_every_write_of_either_surface_is_a_429_with_retry_after_and_changes_nothing(route, rates):
    bot = _made()
    rates(uploads="0/hour", tournaments="0/hour", webhooks="0/hour", activations="0/hour")
    kind, request = CHECKED[route]
    if route == "api-bot-reactivate":
        _inactive(bot)
    before = _count()

    response = request(bot)

    assert response.status_code == 429, response.content[:300]
    assert 1 <= int(response["Retry-After"]) <= 3600
    assert "too many" in response.content.decode()
    assert _count() == before


@pytest.mark.parametrize("route", sorted(CHECKED))
def test_within_its_rate_every_checked_write_succeeds_and_is_counted(route, rates):
    bot = _made()
    rates(uploads="5/hour", tournaments="5/hour", webhooks="5/hour", activations="5/hour")
    kind, request = CHECKED[route]

    response = request(bot)

    assert response.status_code in (200, 201, 202, 204, 302), response.content[:300]
    assert write_rate_usage(user=bot.owner, kind=kind).used == 1


def test_the_site_and_the_api_share_one_count_per_user(rates):
    bot = BotFactory()
    rates(uploads="2/hour")
    assert CHECKED["bot-version-upload"][1](bot).status_code == 302
    assert CHECKED["api-bot-versions"][1](bot).status_code == 202
    refused = CHECKED["api-bots"][1](bot)
    assert refused.status_code == 429 and "too many uploads: at most 2 per hour" in refused.json()["detail"]
    other = BotFactory()
    assert CHECKED["bot-version-upload"][1](other).status_code == 302


def test_the_check_counts_within_the_window_says_when_a_slot_frees_and_ignores_the_servers_own_writes(rates):
    user = UserFactory()
    rates(tournaments="2/minute")
    write_rate_check(user=user, kind="tournaments", now=1000.0)
    write_rate_check(user=user, kind="comparisons", now=1010.0)  # the same scope as tournaments
    with pytest.raises(QuotaExceeded) as refused:
        write_rate_check(user=user, kind="tournaments", now=1030.0)
    assert refused.value.retry_after_s == 30 and refused.value.status == 429
    assert "at most 2 per minute; try again in 30 seconds" in refused.value.message
    assert write_rate_usage(user=user, kind="comparisons", now=1030.0).to_json() == {
        "limit": 2, "period": "minute", "used": 2, "left": 0, "frees_in_s": 30}
    write_rate_check(user=user, kind="tournaments", now=1061.0)  # the first left the window
    write_rate_check(user=None, kind="tournaments", now=1061.0)  # the server's own: never refused
    rates(tournaments=None)
    assert write_rate_usage(user=user, kind="tournaments") is None
    write_rate_check(user=user, kind="tournaments")


def test_the_service_itself_refuses_whoever_calls_it(rates):
    user = UserFactory()
    rates(uploads="0/hour")
    with pytest.raises(QuotaExceeded, match="too many uploads"):
        bot_create(owner=user, game_slug="kingdomino", name="direct", data=FIRST_LEGAL_BOT, filename="bot.py")
    assert not Bot.objects.filter(name="direct").exists()


def test_the_house_uploads_beyond_any_rate_and_a_user_who_took_its_name_does_not(rates):
    """The bench and the demo upload the house's bots through the services: the server's own writes."""
    from django.contrib.auth import get_user_model

    from ladder.services.uploads.examples import EXAMPLES_OWNER, examples_owner

    rates(uploads="1/hour")
    house = examples_owner()
    for number in range(3):
        bot_create(owner=house, game_slug="kingdomino", name=f"house{number}", data=FIRST_LEGAL_BOT,
                   filename="bot.py")
    assert Bot.objects.filter(owner=house).count() == 3
    # The same name with a usable password (registered before the house took it) is an ordinary user.
    house.delete()
    impostor = get_user_model().objects.create_user(username=EXAMPLES_OWNER, password="a-Password-1")
    write_rate_check(user=impostor, kind="uploads")
    with pytest.raises(QuotaExceeded):
        write_rate_check(user=impostor, kind="uploads")
