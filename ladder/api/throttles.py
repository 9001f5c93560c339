"""The API's own rate limits: per client address on the requests no user is known for yet (registrations,
and token requests: password guessing), and on the one expensive read, the bulk export (a whole history
streamed, holding a web worker while it lasts). The limits per user on writes (uploads, tournaments and
comparisons created) are counted by the services that perform them (``ladder.core.quotas.
write_rate_check``), for the API and the site alike.

Rates live in ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` under the scopes ``registrations``, ``logins``
and ``exports`` (``"30/hour"`` style; a missing or null rate turns the limit off).
They are read on every request rather than once at import, so settings overrides (tests, the
environment) take effect. The counting is the services' (``ladder.core.quotas.rate_check``), in
Django's default cache, shared with the site's log-in and sign-up pages: a shared cache (Redis) makes
them hold across web processes. The client address is ``ladder.core.client_address.client_ident``:
``X-Forwarded-For`` is read only as far as the proxies the operator declared (``NUM_PROXIES``,
``TRUSTED_PROXIES``).
"""

from __future__ import annotations

from rest_framework.exceptions import Throttled
from rest_framework.throttling import BaseThrottle

from ladder.core.client_address import client_ident
from ladder.core.quotas import QuotaExceeded, rate_check


class WriteRateThrottle(BaseThrottle):
    """Counts POST requests per user (per client address for anonymous requests); reads pass freely.

    Refusals raise ``Throttled`` with a message naming the limit and the wait, answered as a 429 with
    ``Retry-After``.
    """

    scope = ""
    what = "requests"
    #: The methods counted; the others pass freely.
    methods = frozenset({"POST"})

    def ident(self, request) -> object:
        """Whom the request counts against: its user's id, or its client address when anonymous."""
        if request.user and request.user.is_authenticated:
            return request.user.pk
        return client_ident(request)

    def allow_request(self, request, view):
        if request.method not in self.methods:
            return True
        try:
            rate_check(scope=self.scope, ident=self.ident(request), what=self.what)
        except QuotaExceeded as exceeded:
            refusal = Throttled(detail=exceeded.message)
            # Set after construction: given to the constructor, DRF would append its own wording to ours.
            refusal.wait = exceeded.retry_after_s
            raise refusal from None
        return True


class RegistrationThrottle(WriteRateThrottle):
    scope = "registrations"
    what = "registrations"


class LoginThrottle(WriteRateThrottle):
    """Token requests per client address, signed in or not: bounds password guessing. The site's log-in
    page counts against the same counter."""

    scope = "logins"
    what = "token requests"

    def ident(self, request) -> object:
        return client_ident(request)


class ExportThrottle(WriteRateThrottle):
    """Bulk exports per user (per client address when anonymous): a read, but one that streams a whole
    history; an interrupted download resumes with ``after`` in a new request, which counts too."""

    scope = "exports"
    what = "exports"
    methods = frozenset({"GET"})
