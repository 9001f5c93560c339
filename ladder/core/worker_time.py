"""The daily budget of worker seconds a user may spend on unrated play (``WORKER_SECONDS_PER_DAY``).

Counting matches (``ladder.core.quotas``) does not bound what they cost: a bot that answers just
under every deadline turns a 0.2 s match into tens of seconds. So each user's unrated work, their round
robins and version comparisons, is also held to a budget of worker time in any 24 hours:

* **Reserved when scheduled.** A match holds the worst case it can take under its stored limits,
  ``players x (start_ms + match_ms) + MATCH_OVERHEAD_S`` (``limits.match_worst_case_s``, stored on the
  match as ``reserved_s``), from the moment it is scheduled until it is played. A request is refused
  unless the budget has room for every match it schedules at that worst case.
* **Settled when recorded.** A finished match counts what it took, its ``duration_s`` (the referee's
  wall time from spawning the bots to the end). A failed match keeps its reservation: its attempts ran
  and nothing says for how long. A match dropped unplayed (a decided comparison's) counts nothing.
* **Comparisons hold the rest.** A running comparison schedules a few pairs at a time; it holds the
  rest of its ``max_games`` at the worst case of its matches, as it does against the match quota, so two
  comparisons started at once cannot both count on the same room. Once done it holds nothing more.

The window is the match quota's: matches scheduled in the last 24 hours. Rated play (the ladder, staff's
rated tournaments) is the server's choice and costs no user anything; staff are exempt altogether,
since they may give a tournament the server's caps, which a user's budget is not sized for.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from datetime import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db.models import Case, Count, F, FloatField, Q, Sum, Value, When
from django.db.models.functions import Coalesce
from django.utils import timezone

from ladder.core.errors import ServiceError
from ladder.core.limits import limits_playable, limits_resolve, match_worst_case_s
from ladder.core.quotas import HELD_RETRY_S, WINDOW, QuotaExceeded, _seconds_until_free
from ladder.models import Comparison, Match

#: Seconds a refused user is asked to wait when what stands in the way is reservations of matches still
#: to be played: each is released, down to what the match took, as soon as it is played.
PENDING_RETRY_S = 60

_UNPLAYED = (Match.Status.QUEUED, Match.Status.RUNNING)


@dataclasses.dataclass(frozen=True)
class WorkerSecondsQuota:
    """A user's standing against ``WORKER_SECONDS_PER_DAY``: ``used`` worker seconds of ``limit`` per
    ``period`` (whole seconds, rounded up), ``left`` to go, of which ``reserved`` are held for matches
    still to be played and by running comparisons, and ``frees_in_s`` until the oldest counted match
    leaves the window (None when none is counted)."""

    limit: int
    period: str
    used: int
    left: int
    reserved: int
    frees_in_s: int | None

    def to_json(self) -> dict:
        return dataclasses.asdict(self)


def match_reservation_s(*, game_slug: str, players: int, limits: Mapping[str, int] | None) -> float:
    """What the budget holds for one match of ``game_slug`` with ``players`` seats under ``limits`` (a
    match's stored limits or a tournament's overrides; what they lack comes from the settings)."""
    resolved = limits_resolve(game_slug=game_slug, overrides=limits_playable(limits or {}))
    return match_worst_case_s(players=players, limits=resolved)


def budget_applies(user) -> bool:
    """Whether ``user``'s unrated work is held to the budget: everyone's but staff's (and the server's)."""
    return user is not None and not user.is_staff


def _user_unrated_matches(user, now: datetime):
    return Match.objects.filter(
        Q(tournament__created_by=user, tournament__rated=False) | Q(comparison__created_by=user),
        created_at__gt=now - WINDOW,
    )


# A finished match counts what it took; any other counts its reservation.
_COST = Case(
    When(status=Match.Status.FINISHED, duration_s__isnull=False, then=F("duration_s")),
    default=Coalesce(F("reserved_s"), Value(0.0)),
    output_field=FloatField(),
)


def _held_by_comparisons(user) -> float:
    """Worker seconds the running comparisons of ``user`` hold for the matches they may still schedule."""
    running = (Comparison.objects.filter(created_by=user, status=Comparison.Status.RUNNING)
               .select_related("bot__game").annotate(scheduled=Count("matches")))
    return sum(max(0, comparison.max_games - comparison.scheduled)
               * match_reservation_s(game_slug=comparison.bot.game.slug, players=2, limits=comparison.limits)
               for comparison in running)


@dataclasses.dataclass(frozen=True)
class _Standing:
    in_window: float
    unplayed: float
    held: float

    @property
    def used(self) -> float:
        return self.in_window + self.held


def _standing(user, now: datetime) -> _Standing:
    totals = _user_unrated_matches(user, now).aggregate(
        cost=Sum(_COST), unplayed=Sum("reserved_s", filter=Q(status__in=_UNPLAYED)))
    return _Standing(in_window=totals["cost"] or 0.0, unplayed=totals["unplayed"] or 0.0,
                     held=_held_by_comparisons(user))


def worker_seconds_quota(*, user, now: datetime | None = None) -> WorkerSecondsQuota | None:
    """Where ``user`` stands against ``WORKER_SECONDS_PER_DAY``; None for staff (not held to it)."""
    if not budget_applies(user):
        return None
    now = now or timezone.now()
    limit = settings.WORKER_SECONDS_PER_DAY
    standing = _standing(user, now)
    used = math.ceil(standing.used)
    oldest = (_user_unrated_matches(user, now).order_by("created_at")
              .values_list("created_at", flat=True).first())
    return WorkerSecondsQuota(limit=limit, period="day", used=used, left=max(0, limit - used),
                              reserved=math.ceil(standing.unplayed + standing.held),
                              frees_in_s=_seconds_until_free(oldest, now) if oldest else None)


def _wait_s(user, now: datetime, *, short_s: float, standing: _Standing) -> int:
    """Seconds until ``short_s`` more of the budget is free: when enough of the window's matches leave it,
    oldest first; sooner (``PENDING_RETRY_S``) when the reservations of unplayed matches alone cover it,
    since playing them releases them; what running comparisons hold leaves only when they are done."""
    freed = 0.0
    wait = None
    costs = (_user_unrated_matches(user, now).annotate(cost=_COST).order_by("created_at", "id")
             .values_list("created_at", "cost"))
    for created_at, cost in costs.iterator():
        freed += cost or 0.0
        if freed >= short_s:
            wait = _seconds_until_free(created_at, now)
            break
    if wait is None:
        newest = _user_unrated_matches(user, now).order_by("-created_at").values_list("created_at", flat=True).first()
        wait = max(HELD_RETRY_S, _seconds_until_free(newest, now) if newest else 0)
    if standing.unplayed >= short_s:
        wait = min(wait, PENDING_RETRY_S)
    return wait


def worker_seconds_reserve(*, user, seconds: float, now: datetime | None = None, what: str = "this round robin",
                           field: str = "games_per_pairing",
                           fix: str = "enter fewer bots, fewer games per pairing or tighter limits") -> None:
    """Hold ``seconds`` of worker time (the worst case of what a request schedules) against ``user``'s
    budget, or refuse it. Staff are not held to it. ``what`` names the request in the refusal, ``field``
    the input at fault and ``fix`` what to change when even a whole day's budget is too small.

    Call inside the transaction that creates the matches (or the comparison that will schedule them):
    the user's row is locked until it ends, so two requests of one user at once cannot both take the
    last of the budget. Raises ServiceError (400) for more than a whole day's budget, QuotaExceeded (429)
    when the budget has too little left now, with the seconds until enough of it is free again.
    """
    if not budget_applies(user):
        return
    now = now or timezone.now()
    limit = settings.WORKER_SECONDS_PER_DAY
    need = math.ceil(seconds)
    if need > limit:
        raise ServiceError(f"{what} may take up to {need} worker seconds (every match at the worst case its limits "
                           f"allow); you may use at most {limit} worker seconds per day in unrated tournaments and "
                           f"comparisons: {fix}", field=field)
    get_user_model().objects.select_for_update().filter(pk=user.pk).first()
    standing = _standing(user, now)
    if standing.used + seconds <= limit:
        return
    wait = _wait_s(user, now, short_s=standing.used + seconds - limit, standing=standing)
    reserved = math.ceil(standing.unplayed + standing.held)
    raise QuotaExceeded(
        f"too much worker time: you may use at most {limit} worker seconds per day in unrated tournaments and "
        f"comparisons, {math.ceil(standing.used)} are used or reserved in the last 24 hours ({reserved} of them "
        f"reserved for matches still to be played, released as they are played) and {what} may take up to "
        f"{need}; try again in {wait} seconds", retry_after_s=wait)


def matches_reserve(*, user, game_slug: str, players: int, count: int, limits: Mapping[str, int] | None,
                    **refusal) -> None:
    """:func:`worker_seconds_reserve` for ``count`` matches of ``players`` seats under ``limits`` (a
    tournament's overrides, a comparison's limits); ``refusal`` as there."""
    if not budget_applies(user):
        return
    per_match = match_reservation_s(game_slug=game_slug, players=players, limits=limits)
    worker_seconds_reserve(user=user, seconds=count * per_match, **refusal)
