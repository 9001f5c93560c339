"""The limits on what a user may ask of the server: the hourly rates of uploads, of tournaments and
comparisons created, of webhooks created or deleted, and of bots deactivated or reactivated (each of which
may send an event to every webhook of the owner) (:func:`write_rate_check`), and the daily quota of
matches a user may schedule in unrated tournaments and version comparisons (:func:`unrated_matches_reserve`).

The services that take those requests call the checks themselves (``bot_create``, ``bot_version_create``,
``tournament_create``, ``comparison_create``, ``webhook_create``, ``webhook_delete``, ``bot_set_active``),
so the REST API and the site hold every user to the same limits and no view can forget one; both answer a
refusal (``QuotaExceeded``) with a 429 and Retry-After.

Write rates live in ``REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]`` beside the API's own per-address limits
(registrations, logins), under the scopes ``uploads``, ``tournaments``, ``webhooks`` and ``activations``
(``"30/hour"`` style; a missing or null rate turns the limit off). They are read on every call, so
settings overrides (tests, the environment) take effect. Counters live in Django's default cache: a
shared cache (Redis, ``CACHE_URL``) makes them hold across web processes.

Unrated round robins may seat anybody's active bots (that is how people benchmark), so what they cost the
workers is bounded per user: at most ``UNRATED_MATCHES_PER_DAY`` matches in any 24 hours, counted from
the matches themselves (a rolling window, the same for every web process). Rated tournaments are the
server's choice and do not count. A refusal says the limit and when enough of it is free again.

A version comparison schedules its matches a few pairs at a time, and stops as soon as its test decides:
while it runs it holds the rest of its ``max_games`` against the quota (so two comparisons started at
once cannot both count on the same room), and once done it holds nothing more than the matches it played.
"""

from __future__ import annotations

import contextlib
import dataclasses
import math
import time
import uuid
from datetime import datetime, timedelta

from django.conf import settings
from django.contrib.auth import get_user_model
from django.core.cache import cache
from django.db.models import Count, Q
from django.utils import timezone

from ladder.core.errors import ServiceError
from ladder.core.house import is_house
from ladder.models import Comparison, Match

WINDOW = timedelta(days=1)


class QuotaExceeded(ServiceError):
    """A request over a quota: answered as a 429 with ``Retry-After: retry_after_s``."""

    def __init__(self, message: str, *, retry_after_s: int, field: str | None = None) -> None:
        super().__init__(message, field=field, status=429)
        self.retry_after_s = retry_after_s


@dataclasses.dataclass(frozen=True)
class Quota:
    """A user's standing against one limit: ``used`` of ``limit`` per ``period``, ``left`` to go, and
    ``frees_in_s``, the seconds until the oldest use leaves the window (None when nothing is used)."""

    limit: int
    period: str
    used: int
    left: int
    frees_in_s: int | None

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


#: What each kind of write counts against: its rate's scope, and what a refusal calls the requests. Version
#: comparisons share the tournaments' scope and count: both schedule matches on request.
WRITE_RATES = {
    "uploads": ("uploads", "uploads"),
    "tournaments": ("tournaments", "tournaments created"),
    "comparisons": ("tournaments", "tournaments and comparisons created"),
    "webhooks": ("webhooks", "webhooks created or deleted"),
    "activations": ("activations", "bot deactivations and reactivations"),
}
_PERIODS = {"s": ("second", 1), "m": ("minute", 60), "h": ("hour", 3600), "d": ("day", 86400)}


def rate_of(scope: str) -> tuple[int, str, int] | None:
    """``(limit, period name, period seconds)`` of ``scope``'s rate (``"30/hour"``), None when it is off."""
    rate = (settings.REST_FRAMEWORK.get("DEFAULT_THROTTLE_RATES") or {}).get(scope)
    if not rate:
        return None
    count, period = str(rate).split("/")
    name, seconds = _PERIODS[period[:1]]
    return int(count), name, seconds


def _counter_key(scope: str, ident: object) -> str:
    # The counter's key and shape are those of Django REST framework's throttles (newest first), so the
    # counts of a server upgraded in place carry on.
    return f"throttle_{scope}_{ident}"


def _history(scope: str, ident: object, now: float, seconds: int) -> tuple[str, list[float]]:
    key = _counter_key(scope, ident)
    return key, [at for at in cache.get(key, []) if at > now - seconds]


def write_rate_usage(*, user, kind: str, now: float | None = None) -> Quota | None:
    """Where ``user`` stands against the rate of ``kind`` (a key of :data:`WRITE_RATES`), without counting
    a write; None when the limit is off."""
    scope, _what = WRITE_RATES[kind]
    rate = rate_of(scope)
    if rate is None:
        return None
    limit, period, seconds = rate
    now = time.time() if now is None else now
    _key, history = _history(scope, user.pk, now, seconds)
    # The oldest write counted leaves the window first.
    frees_in = max(1, math.ceil(history[-1] + seconds - now)) if history else None
    return Quota(limit=limit, period=period, used=len(history), left=max(0, limit - len(history)),
                 frees_in_s=frees_in)


def write_rate_check(*, user, kind: str, now: float | None = None) -> None:
    """Count one write of ``kind`` (a key of :data:`WRITE_RATES`) by ``user`` against its hourly (or other)
    rate, or refuse it: QuotaExceeded (429) naming the limit, with the seconds until the oldest counted
    write leaves the window. A write the server asks for itself (``user`` None, or the house account that
    owns the examples and the bench's bots: ``house.is_house``) is not counted.

    Call first in the service that performs the write, before its own checks: like the API's throttles,
    a refused request counts as much as an accepted one (a refusal costs the server the same work)."""
    if user is None or is_house(user):
        return
    scope, what = WRITE_RATES[kind]
    rate_check(scope=scope, ident=user.pk, what=what, now=now)


def rate_check(*, scope: str, ident: object, what: str, now: float | None = None) -> None:
    """Count one request of ``scope``'s rate for ``ident`` (a user's id, or a client address from
    ``ladder.core.client_address.client_ident``), or refuse it: QuotaExceeded (429) saying "too many
    ``what``", the limit, and the seconds until the oldest counted request leaves the window. The one
    counter of every rate limit: the API's throttles and the site's pages count here, so the same client
    meets the same count through either. Nothing is counted when the rate is off."""
    rate = rate_of(scope)
    if rate is None:
        return
    limit, period, seconds = rate
    with _counter_lock(_counter_key(scope, ident), what=what):
        now = time.time() if now is None else now
        key, history = _history(scope, ident, now, seconds)
        if len(history) >= limit:
            # The oldest request counted leaves the window first (a limit of 0: a whole period).
            wait = max(1, math.ceil(history[-1] + seconds - now)) if history else seconds
            raise QuotaExceeded(f"too many {what}: at most {limit} per {period}; try again in {wait} seconds",
                                retry_after_s=wait)
        cache.set(key, [now, *history], seconds)


#: Seconds a request waits for another one of the same client to finish counting before it is refused;
#: and how long a lock outlives a process that died holding it.
COUNTER_LOCK_WAIT_S = 2.0
COUNTER_LOCK_TTL_S = 5


@contextlib.contextmanager
def _counter_lock(key: str, *, what: str):
    """Hold ``key``'s counter alone while it is read and written: without it, requests of one client
    answered at once by several web processes would all read the same count and all pass. ``cache.add``
    is atomic in Redis (SET NX) and in the memory cache. Fails closed: a client that keeps the lock busy
    is refused, not let through."""
    lock = f"{key}:lock"
    owner = uuid.uuid4().hex
    deadline = time.monotonic() + COUNTER_LOCK_WAIT_S
    while not cache.add(lock, owner, COUNTER_LOCK_TTL_S):
        if time.monotonic() > deadline:
            raise QuotaExceeded(f"too many {what} at once: try again in a second", retry_after_s=1)
        time.sleep(0.005)
    try:
        yield
    finally:
        # Not another request's lock: ours may have expired while we were held up.
        if cache.get(lock) == owner:
            cache.delete(lock)


# A comparison whose matches have all left the window but that still runs holds its rest: asked to wait,
# the user is told to come back after this long, by when it has usually decided.
HELD_RETRY_S = 3600


def _user_unrated_matches(user, now: datetime):
    return Match.objects.filter(
        Q(tournament__created_by=user, tournament__rated=False) | Q(comparison__created_by=user),
        created_at__gt=now - WINDOW,
    )


def _held_by_comparisons(user) -> int:
    """Matches the running comparisons of ``user`` may still schedule (their ``max_games`` less the
    matches they scheduled)."""
    running = (Comparison.objects.filter(created_by=user, status=Comparison.Status.RUNNING)
               .annotate(scheduled=Count("matches")).values_list("max_games", "scheduled"))
    return sum(max(0, max_games - scheduled) for max_games, scheduled in running)


def _seconds_until_free(created_at: datetime, now: datetime) -> int:
    return max(1, math.ceil((created_at + WINDOW - now).total_seconds()))


def unrated_matches_quota(*, user, now: datetime | None = None) -> Quota:
    """Where ``user`` stands against ``UNRATED_MATCHES_PER_DAY``: ``used`` counts the matches scheduled in
    the window and those that running comparisons hold."""
    now = now or timezone.now()
    limit = settings.UNRATED_MATCHES_PER_DAY
    scheduled = _user_unrated_matches(user, now)
    used = scheduled.count() + _held_by_comparisons(user)
    oldest = scheduled.order_by("created_at").values_list("created_at", flat=True).first()
    return Quota(limit=limit, period="day", used=used, left=max(0, limit - used),
                 frees_in_s=_seconds_until_free(oldest, now) if oldest else None)


def unrated_matches_reserve(*, user, count: int, now: datetime | None = None, what: str = "this round robin",
                            field: str = "games_per_pairing",
                            fix: str = "enter fewer bots or fewer games per pairing") -> None:
    """Hold ``count`` new unrated matches of ``user`` against the quota, or refuse them. ``what`` names
    the request in the refusal (``"this comparison"``), ``field`` the input at fault and ``fix`` what to
    change when even a whole day's quota is too small.

    Call inside the transaction that creates the matches (or the comparison that will schedule them):
    the user's row is locked until it ends, so two requests of one user at once cannot both take the
    last of the quota. Raises ServiceError (400) for more matches than a whole day's quota, QuotaExceeded
    (429) when the quota has too little left now, with the seconds until enough of it is free again.
    """
    now = now or timezone.now()
    limit = settings.UNRATED_MATCHES_PER_DAY
    if count > limit:
        raise ServiceError(f"{what} would play up to {count} matches; you may schedule at most {limit} "
                           f"matches per day in unrated tournaments and comparisons: {fix}", field=field)
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    scheduled = _user_unrated_matches(user, now)
    in_window = scheduled.count()
    held = _held_by_comparisons(user)
    used = in_window + held
    if used + count <= limit:
        return
    # The matches that must leave the window first, oldest first; the last of them sets the wait. What
    # running comparisons hold leaves only when they are done.
    must_expire = used + count - limit
    if must_expire <= in_window:
        freed_at = scheduled.order_by("created_at", "id").values_list("created_at", flat=True)[must_expire - 1]
        wait = _seconds_until_free(freed_at, now)
    else:
        newest = scheduled.order_by("-created_at").values_list("created_at", flat=True).first()
        wait = max(HELD_RETRY_S, _seconds_until_free(newest, now) if newest else 0)
    held_note = f" (and running comparisons hold {held} more)" if held else ""
    raise QuotaExceeded(f"too many matches: you may schedule at most {limit} matches per day in unrated "
                        f"tournaments and comparisons, {in_window} are scheduled in the last 24 hours{held_note} "
                        f"and {what} needs {count}; try again in {wait} seconds", retry_after_s=wait)
