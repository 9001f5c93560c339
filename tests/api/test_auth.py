"""Accounts: registration with the password validators, tokens, session auth with CSRF, throttling."""

import pytest
from django.contrib.auth import get_user_model
from django.middleware.csrf import get_token
from django.test import RequestFactory
from rest_framework.test import APIClient

from ladder.services.accounts.tokens import token_authenticate
from tests.api.helpers import error_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "a-long-passphrase"


def test_register_returns_a_token_that_authenticates(api_client):
    created = api_client.post("/api/auth/register/", {"username": "ada", "password": PASSWORD})
    assert created.status_code == 201
    body = created.json()
    assert body["username"] == "ada" and body["id"] == get_user_model().objects.get(username="ada").id
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {body['token']}")
    me = api_client.get("/api/auth/me/").json()
    assert {key: me[key] for key in ("id", "username", "is_staff")} == {"id": body["id"], "username": "ada",
                                                                        "is_staff": False}


@pytest.mark.parametrize(
    "payload,field,fragment",
    [
        ({"username": "ada", "password": "short"}, "password", "too short"),
        ({"username": "adalovelace", "password": "adalovelace1"}, "password", "too similar"),
        ({"username": "ada", "password": "password123"}, "password", "too common"),
        ({"username": "ada", "password": "8274619305"}, "password", "entirely numeric"),
        ({"username": "ada lovelace", "password": PASSWORD}, "username", "letters, digits and @ . + - _ only"),
        ({"username": "", "password": PASSWORD}, "username", "may not be blank"),
        ({"password": PASSWORD}, "username", "required"),
        ({"username": "ada"}, "password", "required"),
    ],
)
def test_register_refusals_name_the_field_and_what_to_fix(api_client, payload, field, fragment):
    response = api_client.post("/api/auth/register/", payload)
    assert response.status_code == 400
    body = error_of(response)
    assert body["code"] == "invalid"
    assert fragment in " ".join(body["fields"][field])
    assert fragment in body["detail"]
    assert not get_user_model().objects.exists()


def test_register_refuses_a_taken_name_in_any_case(api_client):
    UserFactory(username="ada")
    response = api_client.post("/api/auth/register/", {"username": "ADA", "password": PASSWORD})
    assert response.status_code == 400
    assert error_of(response)["fields"] == {"username": ["the username 'ADA' is taken"]}


def test_token_for_the_right_password_only(api_client):
    user = UserFactory(username="ada", password=PASSWORD)
    token = api_client.post("/api/auth/token/", {"username": "ada", "password": PASSWORD})
    assert token.status_code == 200
    assert token_authenticate(key=token.json()["token"]).user == user
    wrong = api_client.post("/api/auth/token/", {"username": "ada", "password": "not-the-password"})
    assert wrong.status_code == 400 and "wrong username or password" in error_of(wrong)["detail"]
    unknown = api_client.post("/api/auth/token/", {"username": "nobody", "password": PASSWORD})
    assert error_of(unknown)["detail"] == error_of(wrong)["detail"]


def test_me_without_credentials_is_a_401_that_says_how_to_log_in(api_client):
    response = api_client.get("/api/auth/me/")
    assert response.status_code == 401
    assert "Authorization: Token" in error_of(response)["detail"]
    bad = APIClient()
    bad.credentials(HTTP_AUTHORIZATION="Token not-a-real-token")
    assert bad.get("/api/auth/me/").status_code == 401


def test_session_auth_needs_the_csrf_token_for_writes(bot_factory):
    user = UserFactory()
    bot = bot_factory(owner=user)
    client = APIClient(enforce_csrf_checks=True)
    client.force_login(user)
    assert client.get("/api/auth/me/").json()["username"] == user.username
    refused = client.post(f"/api/bots/{bot.id}/deactivate/")
    assert refused.status_code == 403 and "CSRF" in error_of(refused)["detail"]
    bot.refresh_from_db()
    assert bot.active
    # What the site's pages do: hand out a CSRF cookie and send its token back in a header.
    request = RequestFactory().get("/")
    token = get_token(request)
    client.cookies["csrftoken"] = request.META["CSRF_COOKIE"]
    accepted = client.post(f"/api/bots/{bot.id}/deactivate/", HTTP_X_CSRFTOKEN=token)
    assert accepted.status_code == 200 and accepted.json()["active"] is False


def test_registrations_are_throttled_with_a_clear_429(api_client, throttle_rates):
    throttle_rates(registrations="2/hour")
    for name in ("ada", "bob"):
        assert api_client.post("/api/auth/register/", {"username": name, "password": PASSWORD}).status_code == 201
    refused = api_client.post("/api/auth/register/", {"username": "cy", "password": PASSWORD})
    assert refused.status_code == 429
    body = error_of(refused)
    assert body["code"] == "throttled"
    assert "too many registrations: at most 2 per hour" in body["detail"]
    assert int(refused["Retry-After"]) > 0
    assert not get_user_model().objects.filter(username="cy").exists()


def test_token_requests_are_throttled_per_address(api_client, throttle_rates):
    UserFactory(username="ada", password=PASSWORD)
    throttle_rates(logins="3/minute")
    for _ in range(3):
        assert api_client.post("/api/auth/token/", {"username": "ada", "password": "guess"}).status_code == 400
    refused = api_client.post("/api/auth/token/", {"username": "ada", "password": PASSWORD})
    assert refused.status_code == 429
    assert "too many token requests: at most 3 per minute" in error_of(refused)["detail"]
