"""Hostile: the per-address limits of the API (registrations, token requests, anonymous exports) hold when a
client writes its own ``X-Forwarded-For``, one new value per request; behind a declared proxy
(``NUM_PROXIES=1``) the client address is the value that proxy appended, and a forged value in front of
it gains nothing. End to end through the API; the counters live in the cache, emptied for each test."""

from __future__ import annotations

import itertools

import pytest

from tests.api.helpers import error_of
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"  # the UserFactory's
ATTACKER = "203.0.113.66"
_forged = (f"198.51.100.{n}" for n in itertools.count(1))


def forged() -> str:
    return next(_forged)


def token_request(client, username: str, password: str, *, remote: str = ATTACKER, forwarded: str | None = None):
    headers = {"REMOTE_ADDR": remote}
    if forwarded is not None:
        headers["HTTP_X_FORWARDED_FOR"] = forwarded
    return client.post("/api/auth/token/", {"username": username, "password": password}, **headers)


def test_a_forged_header_does_not_step_around_the_login_limit(api_client, throttle_rates):
    throttle_rates(logins="5/hour")
    user = UserFactory()
    codes = [token_request(api_client, user.username, "wrong", forwarded=forged()).status_code for _ in range(6)]
    assert codes == [400] * 5 + [429]
    for _ in range(4):
        response = token_request(api_client, user.username, "wrong", forwarded=forged())
        assert response.status_code == 429 and "too many token requests" in error_of(response)["detail"]
    right = token_request(api_client, user.username, PASSWORD, forwarded=forged())
    assert right.status_code == 429 and "token" not in right.json()


def test_a_forged_header_does_not_step_around_the_registration_limit(api_client, throttle_rates):
    throttle_rates(registrations="3/hour")
    codes = [api_client.post("/api/auth/register/", {"username": f"sock{n}", "password": "plenty-of-words-42"},
                             REMOTE_ADDR=ATTACKER, HTTP_X_FORWARDED_FOR=forged()).status_code
             for n in range(7)]
    assert codes == [201] * 3 + [429] * 4


def test_a_forged_header_does_not_step_around_the_anonymous_export_limit(api_client, throttle_rates):
    throttle_rates(exports="2/hour")
    codes = [api_client.get("/api/exports/kingdomino/matches/", REMOTE_ADDR=ATTACKER,
                            HTTP_X_FORWARDED_FOR=forged()).status_code for _ in range(4)]
    assert codes == [200, 200, 429, 429]


def test_behind_one_proxy_each_client_is_counted_by_the_address_the_proxy_appended(api_client, throttle_rates,
                                                                                  settings):
    settings.NUM_PROXIES = 1
    throttle_rates(logins="2/hour")
    user = UserFactory()
    proxy = "10.0.0.5"
    # The attacker forges a value in front; the proxy appends the attacker's real address after it.
    codes = [token_request(api_client, user.username, "wrong", remote=proxy,
                           forwarded=f"{forged()}, {ATTACKER}").status_code for _ in range(4)]
    assert codes == [400, 400, 429, 429]
    # Another client behind the same proxy has a counter of its own, and gets in.
    other = token_request(api_client, user.username, PASSWORD, remote=proxy, forwarded="192.0.2.10")
    assert other.status_code == 200 and len(other.json()["token"]) == 40
    # A malformed value where the proxy's should be falls back to the proxy's own address: no free turns.
    assert token_request(api_client, user.username, "wrong", remote=proxy, forwarded="junk").status_code == 400
    assert token_request(api_client, user.username, "wrong", remote=proxy, forwarded="").status_code == 400
    assert token_request(api_client, user.username, "wrong", remote=proxy, forwarded="x y").status_code == 429
