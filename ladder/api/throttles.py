"""Rate limits on the expensive or abusable writes: uploads, registrations, tournament creation, and
token requests (password guessing); and on the one expensive read, the bulk export (a whole history
streamed, holding a web worker while it lasts).

Rates live in ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` under the scopes ``uploads``,
``registrations``, ``tournaments``, ``logins`` and ``exports`` (``"30/hour"`` style; a missing or null rate
turns the limit off).
They are read on every request rather than once at import, so settings overrides (tests, the
environment) take effect. Counters live in Django's default cache: a shared cache (Redis) makes them
hold across web processes.
"""

from __future__ import annotations

import math

from rest_framework.exceptions import Throttled
from rest_framework.settings import api_settings
from rest_framework.throttling import SimpleRateThrottle

_PERIOD_NAMES = {"s": "second", "m": "minute", "h": "hour", "d": "day"}


class WriteRateThrottle(SimpleRateThrottle):
    """Counts POST requests per user (per client address for anonymous requests); reads pass freely.

    Refusals raise ``Throttled`` with a message naming the limit and the wait, answered as a 429 with
    ``Retry-After``.
    """

    scope = ""
    what = "requests"
    #: The methods counted; the others pass freely.
    methods = frozenset({"POST"})

    def get_rate(self):
        return (api_settings.DEFAULT_THROTTLE_RATES or {}).get(self.scope)

    def get_cache_key(self, request, view):
        ident = request.user.pk if request.user and request.user.is_authenticated else self.get_ident(request)
        return self.cache_format % {"scope": self.scope, "ident": ident}

    def allow_request(self, request, view):
        if request.method not in self.methods:
            return True
        # The rate is read per request (see the module docstring), not fixed when the class was built.
        self.rate = self.get_rate()
        self.num_requests, self.duration = self.parse_rate(self.rate)
        if super().allow_request(request, view):
            return True
        wait = self.wait()
        seconds = max(1, int(wait or 1))
        period = _PERIOD_NAMES.get(str(self.rate).split("/")[1][:1], "period")
        refusal = Throttled(detail=f"too many {self.what}: at most {self.num_requests} per {period}; "
                                   f"try again in {seconds} seconds")
        # Set after construction: given to the constructor, DRF would append its own wording to ours.
        refusal.wait = seconds
        raise refusal


class UploadThrottle(WriteRateThrottle):
    scope = "uploads"
    what = "uploads"


class RegistrationThrottle(WriteRateThrottle):
    scope = "registrations"
    what = "registrations"


class TournamentCreateThrottle(WriteRateThrottle):
    scope = "tournaments"
    what = "tournaments created"


class ComparisonCreateThrottle(TournamentCreateThrottle):
    """Version comparisons share the tournaments' scope and count: both schedule matches on request."""

    what = "tournaments and comparisons created"


class LoginThrottle(WriteRateThrottle):
    """Token requests per client address: bounds password guessing."""

    scope = "logins"
    what = "token requests"

    def get_cache_key(self, request, view):
        return self.cache_format % {"scope": self.scope, "ident": self.get_ident(request)}


class ExportThrottle(WriteRateThrottle):
    """Bulk exports per user (per client address when anonymous): a read, but one that streams a whole
    history; an interrupted download resumes with ``after`` in a new request, which counts too."""

    scope = "exports"
    what = "exports"
    methods = frozenset({"GET"})


def throttle_usage(throttle: WriteRateThrottle, request) -> dict | None:
    """Where ``request``'s user stands against ``throttle``: ``{limit, period, used, left, frees_in_s}``
    (``frees_in_s``: seconds until the oldest counted request leaves the window, None when none is
    counted), or None when the limit is off. Reads the throttle's counter without counting a request."""
    rate = throttle.get_rate()
    if not rate:
        return None
    limit, duration = throttle.parse_rate(rate)
    now = throttle.timer()
    history = [at for at in throttle.cache.get(throttle.get_cache_key(request, None), []) if at > now - duration]
    # DRF keeps the newest request first: the last one counted leaves the window first.
    frees_in = max(1, math.ceil(history[-1] + duration - now)) if history else None
    return {"limit": limit, "period": _PERIOD_NAMES.get(str(rate).split("/")[1][:1], "period"),
            "used": len(history), "left": max(0, limit - len(history)), "frees_in_s": frees_in}
