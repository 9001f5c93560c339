"""The comparison pages through Django's test client: who sees them, the bot page's form and its refusals,
a match of a comparison, and the LLR chart's markup."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from ladder.models import Comparison
from ladder.services.tournaments.comparisons import comparison_create
from ladder.web.charts import llr_chart_svg
from tests.factories import BotVersionFactory, UserFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def bot(bot_factory):
    bot = bot_factory(name="learner")
    BotVersionFactory(bot=bot)
    return bot


def test_the_comparison_page_is_for_the_owner_and_staff_only(client, bot):
    comparison = comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=2)
    url = reverse("comparison", args=[comparison.id])
    assert client.get(url).status_code == 404
    client.force_login(UserFactory(username="not-the-owner"))
    assert client.get(url).status_code == 404
    client.force_login(UserFactory(username="staff-reader", is_staff=True))
    assert client.get(url).status_code == 200
    client.force_login(bot.owner)
    html = client.get(url).content.decode()
    assert "Is v2 better than v1?" in html and 'data-status="running"' in html
    assert html.count('class="bound ') == 2


def test_the_bot_page_lists_comparisons_and_offers_the_form_to_its_owner_only(client, bot):
    comparison = comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=2)
    assert 'id="comparisons"' not in client.get(f"/bots/{bot.id}/").content.decode()
    client.force_login(bot.owner)
    html = client.get(f"/bots/{bot.id}/").content.decode()
    assert 'id="comparison-form"' in html and reverse("comparison", args=[comparison.id]) in html
    # Staff read the list, but only the owner may start a comparison.
    client.force_login(UserFactory(username="staff-on-bot-page", is_staff=True))
    html = client.get(f"/bots/{bot.id}/").content.decode()
    assert reverse("comparison", args=[comparison.id]) in html and 'id="comparison-form"' not in html


def test_the_form_starts_a_comparison_and_redirects_to_it(client, bot):
    client.force_login(bot.owner)
    response = client.post(reverse("comparison-start", args=[bot.id]),
                           {"baseline": "1", "candidate": "2", "max_games": "50"})
    comparison = Comparison.objects.get()
    assert response.status_code == 302 and response["Location"] == reverse("comparison", args=[comparison.id])
    assert comparison.max_games == 50 and comparison.created_by == bot.owner


def test_the_form_shows_a_refusal_beside_its_field(client, bot):
    client.force_login(bot.owner)
    response = client.post(reverse("comparison-start", args=[bot.id]), {"baseline": "2", "candidate": "2"})
    assert response.status_code == 200
    assert "the same version" in response.content.decode()
    assert not Comparison.objects.exists()


def test_past_the_quota_the_form_answers_429_with_retry_after(client, bot, settings):
    settings.UNRATED_MATCHES_PER_DAY = 30
    client.force_login(bot.owner)
    url = reverse("comparison-start", args=[bot.id])
    assert client.post(url, {"baseline": "1", "candidate": "2", "max_games": "20"}).status_code == 302
    refused = client.post(url, {"baseline": "1", "candidate": "2", "max_games": "20"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    assert "too many matches" in refused.content.decode()


def test_past_the_worker_seconds_the_form_answers_429_with_retry_after(client, bot, settings):
    settings.BOTS_MATCH_MS, settings.BOTS_LIMITS_BY_GAME, settings.WORKER_SECONDS_PER_DAY = 30000, {}, 2000
    client.force_login(bot.owner)
    url = reverse("comparison-start", args=[bot.id])
    # 20 games at 2 x (5 s + 30 s) + 10 s each: 1600 of the 2000 s, held while it runs.
    assert client.post(url, {"baseline": "1", "candidate": "2", "max_games": "20"}).status_code == 302
    refused = client.post(url, {"baseline": "1", "candidate": "2", "max_games": "6"})
    assert refused.status_code == 429 and int(refused["Retry-After"]) >= 1
    html = refused.content.decode()
    assert "too much worker time" in html and "at most 2000 worker seconds per day" in html
    assert "Enough of your quota for this comparison is free again at" in html
    assert Comparison.objects.count() == 1


def test_only_the_owner_may_post_the_form(client, bot):
    client.force_login(UserFactory(username="intruder"))
    assert client.post(reverse("comparison-start", args=[bot.id]), {"baseline": "1", "candidate": "2"}).status_code == 404
    assert not Comparison.objects.exists()


def test_a_comparison_match_page_says_so(client, bot):
    client.force_login(bot.owner)
    comparison = comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=2)
    match = comparison.matches.order_by("index").first()
    html = client.get(reverse("match", args=[match.id])).content.decode()
    assert "version comparison" in html and "unrated" in html


def test_the_llr_chart_draws_the_bounds_and_the_line_from_zero():
    svg = llr_chart_svg([0.5, 1.2, 3.1], lower=-2.94, upper=2.94)
    assert 'class="bound upper"' in svg and 'class="bound lower"' in svg
    assert svg.count("<polyline") == 1 and "pair 3" in svg
    empty = llr_chart_svg([], lower=-2.94, upper=2.94)
    assert "No complete pair yet" in empty and "<polyline" not in empty


def test_the_bot_page_reads_its_comparisons_in_one_query_however_many(client, bot):
    client.force_login(bot.owner)
    counts = []
    for _ in range(2):
        comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=2, max_games=10)
        with CaptureQueriesContext(connection) as queries:
            assert client.get(f"/bots/{bot.id}/").status_code == 200
        counts.append(len(queries))
    assert counts[0] == counts[1]


def test_the_creation_throttle_of_the_api_counts_here_too(client, bot, settings):
    from django.core.cache import cache

    cache.clear()
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {"tournaments": "1/hour"}}
    client.force_login(bot.owner)
    url = reverse("comparison-start", args=[bot.id])
    assert client.post(url, {"baseline": "1", "candidate": "2"}).status_code == 302
    response = client.post(url, {"baseline": "1", "candidate": "2"})
    assert response.status_code == 429 and response.has_header("Retry-After")
    assert "too many tournaments and comparisons created" in response.content.decode()
    assert Comparison.objects.count() == 1
    cache.clear()
