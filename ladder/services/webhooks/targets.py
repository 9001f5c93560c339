"""Where a webhook may point: the one boundary between a user's URL and a connection from our network.

A target is refused unless it is ``http``/``https`` with a host, no user name or password, at most
:data:`URL_MAX_LENGTH` characters, and every address its host resolves to is global unicast
(:func:`address_refusal`: not private, loopback, link-local, multicast, reserved, unspecified or shared;
for IPv6 inside 2000::/3 and none of the classes that lead to a relay or another network rather than to
a host, :data:`REFUSED_V6`; an IPv4-mapped IPv6 address is judged by its IPv4 address). The host is
resolved with the system resolver, within the attempt's deadline, so every spelling it accepts of an
address (``2130706433``, ``0177.0.0.1``, ``[::ffff:127.0.0.1]``) is judged by the address it means.
A URL is stored as a URI: a host in another script as its IDNA (``xn--``) form, other characters not
ASCII in the path and query percent-encoded as UTF-8 (:func:`url_as_uri`), so what is sent is what is
shown.

The check runs twice: when the webhook is created (:func:`target_check`, a clear 400), and at each
delivery (:func:`target_resolve`), whose answer is the one address the delivery then connects to, so
that a name that resolved to a public address at creation and to 127.0.0.1 now (DNS rebinding) is
refused, and no second lookup happens between the check and the connection. ``WEBHOOKS_ALLOW_PRIVATE``
lifts the address rule (the other rules stay).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import math
import socket
import threading
import time
from urllib.parse import urlsplit, urlunsplit

from django.conf import settings
from django.utils.encoding import iri_to_uri

#: Longest URL accepted (characters).
URL_MAX_LENGTH = 2000


class TargetRefused(Exception):
    """A target the rules refuse; the message says which rule, for the user."""


@dataclasses.dataclass(frozen=True)
class Target:
    """A checked target: connect to ``address`` (the resolved one), speak to ``host`` (Host header, SNI)."""

    scheme: str
    host: str
    port: int
    path: str
    address: str


#: IPv6 global unicast: every other IPv6 block (site-local fec0::/10, NAT64 64:ff9b::/96 and
#: 64:ff9b:1::/48, IPv4-compatible ::/96, discard 100::/64, unique-local, link-local, multicast) is refused.
GLOBAL_UNICAST_V6 = ipaddress.ip_network("2000::/3")
#: Blocks inside 2000::/3 that reach a relay, a tunnel or nobody rather than the host named (the address
#: a 6to4 or Teredo relay forwards to is embedded in the address, and may be anything), by name.
REFUSED_V6 = (
    ("6to4", ipaddress.ip_network("2002::/16")),
    ("Teredo", ipaddress.ip_network("2001::/32")),
    ("benchmarking", ipaddress.ip_network("2001:2::/48")),
    ("ORCHID", ipaddress.ip_network("2001:10::/28")),
    ("ORCHIDv2", ipaddress.ip_network("2001:20::/28")),
    ("documentation", ipaddress.ip_network("2001:db8::/32")),
    ("documentation", ipaddress.ip_network("3fff::/20")),
)
_SITE_LOCAL = ipaddress.ip_network("fec0::/10")
_NAT64 = (ipaddress.ip_network("64:ff9b::/96"), ipaddress.ip_network("64:ff9b:1::/48"))


def address_refusal(address: str) -> str | None:
    """Why a webhook may not reach ``address`` (an IP address as text), as the name of its class
    (``"6to4"``, ``"site-local"``, ``"private"``...); None for a global unicast address."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # a scoped IPv6 address is link-local anyway
    if isinstance(ip, ipaddress.IPv6Address):
        if ip.ipv4_mapped is not None:
            ip = ip.ipv4_mapped
        else:
            named = next((name for name, network in REFUSED_V6 if ip in network), None)
            if named:
                return named
            if ip in _SITE_LOCAL:
                return "site-local"
            if any(ip in network for network in _NAT64):
                return "NAT64"
            if ip not in GLOBAL_UNICAST_V6 and not (ip.is_loopback or ip.is_link_local or ip.is_multicast
                                                    or ip.is_unspecified or ip.is_private):
                return "non-unicast"
    for name, test in (("loopback", ip.is_loopback), ("link-local", ip.is_link_local),
                       ("multicast", ip.is_multicast), ("unspecified", ip.is_unspecified),
                       ("private", ip.is_private), ("reserved", ip.is_reserved), ("non-public", not ip.is_global)):
        if test:
            return name
    return None


def address_global(address: str) -> bool:
    """Whether ``address`` (an IP address as text) is one a webhook may reach: global unicast."""
    return address_refusal(address) is None


def url_as_uri(url: str) -> str:
    """``url`` (already split by :func:`_split`'s rules) as a URI: its host as IDNA, every character not
    ASCII of its path and query percent-encoded as UTF-8 (an IRI's URI, RFC 3987 3.1); ASCII is kept,
    escapes already there included. TargetRefused for a host IDNA cannot write."""
    parts = urlsplit(url)
    netloc = parts.netloc
    if not netloc.isascii():
        try:
            host = parts.hostname.encode("idna").decode("ascii")
        except UnicodeError as exc:
            raise TargetRefused(f"the host {parts.hostname!r} cannot be written in ASCII ({exc})") from None
        netloc = host + (f":{parts.port}" if parts.port else "")
    return urlunsplit((parts.scheme, netloc, iri_to_uri(parts.path), iri_to_uri(parts.query), ""))


def _split(url: str) -> tuple[str, str, int, str]:
    """``(scheme, host, port, path with query)`` of an acceptable URL, or TargetRefused."""
    if not isinstance(url, str) or not url:
        raise TargetRefused("give the URL the events are posted to")
    if len(url) > URL_MAX_LENGTH:
        raise TargetRefused(f"the URL is {len(url)} characters long; the limit is {URL_MAX_LENGTH}")
    if any(ord(char) <= 32 or ord(char) == 127 for char in url):
        raise TargetRefused("the URL holds a space or a control character")
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise TargetRefused(f"the URL cannot be read ({exc})") from None
    if parts.scheme not in ("http", "https"):
        raise TargetRefused("only http:// and https:// URLs are accepted")
    if parts.username is not None or parts.password is not None or "@" in parts.netloc:
        raise TargetRefused("the URL may not hold a user name or password: the signature proves the sender")
    if not parts.hostname:
        raise TargetRefused("the URL has no host")
    if parts.fragment:
        raise TargetRefused("the URL may not hold a fragment (#...)")
    port = port or (443 if parts.scheme == "https" else 80)
    # Stored webhooks from before URLs were kept as URIs may still hold characters http.client cannot send.
    path = iri_to_uri(parts.path or "/") + (f"?{iri_to_uri(parts.query)}" if parts.query else "")
    return parts.scheme, parts.hostname, port, path


def _addresses(host: str, port: int, deadline: float) -> list[str]:
    """The addresses ``host`` resolves to, asked of the system resolver in a thread of its own so that a
    resolver that does not answer costs the attempt no more than its ``deadline`` (a monotonic time); the
    lookup itself ends when the resolver gives up."""
    answer: dict = {}

    def lookup() -> None:
        try:
            answer["found"] = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
        except (UnicodeError, OSError) as exc:
            answer["error"] = exc

    thread = threading.Thread(target=lookup, name="webhook-dns", daemon=True)
    thread.start()
    thread.join(None if math.isinf(deadline) else max(0.0, deadline - time.monotonic()))
    if thread.is_alive():
        raise TargetRefused(f"the host {host!r} did not resolve in time")
    if "error" in answer:
        raise TargetRefused(f"the host {host!r} does not resolve ({answer['error']})")
    addresses = list(dict.fromkeys(str(info[4][0]) for info in answer["found"]))
    if not addresses:
        raise TargetRefused(f"the host {host!r} does not resolve")
    return addresses


def target_resolve(url: str, *, deadline: float = math.inf) -> Target:
    """Check ``url`` and resolve its host now, by ``deadline`` (a ``time.monotonic()`` time); the target to
    connect to, or TargetRefused. Every address the host resolves to must pass (one private address among
    public ones refuses it: which one a client picks is not ours to predict), unless
    ``WEBHOOKS_ALLOW_PRIVATE``."""
    scheme, host, port, path = _split(url)
    addresses = _addresses(host, port, deadline)
    if not settings.WEBHOOKS_ALLOW_PRIVATE:
        refused = [(address, address_refusal(address)) for address in addresses if not address_global(address)]
        if refused:
            address, kind = refused[0]
            raise TargetRefused(f"the host {host!r} resolves to {address}, a {kind} address (not global unicast): "
                                "webhooks are posted to public addresses only")
    return Target(scheme=scheme, host=host, port=port, path=path, address=addresses[0])


def target_check(url: str) -> str:
    """The URL to store, as a URI (:func:`url_as_uri`), once :func:`target_resolve` accepts it now, within
    ``WEBHOOKS_TIMEOUT_S``; TargetRefused otherwise."""
    target_resolve(url, deadline=time.monotonic() + settings.WEBHOOKS_TIMEOUT_S)
    return url_as_uri(url)
