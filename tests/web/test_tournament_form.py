"""The tournament creation page (/tournaments/new/) through Django's test client: who may use it, what
it offers, what it schedules, and where each refusal of the tournament service is shown."""

from __future__ import annotations

import re
from collections import defaultdict

import pytest
from django.test import Client
from django.urls import reverse

from ladder.models import Bot, BotVersion, Game, Rating, Tournament
from tests.factories import StaffFactory

pytestmark = pytest.mark.django_db

HOSTILE = "<script>alert(1)</script>"
URL = "/tournaments/new/"


@pytest.fixture(autouse=True)
def _no_throttle_counts(fresh_cache):
    """The creation rate limit counts in the cache; each test starts with none."""


@pytest.fixture
def ada(client, user_factory):
    user = user_factory(username="ada")
    client.force_login(user)
    return user


def _kingdomino_bots(bot_factory, names=("alpha", "bravo", "charlie")) -> list[Bot]:
    game = Game.objects.get(slug="kingdomino")
    return [bot_factory(game=game, name=name) for name in names]


def _post(client, entrants, **fields):
    data = {"game": "kingdomino", "name": "Spring cup", "bots": [b.id for b in entrants], "players_per_match": 2,
            "games_per_pairing": 1, "options": "", "seed": ""}
    data.update(fields)
    return client.post(URL, data)


def _field_error(html: str, field: str) -> str:
    """The text of the first error shown inside the given field's block of the page."""
    found = re.search(rf'<pre class="field-error" role="alert" id="error-{field}-1">(.*?)</pre>', html, re.S)
    assert found, f"no error shown beside {field}"
    return found.group(1)


def test_anonymous_visitors_are_sent_to_the_login_page(client, bot_factory):
    bots = _kingdomino_bots(bot_factory)
    response = client.get(URL)
    assert response.status_code == 302
    assert response.url == f"{reverse('login')}?next={URL}"
    response = _post(client, bots)
    assert response.status_code == 302 and response.url.startswith(reverse("login"))
    assert not Tournament.objects.exists()


def test_the_page_is_linked_from_the_tournaments_list_and_the_nav_when_signed_in(client, ada):
    nav, main = client.get("/tournaments/").content.decode().split("<main>")
    assert f'href="{URL}"' in nav and f'href="{URL}"' in main
    assert f'href="{URL}"' in client.get("/").content.decode()
    client.logout()
    html = client.get("/tournaments/").content.decode()
    assert f'href="{URL}"' not in html
    assert f'href="{reverse("login")}?next={URL}"' in html


def test_the_form_offers_the_games_active_accepted_bots_of_anybody_with_owner_and_rating(
        client, ada, bot_factory, user_factory):
    grace = user_factory(username="grace")
    mine, theirs = _kingdomino_bots(bot_factory, names=("adas-bot", "graces-bot"))
    Bot.objects.filter(pk=theirs.pk).update(owner=grace)
    Rating.objects.filter(bot=theirs).update(elo=1612.4)
    retired = _kingdomino_bots(bot_factory, names=("retired",))[0]
    Bot.objects.filter(pk=retired.pk).update(active=False)
    unchecked = _kingdomino_bots(bot_factory, names=("unchecked",))[0]
    BotVersion.objects.filter(bot=unchecked).update(validation_status=BotVersion.Validation.PENDING)
    bot_factory(game=Game.objects.get(slug="draftosaurus"), name="dino")

    response = client.get(URL)
    html = response.content.decode()
    assert response.status_code == 200
    assert [bot.name for _box, bot in response.context["form"].bot_choices()] == ["graces-bot", "adas-bot"]
    assert "grace" in html and "1612" in html
    assert "retired" not in html and "unchecked" not in html and "dino" not in html
    assert 'min="2"' in html and 'max="4"' in html  # kingdomino's players
    assert "csrfmiddlewaretoken" in html
    sources = re.findall(r'<(?:script|link)[^>]+(?:src|href)="([^"]+)"', html)
    assert "/static/ladder/tournament_form.js" in sources and all(src.startswith("/static/") for src in sources)

    # Choosing a game (a plain GET parameter) narrows the list to its bots and its player range.
    response = client.get(URL, {"game": "draftosaurus"})
    html = response.content.decode()
    assert [bot.name for _box, bot in response.context["form"].bot_choices()] == ["dino"]
    assert 'max="5"' in html and "adas-bot" not in html
    # Keys in order whatever the database keeps them in (PostgreSQL's jsonb orders them its own way).
    assert ("over Draftosaurus&#x27;s defaults, {&quot;board&quot;: &quot;summer&quot;, &quot;mode&quot;: "
            "&quot;single&quot;}") in html
    assert 'value="draftosaurus" selected' in html
    # An unknown game falls back to the first one rather than failing.
    assert client.get(URL, {"game": "chess"}).status_code == 200


def test_a_hostile_bot_name_is_escaped(client, ada, bot_factory):
    bots = _kingdomino_bots(bot_factory, names=("plain", "x"))
    Bot.objects.filter(pk=bots[1].pk).update(name=HOSTILE)
    html = client.get(URL).content.decode()
    assert HOSTILE not in html and "&lt;script&gt;alert(1)&lt;/script&gt;" in html


def test_a_duplicate_round_robin_is_created_and_the_browser_lands_on_its_page(client, ada, bot_factory):
    bots = _kingdomino_bots(bot_factory)
    response = _post(client, bots, games_per_pairing=2, duplicate="on", seed="11",
                     options='{"harmony": true}')
    tournament = Tournament.objects.get()
    assert response.status_code == 302 and response.url == reverse("tournament", args=[tournament.id])
    assert (tournament.name, tournament.created_by, tournament.duplicate, tournament.rated, tournament.seed) == (
        "Spring cup", ada, True, False, 11)
    assert tournament.options["harmony"] is True
    assert sorted(tournament.bots.values_list("id", flat=True)) == sorted(b.id for b in bots)
    # 3 pairings x 2 deals x 2 seat rotations; each deal is one seed played in both seat orders.
    matches = list(tournament.matches.prefetch_related("seats").order_by("index"))
    assert len(matches) == 12
    by_deal = defaultdict(list)
    for match in matches:
        by_deal[match.deal].append(match)
    assert len(by_deal) == 6
    for rotations in by_deal.values():
        orders = [tuple(s.bot_id for s in sorted(m.seats.all(), key=lambda s: s.position)) for m in rotations]
        assert len({m.seed for m in rotations}) == 1
        assert orders[1] == orders[0][::-1]
    assert "Spring cup" in client.get(response.url).content.decode()


def test_a_plain_round_robin_without_duplicate(client, ada, bot_factory):
    bots = _kingdomino_bots(bot_factory)
    _post(client, bots, name="Plain cup")
    tournament = Tournament.objects.get()
    assert tournament.duplicate is False and tournament.matches.count() == 3
    assert tournament.matches.filter(deal__isnull=False).count() == 0


def test_too_few_bots_is_shown_beside_the_bots(client, ada, bot_factory):
    bots = _kingdomino_bots(bot_factory)
    response = _post(client, bots[:1])
    assert response.status_code == 200
    assert "needs at least 2 bots" in _field_error(response.content.decode(), "bots")
    assert not Tournament.objects.exists()
    # The choices made are kept.
    assert response.context["form"]["bots"].value() == [str(bots[0].id)]


def test_bad_json_options_are_shown_beside_the_options(client, ada, bot_factory):
    bots = _kingdomino_bots(bot_factory)
    html = _post(client, bots, options='{"harmony": tru}').content.decode()
    assert "options must be JSON" in _field_error(html, "options")
    html = _post(client, bots, options="[1, 2]").content.decode()
    assert "options must be a JSON object" in _field_error(html, "options")
    html = _post(client, bots, options='{"harmony": NaN}').content.decode()
    assert "NaN" in _field_error(html, "options")
    html = _post(client, bots, options="[" * 5000 + "]" * 5000).content.decode()
    assert "nested deeper than 64 levels" in _field_error(html, "options")
    html = _post(client, bots, options='{"no_such_option": 1}').content.decode()
    assert "the game refused these settings" in _field_error(html, "options")
    assert not Tournament.objects.exists()


@pytest.mark.parametrize(("options", "words"), [
    # Under the standard library's recursion limit, so it parsed there; over the API's depth cap.
    ('{"harmony": ' + "[" * 100 + "]" * 100 + "}", "is nested deeper than 64 levels"),
    ('{"harmony": "\\ud800"}', "is not JSON"),
    ('{"harmony": 1e999}', "is not JSON"),
], ids=["deeper-than-the-api-allows", "lone-surrogate", "infinity"])
def test_options_are_read_by_the_apis_bounded_parser(client, ada, bot_factory, options, words):
    html = _post(client, _kingdomino_bots(bot_factory), options=options).content.decode()
    assert "options must be JSON: it " + words in _field_error(html, "options")
    assert not Tournament.objects.exists()


def test_players_outside_the_games_range_are_shown_beside_the_field(client, ada, bot_factory):
    bots = _kingdomino_bots(bot_factory, names=("a1", "a2", "a3", "a4", "a5"))
    html = _post(client, bots, players_per_match=5).content.decode()
    assert "kingdomino is played by 2 to 4 players, not 5" in _field_error(html, "players_per_match")
    html = _post(client, bots, players_per_match="many").content.decode()
    assert _field_error(html, "players_per_match")
    assert not Tournament.objects.exists()


def test_other_refusals_of_the_service_name_their_field(client, ada, bot_factory):
    bots = _kingdomino_bots(bot_factory)
    dino = bot_factory(game=Game.objects.get(slug="draftosaurus"), name="dino")
    html = _post(client, [*bots, dino]).content.decode()
    assert "another game than kingdomino: dino" in _field_error(html, "bots")
    html = _post(client, bots, name="   ").content.decode()
    assert "give the tournament a name" in _field_error(html, "name")
    html = _post(client, [], bots=["99999999999999999999"]).content.decode()
    assert _field_error(html, "bots")
    html = _post(client, bots, game="chess").content.decode()
    assert _field_error(html, "game")
    assert not Tournament.objects.exists()


def test_a_non_staff_user_cannot_set_rated_even_by_posting_it(client, ada, bot_factory):
    bots = _kingdomino_bots(bot_factory)
    assert 'name="rated"' not in client.get(URL).content.decode()
    response = _post(client, bots, rated="on")
    tournament = Tournament.objects.get()
    assert response.status_code == 302
    assert tournament.rated is False
    assert not Rating.objects.filter(bot__in=bots).exclude(games=0).exists()


def test_staff_may_start_a_rated_tournament_without_a_seed(client, bot_factory):
    client.force_login(StaffFactory())
    bots = _kingdomino_bots(bot_factory)
    assert 'name="rated"' in client.get(URL).content.decode()
    html = _post(client, bots, rated="on", seed="5").content.decode()
    assert "rated tournament has no chosen seed" in _field_error(html, "seed")
    response = _post(client, bots, rated="on")
    tournament = Tournament.objects.get()
    assert response.status_code == 302 and tournament.rated is True and tournament.seed is None


def test_past_the_daily_quota_the_form_says_when_it_frees_up(client, ada, bot_factory, settings):
    settings.UNRATED_MATCHES_PER_DAY = 4
    bots = _kingdomino_bots(bot_factory)
    assert _post(client, bots[:2], games_per_pairing=3).status_code == 302  # 3 of the 4 matches
    response = _post(client, bots[:2], games_per_pairing=2, name="Second cup")
    html = response.content.decode()
    assert response.status_code == 429
    assert int(response["Retry-After"]) > 23 * 3600
    errors = re.search(r'<div class="errors" role="alert">(.*?)</div>', html, re.S).group(1)
    assert "at most 4 matches per day" in errors
    assert re.search(r"free again at \d\d:\d\d UTC", errors)
    assert Tournament.objects.count() == 1


def test_the_creation_throttle_of_the_api_counts_here_too(client, ada, bot_factory, settings):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK,
                               "DEFAULT_THROTTLE_RATES": {"tournaments": "1/hour"}}
    bots = _kingdomino_bots(bot_factory)
    assert _post(client, bots).status_code == 302
    response = _post(client, bots, name="Again")
    assert response.status_code == 429
    assert "too many tournaments created" in response.content.decode()
    assert Tournament.objects.count() == 1


def test_posting_without_the_csrf_token_is_refused(ada, bot_factory):
    browser = Client(enforce_csrf_checks=True)
    browser.force_login(ada)
    bots = _kingdomino_bots(bot_factory)
    assert _post(browser, bots).status_code == 403
    assert not Tournament.objects.exists()


def test_the_form_offers_the_sandbox_limits_up_to_the_games_own_for_a_user(client, ada, bot_factory, settings):
    settings.BOTS_LIMITS_BY_GAME = {"kingdomino": {"move_ms": 400}}
    _kingdomino_bots(bot_factory)
    html = client.get(URL).content.decode()
    move = re.search(r'<input[^>]*name="limits\.move_ms"[^>]*>', html).group(0)
    assert 'max="400"' in move and 'min="10"' in move
    assert "10 to 400 (Kingdomino&#x27;s own limit: you may tighten it, not loosen it)" in html
    client.force_login(StaffFactory())
    staff_move = re.search(r'<input[^>]*name="limits\.move_ms"[^>]*>', client.get(URL).content.decode()).group(0)
    assert f'max="{settings.BOTS_MAX_MOVE_MS}"' in staff_move


def test_a_user_may_tighten_the_limits_and_a_loosened_one_is_refused_beside_its_field(
        client, ada, bot_factory, settings):
    settings.BOTS_LOG_BYTES, settings.BOTS_LIMITS_BY_GAME = 65536, {}
    bots = _kingdomino_bots(bot_factory)
    response = _post(client, bots, **{"limits.log_bytes": "1048576"})
    assert response.status_code == 200
    message = _field_error(response.content.decode(), "limits.log_bytes")
    assert "log_bytes may be at most 65536 (kingdomino&#x27;s own limit)" in message
    assert not Tournament.objects.exists()
    assert _post(client, bots, **{"limits.move_ms": "200", "limits.log_bytes": "1024"}).status_code == 302
    tournament = Tournament.objects.get()
    assert tournament.limits == {"move_ms": 200, "log_bytes": 1024}
    assert {(m.limits["move_ms"], m.limits["log_bytes"]) for m in tournament.matches.all()} == {(200, 1024)}


def test_staff_may_loosen_a_limit_up_to_the_servers_cap_on_the_form(client, bot_factory, settings):
    client.force_login(StaffFactory())
    bots = _kingdomino_bots(bot_factory)
    assert _post(client, bots, **{"limits.log_bytes": str(settings.BOTS_MAX_LOG_BYTES)}).status_code == 302
    assert Tournament.objects.get().limits == {"log_bytes": settings.BOTS_MAX_LOG_BYTES}


def test_past_the_daily_worker_time_the_form_is_refused_with_retry_after(client, ada, bot_factory, settings):
    settings.BOTS_LIMITS_BY_GAME = {}
    settings.BOTS_MATCH_MS = 30000
    # A two-player match at these limits may take 2 x (5 + 30) s + 10 s = 80 s: room for two.
    settings.WORKER_SECONDS_PER_DAY = 200
    bots = _kingdomino_bots(bot_factory)
    assert _post(client, bots[:2], games_per_pairing=2).status_code == 302
    response = _post(client, bots[:2], games_per_pairing=1, name="Second cup")
    assert response.status_code == 429
    # Every reservation is a match still to be played: it is released once played, so ask again soon.
    assert int(response["Retry-After"]) == 60
    errors = re.search(r'<div class="errors" role="alert">(.*?)</div>', response.content.decode(), re.S).group(1)
    assert "at most 200 worker seconds per day" in errors
    assert "free again at" in errors
    assert Tournament.objects.count() == 1
    # Tighter limits reserve less: 2 x (5 + 0.5) s + 10 s = 21 s fits in what is left.
    assert _post(client, bots[:2], name="Tight cup", **{"limits.match_ms": "500"}).status_code == 302
