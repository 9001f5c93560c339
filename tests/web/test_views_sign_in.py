"""Hostile: the site's log-in and sign-up pages are held to the API's per-address limits (scopes ``logins``
and ``registrations``) on the same counters, whatever ``X-Forwarded-For`` says; sign-up keeps the one
username rule; the account page lists, makes and revokes API tokens. Through Django's test client."""

from __future__ import annotations

import itertools

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from ladder.models import ApiToken
from tests.factories import UserFactory, api_token_key

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"  # the UserFactory's
STRONG = "plenty-of-words-here-42"
ATTACKER = "203.0.113.66"
_forged = (f"198.51.100.{n}" for n in itertools.count(1))


def log_in(client, username: str, password: str, *, remote: str = ATTACKER):
    return client.post(reverse("login"), {"username": username, "password": password}, REMOTE_ADDR=remote,
                       HTTP_X_FORWARDED_FOR=next(_forged))


def sign_up(client, username: str, *, remote: str = ATTACKER):
    return client.post(reverse("signup"), {"username": username, "password": STRONG}, REMOTE_ADDR=remote,
                       HTTP_X_FORWARDED_FOR=next(_forged))


def test_log_in_locks_out_after_as_many_tries_as_the_api_allows(client, throttle_rates):
    throttle_rates(logins="5/hour")
    user = UserFactory()
    codes = [log_in(client, user.username, "wrong").status_code for _ in range(8)]
    assert codes == [200] * 5 + [429] * 3
    refused = log_in(client, user.username, PASSWORD)
    assert refused.status_code == 429 and int(refused["Retry-After"]) > 0
    assert "too many log-in attempts: at most 5 per hour" in refused.content.decode()
    assert "_auth_user_id" not in client.session
    # Another address is not held back by this one's tries.
    assert log_in(client, user.username, PASSWORD, remote="192.0.2.10").status_code == 302


def test_the_site_and_the_api_count_log_ins_together(client, api_client, throttle_rates):
    throttle_rates(logins="4/hour")
    user = UserFactory()
    attempts = []
    for turn in range(6):
        if turn % 2:
            attempts.append(api_client.post("/api/auth/token/", {"username": user.username, "password": "wrong"},
                                            REMOTE_ADDR=ATTACKER).status_code)
        else:
            attempts.append(log_in(client, user.username, "wrong").status_code)
    assert attempts == [200, 400, 200, 400, 429, 429]


def test_sign_up_is_held_to_the_registration_limit_shared_with_the_api(client, api_client, throttle_rates):
    throttle_rates(registrations="3/hour")
    assert api_client.post("/api/auth/register/", {"username": "first", "password": STRONG},
                           REMOTE_ADDR=ATTACKER).status_code == 201
    codes = []
    for n in range(4):
        codes.append(sign_up(client, f"sock{n}").status_code)
        client.logout()
    assert codes == [302, 302, 429, 429]
    refused = sign_up(client, "sock9")
    assert refused.status_code == 429 and "too many registrations" in refused.content.decode()
    assert not get_user_model().objects.filter(username__startswith="sock").exclude(
        username__in=["sock0", "sock1"]).exists()


@pytest.mark.parametrize("username", ["evil\x1b[31m", "bell\x07", "<b>bold</b>", "a&amp;b", "rtl\u202egnp",
                                      "two words"])
def test_sign_up_refuses_what_the_api_refuses_saying_what_to_fix(client, username):
    response = sign_up(client, username)
    assert response.status_code == 200
    assert "letters, digits and @ . + - _ only" in response.content.decode()
    assert not get_user_model().objects.filter(username=username).exists()


def test_the_account_page_lists_makes_and_revokes_tokens_never_showing_a_stored_key(client):
    user = UserFactory()
    old_key = api_token_key(user, name="old script")
    client.force_login(user)
    page = client.get(reverse("account"))
    html = page.content.decode()
    assert "old script" in html and old_key[:8] in html and old_key not in html
    assert reverse("account") in client.get("/").content.decode()

    made = client.post(reverse("account"), {"name": "laptop", "expires_in_days": "30"})
    token = ApiToken.objects.get(user=user, name="laptop")
    new_key = made.context["new_key"]
    assert len(new_key) == 40 and new_key in made.content.decode() and token.expires_at is not None
    assert new_key not in client.get(reverse("account")).content.decode()

    old = ApiToken.objects.get(user=user, name="old script")
    assert client.post(reverse("token-revoke", args=[old.id])).status_code == 302
    assert not ApiToken.objects.filter(pk=old.id).exists()
    from rest_framework.test import APIClient

    api = APIClient()
    api.credentials(HTTP_AUTHORIZATION=f"Token {old_key}")
    assert api.get("/api/auth/me/").status_code == 401
    api.credentials(HTTP_AUTHORIZATION=f"Token {new_key}")
    assert api.get("/api/auth/me/").status_code == 200


def test_nobody_revokes_another_accounts_token_from_the_site(client):
    owner, other = UserFactory(), UserFactory()
    api_token_key(owner)
    token = ApiToken.objects.get(user=owner)
    client.force_login(other)
    response = client.post(reverse("token-revoke", args=[token.id]), follow=True)
    assert f"you have no API token {token.id}" in response.content.decode()
    assert ApiToken.objects.filter(pk=token.id).exists()


def test_the_account_page_needs_a_signed_in_user(client):
    response = client.get(reverse("account"))
    assert response.status_code == 302 and reverse("login") in response["Location"]
