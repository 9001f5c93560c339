"""The API's rate limits (``ladder.api.throttles``), called directly on requests: which methods count, the
key per user or per client address, the rate read from the settings on every request (a null rate turns a
limit off), and the refusal naming the limit and the wait. The counters live in the cache, emptied for each
test; no database."""

from __future__ import annotations

from types import SimpleNamespace

import pytest
from django.contrib.auth.models import AnonymousUser
from rest_framework.exceptions import Throttled
from rest_framework.request import Request
from rest_framework.test import APIRequestFactory

from ladder.api.throttles import ExportThrottle, LoginThrottle, RegistrationThrottle, WriteRateThrottle


def request_of(method: str = "POST", *, user=None, address: str = "203.0.113.7") -> Request:
    request = Request(APIRequestFactory().generic(method, "/api/x/", REMOTE_ADDR=address))
    request.user = user or AnonymousUser()
    return request


def user(pk: int) -> SimpleNamespace:
    return SimpleNamespace(pk=pk, is_authenticated=True)


def allowed(throttle_class, request: Request) -> bool:
    try:
        return throttle_class().allow_request(request, view=None)
    except Throttled:
        return False


def test_registrations_are_counted_per_client_address(throttle_rates):
    throttle_rates(registrations="2/hour")
    assert [allowed(RegistrationThrottle, request_of()) for _ in range(3)] == [True, True, False]
    assert allowed(RegistrationThrottle, request_of(address="198.51.100.1"))


def test_the_refusal_names_the_limit_and_the_wait(throttle_rates):
    throttle_rates(registrations="1/minute")
    RegistrationThrottle().allow_request(request_of(), None)
    with pytest.raises(Throttled) as refusal:
        RegistrationThrottle().allow_request(request_of(), None)
    assert str(refusal.value.detail).startswith("too many registrations: at most 1 per minute; try again in ")
    assert isinstance(refusal.value.wait, int) and 1 <= refusal.value.wait <= 60
    assert f"try again in {refusal.value.wait} seconds" in str(refusal.value.detail)
    assert refusal.value.status_code == 429


def test_reads_pass_freely_through_a_write_throttle(throttle_rates):
    throttle_rates(registrations="1/hour")
    assert all(allowed(RegistrationThrottle, request_of("GET")) for _ in range(5))
    assert allowed(RegistrationThrottle, request_of())
    assert not allowed(RegistrationThrottle, request_of())


def test_token_requests_are_counted_per_address_whoever_asks(throttle_rates):
    throttle_rates(logins="2/hour")
    assert allowed(LoginThrottle, request_of(user=user(1)))
    assert allowed(LoginThrottle, request_of(user=user(2)))
    with pytest.raises(Throttled, match="too many token requests: at most 2 per hour"):
        LoginThrottle().allow_request(request_of(user=user(3)), None)


def test_exports_count_gets_per_user_and_let_posts_pass(throttle_rates):
    throttle_rates(exports="1/day")
    assert allowed(ExportThrottle, request_of("GET", user=user(1)))
    with pytest.raises(Throttled, match="too many exports: at most 1 per day"):
        ExportThrottle().allow_request(request_of("GET", user=user(1)), None)
    # Another user at the same address has a counter of its own; a POST is not an export.
    assert allowed(ExportThrottle, request_of("GET", user=user(2)))
    assert allowed(ExportThrottle, request_of("POST", user=user(1)))


def test_anonymous_exports_are_counted_per_address(throttle_rates):
    throttle_rates(exports="1/hour")
    assert allowed(ExportThrottle, request_of("GET"))
    assert not allowed(ExportThrottle, request_of("GET"))
    assert allowed(ExportThrottle, request_of("GET", address="198.51.100.9"))


def test_the_rate_is_read_on_every_request(throttle_rates):
    throttle_rates(registrations="1/hour")
    assert allowed(RegistrationThrottle, request_of())
    assert not allowed(RegistrationThrottle, request_of())
    throttle_rates(registrations="3/hour")
    assert allowed(RegistrationThrottle, request_of())


@pytest.mark.parametrize("off", [{"registrations": None}, {}])
def test_a_null_or_missing_rate_turns_the_limit_off(settings, throttle_rates, off):
    if off:
        throttle_rates(**off)
    else:
        rates = dict(settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"])
        rates.pop("registrations")
        settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": rates}
    assert all(allowed(RegistrationThrottle, request_of()) for _ in range(50))


def test_a_scope_of_its_own_keys_users_and_addresses_apart(throttle_rates):
    class Probe(WriteRateThrottle):
        scope = "probes"

    throttle_rates(probes="1/second")
    idents = {Probe().ident(request)
              for request in (request_of(user=user(1)), request_of(user=user(2)), request_of(), request_of())}
    assert idents == {1, 2, "203.0.113.7"}
    with pytest.raises(Throttled, match="too many requests: at most 1 per second; try again in 1 seconds"):
        Probe().allow_request(request_of(), None)
        Probe().allow_request(request_of(), None)
