"""The client address every per-address limit counts by, taken only from the proxies the operator declares.

``X-Forwarded-For`` is written by whoever sends the request: a client may put any address in it. A proxy
that forwards the request appends the address it received the request from, so only the values the
operator's own proxies appended can be believed, and those are the last ones. The chain is the header's
values followed by the socket's peer (``REMOTE_ADDR``), nearest hop last:

* ``NUM_PROXIES`` (default 0): that many proxies always stand in front of the site, so the nearest
  ``NUM_PROXIES`` hops are proxies and the next one, counting from the right, is the client;
* ``TRUSTED_PROXIES`` (default none): addresses or networks of proxies; after those ``NUM_PROXIES`` hops,
  any further hop in that list is skipped too.

With neither set the header is never read: the client is ``REMOTE_ADDR``. A value that is needed but is
not an IP address, or a chain shorter than the proxies declared (a request that did not come through
them), gives ``REMOTE_ADDR`` as well, so a malformed header can neither crash a request nor choose its
address; the values in front of the ones needed are never read.

An IPv6 client is counted by its /64, the block a single subscriber is usually given: counting each of its
addresses apart would let one client take 2**64 turns.
"""

from __future__ import annotations

import ipaddress
from functools import lru_cache

from django.conf import settings

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address


@lru_cache(maxsize=16)
def _networks(trusted: tuple[str, ...]) -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    # ladder/settings.py refuses to start with an entry that is no address or network.
    return tuple(ipaddress.ip_network(entry.strip(), strict=False) for entry in trusted if entry.strip())


def trusted_networks() -> tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...]:
    """``TRUSTED_PROXIES`` parsed."""
    return _networks(tuple(settings.TRUSTED_PROXIES))


def _parse(value: str) -> IPAddress | None:
    try:
        return ipaddress.ip_address(value.strip())
    except ValueError:
        return None


def client_address(meta) -> str:
    """The client's address from a request's ``META`` (see the module docstring); ``"unknown"`` only when
    even ``REMOTE_ADDR`` is missing or unreadable (the limits then count such requests together)."""
    remote_text = meta.get("REMOTE_ADDR") or ""
    remote = _parse(remote_text)
    if remote is None:
        return "unknown"
    hops = int(settings.NUM_PROXIES)
    networks = trusted_networks()
    if hops <= 0 and not networks:
        return str(remote)
    forwarded = [value for value in str(meta.get("HTTP_X_FORWARDED_FOR", "")).split(",")]
    if forwarded == [""]:
        forwarded = []
    chain: list[str] = [*forwarded, remote_text]
    position = len(chain) - 1
    candidate = remote
    # Skip the declared proxies (nearest first); each value read must be an address.
    for _ in range(hops):
        position -= 1
        if position < 0:
            return str(remote)
        candidate = _parse(chain[position])
        if candidate is None:
            return str(remote)
    while position > 0 and any(candidate in network for network in networks):
        position -= 1
        candidate = _parse(chain[position])
        if candidate is None:
            return str(remote)
    return str(candidate)


def client_ident(request) -> str:
    """What the per-address limits count a request by: :func:`client_address` of a Django or DRF request,
    an IPv6 address widened to its /64. The one function every per-address limit uses, on the API and
    on the site."""
    address = client_address(request.META)
    parsed = _parse(address)
    if isinstance(parsed, ipaddress.IPv6Address) and parsed.ipv4_mapped is None:
        return str(ipaddress.IPv6Network((parsed, 64), strict=False))
    if isinstance(parsed, ipaddress.IPv6Address):
        return str(parsed.ipv4_mapped)
    return address
