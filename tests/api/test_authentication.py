"""``ApiTokenAuthentication``: the ``Authorization: Token <key>`` header checked against stored digests; no
claim without the header, a 401 naming what is wrong with a malformed header or an unknown key, and the
schema's ``tokenAuth`` scheme as before."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from tests.api.helpers import error_of
from tests.factories import UserFactory, api_token_key

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("header, fragment", [
    ("Token", "invalid token header"),
    ("Token two parts", "invalid token header"),
    ("Token 9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b", "Invalid token: it is wrong, or was revoked or rotated"),
    ("Token \u00e9t\u00e9", "invalid token header"),
])
def test_a_bad_header_is_a_401_naming_what_is_wrong(header, fragment):
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=header.encode().decode("latin-1"))
    response = client.get("/api/auth/me/")
    assert response.status_code == 401 and response["WWW-Authenticate"] == "Token"
    assert fragment in error_of(response)["detail"]


def test_another_scheme_is_no_claim_and_the_key_is_case_insensitive_on_the_keyword():
    user = UserFactory()
    key = api_token_key(user)
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Bearer {key}")
    assert client.get("/api/auth/me/").status_code == 401
    client.credentials(HTTP_AUTHORIZATION=f"token {key}")
    assert client.get("/api/auth/me/").json()["username"] == user.username


def test_the_schema_keeps_the_token_scheme(client):
    import yaml

    schema = yaml.safe_load(client.get("/api/schema/").content)
    scheme = schema["components"]["securitySchemes"]["tokenAuth"]
    assert scheme == {"type": "apiKey", "in": "header", "name": "Authorization",
                      "description": 'Token-based authentication with required prefix "Token"'}
