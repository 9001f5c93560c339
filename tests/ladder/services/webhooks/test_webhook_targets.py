"""``ladder.services.webhooks.targets``: which URLs a webhook may point at (scheme, host, no credentials,
no fragment, no control characters, bounded length), which addresses are global, every resolved address
judged (IPv4-mapped IPv6 by its IPv4 address, every spelling the resolver accepts by the address it
means), and the target a delivery connects to. Only IP literals and ``localhost`` are resolved: no DNS."""

from __future__ import annotations

import pytest

from ladder.services.webhooks.targets import (
    URL_MAX_LENGTH,
    Target,
    TargetRefused,
    address_global,
    address_refusal,
    target_check,
    target_resolve,
)

PUBLIC = "93.184.216.34"


@pytest.fixture
def public_only(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = False


@pytest.mark.parametrize("address", [PUBLIC, "8.8.8.8", "2606:4700:4700::1111", f"::ffff:{PUBLIC}"])
def test_global_addresses(address):
    assert address_global(address)


@pytest.mark.parametrize("address", [
    "127.0.0.1", "10.1.2.3", "172.16.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "0.0.0.0",
    "224.0.0.1", "240.0.0.1", "255.255.255.255", "::1", "::", "fe80::1", "fe80::1%eth0", "fc00::1", "ff02::1",
    "::ffff:127.0.0.1", "::ffff:10.0.0.1",
])
def test_addresses_that_are_not_global(address):
    assert not address_global(address)


def refusal(url) -> str:
    with pytest.raises(TargetRefused) as caught:
        target_resolve(url)
    return str(caught.value)


@pytest.mark.parametrize(("url", "words"), [
    ("", "give the URL"),
    (None, "give the URL"),
    (f"http://{PUBLIC}/" + "a" * URL_MAX_LENGTH, "characters long"),
    (f"http://{PUBLIC}/a b", "space or a control character"),
    (f"http://{PUBLIC}/a\tb", "space or a control character"),
    (f"http://{PUBLIC}/a\x7fb", "space or a control character"),
    (f"ftp://{PUBLIC}/", "only http:// and https://"),
    (f"file://{PUBLIC}/etc/passwd", "only http:// and https://"),
    (f"http://user:secret@{PUBLIC}/", "user name or password"),
    (f"http://user@{PUBLIC}/", "user name or password"),
    ("http:///path", "no host"),
    (f"http://{PUBLIC}/#part", "fragment"),
    (f"http://{PUBLIC}:99999/", "cannot be read"),
    ("http://name.invalid/", "does not resolve"),
])
def test_urls_the_rules_refuse_whatever_the_address_setting(url, words, settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    assert words in refusal(url)


@pytest.mark.parametrize("url", [
    "http://127.0.0.1/", "http://localhost:8000/", "http://[::1]/", "http://10.0.0.5/", "http://169.254.169.254/",
    "http://2130706433/", "http://0177.0.0.1/", "http://[::ffff:127.0.0.1]/", "https://192.168.0.1/",
])
def test_non_public_targets_in_any_spelling_are_refused(url, public_only):
    assert "public addresses only" in refusal(url)


def test_a_non_public_target_is_accepted_where_private_addresses_are_allowed(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    assert target_resolve("http://127.0.0.1:8080/hook") == Target(
        scheme="http", host="127.0.0.1", port=8080, path="/hook", address="127.0.0.1")


def test_a_public_target_resolves_to_its_parts_with_the_default_port_and_path(public_only):
    assert target_resolve(f"https://{PUBLIC}") == Target(scheme="https", host=PUBLIC, port=443, path="/",
                                                          address=PUBLIC)
    assert target_resolve(f"http://{PUBLIC}/a/b?x=1&y=2") == Target(scheme="http", host=PUBLIC, port=80,
                                                                    path="/a/b?x=1&y=2", address=PUBLIC)
    assert target_resolve("http://[2606:4700:4700::1111]:81/").address == "2606:4700:4700::1111"


def test_a_name_with_one_non_public_address_among_public_ones_is_refused(public_only, monkeypatch):
    import socket

    def resolve(host, port, *args, **kwargs):
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, port)) for address in (PUBLIC, "10.0.0.1")]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    assert "resolves to 10.0.0.1" in refusal("http://mixed.example/")


def test_target_check_returns_the_url_unchanged_or_refuses_it(public_only):
    url = f"http://{PUBLIC}:8443/Hook?Key=Value%20x"
    assert target_check(url) == url
    with pytest.raises(TargetRefused):
        target_check("http://127.0.0.1/")


@pytest.mark.parametrize(("url", "stored"), [
    (f"http://{PUBLIC}/hé", f"http://{PUBLIC}/h%C3%A9"),
    (f"http://{PUBLIC}/%C3%A9/ü?q=ñ&r=%20", f"http://{PUBLIC}/%C3%A9/%C3%BC?q=%C3%B1&r=%20"),
    (f"https://{PUBLIC}:8443/路径", f"https://{PUBLIC}:8443/%E8%B7%AF%E5%BE%84"),
])
def test_a_url_with_characters_not_ascii_is_stored_as_a_uri(url, stored, public_only):
    assert target_check(url) == stored
    # A URL stored before URLs were kept as URIs is sent as one all the same.
    assert target_resolve(url).path == target_resolve(stored).path == "/" + stored.split("/", 3)[3]


def test_a_host_in_another_script_is_stored_in_its_idna_form(settings, monkeypatch):
    import socket

    settings.WEBHOOKS_ALLOW_PRIVATE = False
    asked = []

    def resolve(host, port, *args, **kwargs):
        asked.append(host)
        return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (PUBLIC, port))]

    monkeypatch.setattr(socket, "getaddrinfo", resolve)
    assert target_check("http://bücher.example:81/x") == "http://xn--bcher-kva.example:81/x"


@pytest.mark.parametrize(("address", "kind"), [
    ("2002:c000:204::1", "6to4"),          # 6to4 of 192.0.2.4: a relay forwards it
    ("2002:7f00:1::1", "6to4"),            # 6to4 of 127.0.0.1
    ("fec0::1", "site-local"),
    ("feff::1", "site-local"),
    ("2001:0:4136:e378:8000:63bf:3fff:fdd2", "Teredo"),
    ("2001::1", "Teredo"),
    ("64:ff9b::808:808", "NAT64"),         # NAT64 of 8.8.8.8: the operator's gateway, not a host
    ("64:ff9b::7f00:1", "NAT64"),
    ("64:ff9b:1::1", "NAT64"),             # local-use NAT64 (RFC 8215)
    ("2001:db8::1", "documentation"),
    ("3fff::1", "documentation"),
    ("2001:2::1", "benchmarking"),
    ("2001:10::1", "ORCHID"),
    ("2001:20::1", "ORCHIDv2"),
    ("::8.8.8.8", "non-unicast"),          # IPv4-compatible (deprecated)
    ("100::1", "private"),                 # discard-only
    ("5f00::1", "non-unicast"),
    ("fd00::1", "private"),
    ("::ffff:127.0.0.1", "loopback"),
])
def test_each_class_outside_global_unicast_is_refused_by_name(address, kind, public_only, monkeypatch):
    import socket

    assert not address_global(address) and address_refusal(address) == kind
    monkeypatch.setattr(socket, "getaddrinfo",
                        lambda host, port, *a, **k: [(socket.AF_INET6, socket.SOCK_STREAM, 6, "", (address, port, 0, 0))])
    assert f"resolves to {address}, a {kind} address" in refusal("http://tunnel.example/")


def test_a_resolver_that_does_not_answer_costs_no_more_than_the_deadline(settings, monkeypatch):
    import socket
    import threading
    import time

    settings.WEBHOOKS_TIMEOUT_S = 0.3
    release = threading.Event()
    monkeypatch.setattr(socket, "getaddrinfo", lambda *args, **kwargs: release.wait(10) and [])
    started = time.monotonic()
    try:
        with pytest.raises(TargetRefused, match="did not resolve in time"):
            target_check("http://slow.example/")
    finally:
        release.set()
    assert time.monotonic() - started < 2


def test_the_longest_url_accepted_is_the_limit(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    prefix = "http://127.0.0.1/"
    assert target_check(prefix + "a" * (URL_MAX_LENGTH - len(prefix)))
    assert "characters long" in refusal(prefix + "a" * (URL_MAX_LENGTH - len(prefix) + 1))
