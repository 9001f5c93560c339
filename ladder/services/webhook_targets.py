"""Where a webhook may point: the one boundary between a user's URL and a connection from our network.

A target is refused unless it is ``http``/``https`` with a host, no user name or password, at most
:data:`URL_MAX_LENGTH` characters, and every address its host resolves to is global (not private,
loopback, link-local, multicast, reserved, unspecified or shared; an IPv4-mapped IPv6 address is judged by
its IPv4 address). The host is resolved with the system resolver, so every spelling it accepts of an
address (``2130706433``, ``0177.0.0.1``, ``[::ffff:127.0.0.1]``) is judged by the address it means.

The check runs twice: when the webhook is created (:func:`target_check`, a clear 400), and at each
delivery (:func:`target_resolve`), whose answer is the one address the delivery then connects to, so
that a name that resolved to a public address at creation and to 127.0.0.1 now (DNS rebinding) is
refused, and no second lookup happens between the check and the connection. ``WEBHOOKS_ALLOW_PRIVATE``
lifts the address rule (the other rules stay).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import socket
from urllib.parse import urlsplit

from django.conf import settings

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


def address_global(address: str) -> bool:
    """Whether ``address`` (an IP address as text) is one a webhook may reach: globally routable."""
    ip = ipaddress.ip_address(address.split("%", 1)[0])  # a scoped IPv6 address is link-local anyway
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        ip = ip.ipv4_mapped
    return ip.is_global and not (ip.is_private or ip.is_loopback or ip.is_link_local or ip.is_multicast
                                 or ip.is_reserved or ip.is_unspecified)


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
    path = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.scheme, parts.hostname, port, path


def _addresses(host: str, port: int) -> list[str]:
    try:
        found = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError, OSError) as exc:
        raise TargetRefused(f"the host {host!r} does not resolve ({exc})") from None
    addresses = list(dict.fromkeys(str(info[4][0]) for info in found))
    if not addresses:
        raise TargetRefused(f"the host {host!r} does not resolve")
    return addresses


def target_resolve(url: str) -> Target:
    """Check ``url`` and resolve its host now; the target to connect to, or TargetRefused. Every address
    the host resolves to must pass (one private address among public ones refuses it: which one a client
    picks is not ours to predict), unless ``WEBHOOKS_ALLOW_PRIVATE``."""
    scheme, host, port, path = _split(url)
    addresses = _addresses(host, port)
    if not settings.WEBHOOKS_ALLOW_PRIVATE:
        refused = [address for address in addresses if not address_global(address)]
        if refused:
            raise TargetRefused(f"the host {host!r} resolves to {refused[0]}, a private, loopback, link-local or "
                                "otherwise non-public address: webhooks are posted to public addresses only")
    return Target(scheme=scheme, host=host, port=port, path=path, address=addresses[0])


def target_check(url: str) -> str:
    """The URL to store, once :func:`target_resolve` accepts it now; TargetRefused otherwise."""
    target_resolve(url)
    return url
