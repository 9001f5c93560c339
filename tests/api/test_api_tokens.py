"""API tokens through the API (``ladder.api.tokens`` and ``DELETE /api/auth/token/``): listed without keys,
made, revoked (one by id, or the one in use), rotated, expiring; a revoked, rotated or expired key gets a
401 saying which; another account's token is out of reach."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from ladder.models import ApiToken
from tests.api.helpers import error_of
from tests.factories import UserFactory, api_token_key

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"  # the UserFactory's


def client_with(key: str) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {key}")
    return client


def test_a_password_exchange_makes_a_named_expiring_token_shown_once(api_client):
    user = UserFactory()
    made = api_client.post("/api/auth/token/", {"username": user.username, "password": PASSWORD, "name": "ci",
                                                "expires_in_days": 7}, format="json")
    assert made.status_code == 200
    body = made.json()
    assert body["name"] == "ci" and body["prefix"] == body["token"][:8] and body["expires_at"]
    listed = client_with(body["token"]).get("/api/auth/tokens/").json()
    assert [(row["id"], row["current"]) for row in listed] == [(body["id"], True)]
    assert "token" not in listed[0] and body["token"] not in str(listed)


def test_list_shows_only_your_own_tokens(auth_client):
    other = UserFactory()
    api_token_key(other, name="someone else's")
    api_token_key(auth_client.user, name="second")
    names = sorted(row["name"] for row in auth_client.get("/api/auth/tokens/").json())
    assert names == ["", "second"]


def test_delete_token_revokes_the_one_in_use_and_only_that_one(api_client):
    user = UserFactory()
    in_use, kept = api_token_key(user), api_token_key(user)
    assert client_with(in_use).delete("/api/auth/token/").status_code == 204
    refused = client_with(in_use).get("/api/auth/me/")
    assert refused.status_code == 401 and "revoked" in error_of(refused)["detail"]
    assert client_with(kept).get("/api/auth/me/").status_code == 200
    assert api_client.delete("/api/auth/token/").status_code == 401


def test_delete_token_from_a_session_says_it_needs_the_token_itself(client):
    client.force_login(UserFactory())
    response = client.delete("/api/auth/token/")
    assert response.status_code == 400 and "not authenticated with an API token" in response.json()["detail"]


def test_revoke_by_id_kills_that_key_and_another_accounts_id_is_a_404(auth_client):
    victim = UserFactory()
    victim_key = api_token_key(victim)
    victim_token = ApiToken.objects.get(user=victim)
    response = auth_client.delete(f"/api/auth/tokens/{victim_token.id}/")
    assert response.status_code == 404 and error_of(response)["code"] == "not_found"
    assert client_with(victim_key).get("/api/auth/me/").status_code == 200

    spare_key = api_token_key(auth_client.user, name="spare")
    spare = ApiToken.objects.get(user=auth_client.user, name="spare")
    assert auth_client.delete(f"/api/auth/tokens/{spare.id}/").status_code == 204
    assert client_with(spare_key).get("/api/auth/me/").status_code == 401
    assert auth_client.get("/api/auth/me/").status_code == 200


def test_rotation_gives_a_new_key_once_and_the_old_one_is_refused(auth_client):
    old_key = api_token_key(auth_client.user, name="deploy")
    token = ApiToken.objects.get(user=auth_client.user, name="deploy")
    rotated = auth_client.post(f"/api/auth/tokens/{token.id}/rotate/", {"expires_in_days": 10}, format="json")
    assert rotated.status_code == 200
    body = rotated.json()
    assert body["id"] == token.id and body["name"] == "deploy" and body["token"] != old_key
    refused = client_with(old_key).get("/api/auth/me/")
    assert refused.status_code == 401 and "rotated" in error_of(refused)["detail"]
    assert client_with(body["token"]).get("/api/auth/me/").status_code == 200
    other = UserFactory()
    api_token_key(other)
    other_token = ApiToken.objects.get(user=other)
    assert auth_client.post(f"/api/auth/tokens/{other_token.id}/rotate/").status_code == 404


def test_an_expired_token_gets_a_401_saying_it_expired(api_client):
    user = UserFactory()
    key = api_token_key(user, expires_in_days=1)
    assert client_with(key).get("/api/auth/me/").status_code == 200
    ApiToken.objects.filter(user=user).update(expires_at=timezone.now() - timedelta(seconds=1))
    refused = client_with(key).get("/api/auth/me/")
    assert refused.status_code == 401
    assert "this token expired at" in error_of(refused)["detail"]
    # An expired token cannot revoke itself or make others either.
    assert client_with(key).post("/api/auth/tokens/", {"name": "more"}, format="json").status_code == 401


def test_making_a_token_with_a_token_and_the_refusals_name_the_field(auth_client):
    made = auth_client.post("/api/auth/tokens/", {"name": "laptop", "expires_in_days": 90}, format="json")
    assert made.status_code == 201 and len(made.json()["token"]) == 40 and not made.json()["current"]
    for bad in ({"expires_in_days": 0}, {"expires_in_days": 99999}, {"expires_in_days": "soon"},
                {"name": "x" * 101}):
        response = auth_client.post("/api/auth/tokens/", bad, format="json")
        assert response.status_code == 400 and set(error_of(response)["fields"]) == set(bad)
