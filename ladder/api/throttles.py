"""The API's own rate limits: per client address on the requests no user is known for yet (registrations,
and token requests: password guessing), and on the one expensive read, the bulk export (a whole history
streamed, holding a web worker while it lasts). The limits per user on writes (uploads, tournaments and
comparisons created) are counted by the services that perform them (``ladder.services.quotas.
write_rate_check``), for the API and the site alike.

Rates live in ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` under the scopes ``registrations``, ``logins``
and ``exports`` (``"30/hour"`` style; a missing or null rate turns the limit off).
They are read on every request rather than once at import, so settings overrides (tests, the
environment) take effect. Counters live in Django's default cache: a shared cache (Redis) makes them
hold across web processes.
"""

from __future__ import annotations

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


class RegistrationThrottle(WriteRateThrottle):
    scope = "registrations"
    what = "registrations"


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
