"""``client_address`` / ``client_ident``: the client address every per-address limit counts by, read from
``X-Forwarded-For`` only as far as the proxies the operator declared (``NUM_PROXIES``, ``TRUSTED_PROXIES``),
and never chosen by a malformed or forged value. No database."""

from __future__ import annotations

import pytest
from django.test import RequestFactory

from ladder.core.client_address import client_address, client_ident

PROXY = "10.0.0.5"


def meta(forwarded: str | None = None, remote: str = PROXY) -> dict:
    return {"REMOTE_ADDR": remote, **({"HTTP_X_FORWARDED_FOR": forwarded} if forwarded is not None else {})}


@pytest.mark.parametrize("forwarded", [None, "198.51.100.9", "198.51.100.9, 203.0.113.1", "garbage", ""])
def test_without_declared_proxies_the_header_is_never_believed(settings, forwarded):
    settings.NUM_PROXIES, settings.TRUSTED_PROXIES = 0, []
    assert client_address(meta(forwarded, remote="192.0.2.44")) == "192.0.2.44"


def test_behind_one_proxy_the_client_is_the_value_it_appended(settings):
    settings.NUM_PROXIES = 1
    assert client_address(meta("192.0.2.44")) == "192.0.2.44"
    # Whatever the client wrote in front is never read: the proxy's value is the last one.
    assert client_address(meta("198.51.100.9, 192.0.2.44")) == "192.0.2.44"
    assert client_address(meta("not-an-address, <script>, 192.0.2.44")) == "192.0.2.44"
    assert client_address(meta(" 2001:db8::7 ")) == "2001:db8::7"


def test_behind_two_proxies_the_client_is_the_second_value_from_the_right(settings):
    settings.NUM_PROXIES = 2
    assert client_address(meta("203.0.113.250, 192.0.2.44, 10.0.0.4")) == "192.0.2.44"


@pytest.mark.parametrize("forwarded", [None, "", "192.0.2.44:5000", "999.1.1.1", "192.0.2.44,", "a" * 10_000,
                                       "\x1b[31m", "192.0.2.44\x00"])
def test_a_missing_or_malformed_value_where_the_client_should_be_gives_the_socket_peer(settings, forwarded):
    settings.NUM_PROXIES = 1
    assert client_address(meta(forwarded)) == PROXY


def test_a_chain_shorter_than_the_declared_proxies_gives_the_socket_peer(settings):
    settings.NUM_PROXIES = 3
    assert client_address(meta("192.0.2.44, 10.0.0.4")) == PROXY


def test_trusted_proxies_are_skipped_from_the_right_until_an_untrusted_hop(settings):
    settings.NUM_PROXIES, settings.TRUSTED_PROXIES = 0, ["10.0.0.0/8", "192.0.2.200"]
    assert client_address(meta("203.0.113.9, 198.51.100.1, 192.0.2.200, 10.1.2.3")) == "198.51.100.1"
    # A peer that is no trusted proxy is the client, whatever the header says.
    assert client_address(meta("198.51.100.1", remote="203.0.113.77")) == "203.0.113.77"
    # Every hop trusted: the leftmost is the client.
    assert client_address(meta("10.9.9.9")) == "10.9.9.9"
    assert client_address(meta("junk, 10.9.9.9")) == PROXY


def test_no_readable_peer_at_all_is_counted_as_unknown(settings):
    assert client_address({}) == "unknown"
    assert client_address({"REMOTE_ADDR": "nonsense"}) == "unknown"


def test_the_ident_widens_ipv6_to_its_64_and_unmaps_ipv4(settings):
    settings.NUM_PROXIES = 0
    factory = RequestFactory()
    assert client_ident(factory.get("/", REMOTE_ADDR="2001:db8:1:2:aaaa::1")) == "2001:db8:1:2::/64"
    assert client_ident(factory.get("/", REMOTE_ADDR="2001:db8:1:2:ffff::9")) == "2001:db8:1:2::/64"
    assert client_ident(factory.get("/", REMOTE_ADDR="::ffff:192.0.2.44")) == "192.0.2.44"
    assert client_ident(factory.get("/", REMOTE_ADDR="192.0.2.44")) == "192.0.2.44"
