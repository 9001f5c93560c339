"""``ladder.core.quotas``: the write rates (``"N/period"`` of a scope, off when unset, comparisons
counted with tournaments, the server's own writes never counted, a refusal saying when the oldest write
leaves the window) and the daily quota of unrated matches (counted from the matches of the last 24 hours
and what running comparisons hold, rated tournaments free, a request larger than a whole day a 400, one
larger than what is left a 429 with the wait)."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ladder.core.errors import ServiceError
from ladder.core.quotas import (
    Quota,
    QuotaExceeded,
    unrated_matches_quota,
    unrated_matches_reserve,
    write_rate_check,
    write_rate_usage,
)
from ladder.models import Match
from ladder.services.tournaments.comparisons import comparison_create
from ladder.services.uploads.examples import examples_owner
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    MatchFactory,
    RatedTournamentFactory,
    TournamentFactory,
    UserFactory,
)

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]

NOW = 1_700_000_000.0


def test_a_rate_counts_each_write_and_refuses_past_its_limit_until_the_oldest_leaves(throttle_rates):
    throttle_rates(uploads="2/minute")
    user = UserFactory()
    assert write_rate_usage(user=user, kind="uploads", now=NOW) == Quota(limit=2, period="minute", used=0, left=2,
                                                                          frees_in_s=None)
    write_rate_check(user=user, kind="uploads", now=NOW)
    write_rate_check(user=user, kind="uploads", now=NOW + 20)
    assert write_rate_usage(user=user, kind="uploads", now=NOW + 30) == Quota(limit=2, period="minute", used=2,
                                                                               left=0, frees_in_s=30)
    with pytest.raises(QuotaExceeded) as caught:
        write_rate_check(user=user, kind="uploads", now=NOW + 30)
    assert caught.value.status == 429 and caught.value.retry_after_s == 30
    assert "too many uploads: at most 2 per minute; try again in 30 seconds" == caught.value.message
    write_rate_check(user=user, kind="uploads", now=NOW + 61)  # the first write has left the window
    assert write_rate_usage(user=user, kind="uploads", now=NOW + 61).used == 2


def test_each_user_has_a_count_of_their_own(throttle_rates):
    throttle_rates(uploads="1/hour")
    first, second = UserFactory(), UserFactory()
    write_rate_check(user=first, kind="uploads", now=NOW)
    write_rate_check(user=second, kind="uploads", now=NOW)
    with pytest.raises(QuotaExceeded):
        write_rate_check(user=first, kind="uploads", now=NOW + 1)


def test_comparisons_count_against_the_tournaments_rate(throttle_rates):
    throttle_rates(tournaments="1/day")
    user = UserFactory()
    write_rate_check(user=user, kind="tournaments", now=NOW)
    with pytest.raises(QuotaExceeded) as caught:
        write_rate_check(user=user, kind="comparisons", now=NOW + 5)
    assert "tournaments and comparisons created: at most 1 per day" in caught.value.message
    assert caught.value.retry_after_s == 86400 - 5


def test_a_limit_of_zero_refuses_every_write_for_a_whole_period(throttle_rates):
    throttle_rates(uploads="0/hour")
    with pytest.raises(QuotaExceeded) as caught:
        write_rate_check(user=UserFactory(), kind="uploads", now=NOW)
    assert caught.value.retry_after_s == 3600


def test_a_rate_turned_off_counts_nothing(throttle_rates):
    throttle_rates(uploads=None)
    user = UserFactory()
    for _ in range(5):
        write_rate_check(user=user, kind="uploads", now=NOW)
    assert write_rate_usage(user=user, kind="uploads", now=NOW) is None


def test_the_servers_own_writes_are_not_counted(throttle_rates):
    throttle_rates(uploads="1/hour")
    house = examples_owner()
    for _ in range(3):
        write_rate_check(user=None, kind="uploads", now=NOW)
        write_rate_check(user=house, kind="uploads", now=NOW)
    assert write_rate_usage(user=house, kind="uploads", now=NOW).used == 0


def unrated_matches(user, count: int, *, age: timedelta = timedelta(0)) -> None:
    tournament = TournamentFactory(created_by=user)
    ids = [MatchFactory(tournament=tournament).pk for _ in range(count)]
    Match.objects.filter(pk__in=ids).update(created_at=timezone.now() - age)


def test_the_quota_counts_the_users_unrated_matches_of_the_last_day_only(settings):
    settings.UNRATED_MATCHES_PER_DAY = 10
    user = UserFactory()
    unrated_matches(user, 3, age=timedelta(hours=20))
    unrated_matches(user, 5, age=timedelta(hours=25))  # left the window
    unrated_matches(UserFactory(), 4)  # someone else's
    MatchFactory(tournament=RatedTournamentFactory(created_by=user))  # rated: not counted
    quota = unrated_matches_quota(user=user)
    assert (quota.limit, quota.period, quota.used, quota.left) == (10, "day", 3, 7)
    assert 4 * 3600 - 5 <= quota.frees_in_s <= 4 * 3600 + 1
    assert unrated_matches_quota(user=UserFactory()).frees_in_s is None


def test_a_reservation_within_what_is_left_passes_and_one_past_it_waits_for_enough_to_free(settings):
    settings.UNRATED_MATCHES_PER_DAY = 10
    user = UserFactory()
    unrated_matches(user, 4, age=timedelta(hours=22))  # the oldest: free in about 2 hours
    unrated_matches(user, 4, age=timedelta(hours=1))  # free in about 23 hours
    unrated_matches_reserve(user=user, count=2)
    with pytest.raises(QuotaExceeded) as caught:
        unrated_matches_reserve(user=user, count=5, what="this cup")
    # 8 used, 5 asked, limit 10: 3 must leave the window, all of them from the oldest four.
    assert 2 * 3600 - 5 <= caught.value.retry_after_s <= 2 * 3600 + 1
    assert "8 are scheduled in the last 24 hours and this cup needs 5" in caught.value.message
    with pytest.raises(QuotaExceeded) as caught:
        unrated_matches_reserve(user=user, count=7)
    assert 23 * 3600 - 5 <= caught.value.retry_after_s <= 23 * 3600 + 1  # needs one of the newer four


def test_more_than_a_whole_days_quota_is_a_400_naming_the_field_and_the_fix(settings):
    settings.UNRATED_MATCHES_PER_DAY = 10
    with pytest.raises(ServiceError) as caught:
        unrated_matches_reserve(user=UserFactory(), count=11, field="max_games", fix="ask for fewer games")
    assert not isinstance(caught.value, QuotaExceeded)
    assert caught.value.status == 400 and caught.value.field == "max_games"
    assert caught.value.message.endswith("ask for fewer games")


def test_a_running_comparison_holds_the_rest_of_its_games(settings):
    settings.UNRATED_MATCHES_PER_DAY = 30
    bot = BotFactory()
    BotVersionFactory(bot=bot)
    comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=2, max_games=20)
    assert unrated_matches_quota(user=bot.owner).used == 20
    unrated_matches_reserve(user=bot.owner, count=10)
    with pytest.raises(QuotaExceeded) as caught:
        unrated_matches_reserve(user=bot.owner, count=11)
    assert "running comparisons hold" in caught.value.message
    assert caught.value.retry_after_s >= 3600


@pytest.mark.parametrize("backend", ["locmem", pytest.param("redis", marks=pytest.mark.redis)])
def test_requests_racing_each_other_are_counted_one_at_a_time(settings, throttle_rates, backend):
    """Many requests of one client at the same moment (several web processes answer at once): no more pass
    than the limit, because reading and writing a counter is one step."""
    import threading
    import uuid

    from ladder.core.quotas import rate_check

    if backend == "redis":
        broker = settings.CELERY_BROKER_URL
        # The test's own keys, in the test run's own Redis database: nothing else is touched or cleared.
        settings.CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache",
                                       "LOCATION": broker}}
    throttle_rates(logins="5/hour")

    def race(ident: str, clients: int = 32) -> int:
        start = threading.Barrier(clients)
        passed = []

        def attempt():
            start.wait()
            try:
                rate_check(scope="logins", ident=ident, what="log-in attempts")
            except QuotaExceeded:
                return
            passed.append(1)

        threads = [threading.Thread(target=attempt) for _ in range(clients)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        return len(passed)

    assert [race(f"race-{uuid.uuid4().hex}") for _ in range(4)] == [5] * 4
