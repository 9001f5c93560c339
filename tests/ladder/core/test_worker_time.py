"""The daily budget of worker seconds (``ladder.core.worker_time``): what each match reserves when
scheduled, what it settles at when recorded, what running comparisons hold, the refusals (400 past a
whole day, 429 with the wait otherwise), and who is held to it."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from bots.referee import MatchResult, SeatResult
from ladder.core.errors import ServiceError
from ladder.core.limits import match_worst_case_s
from ladder.core.quotas import QuotaExceeded
from ladder.core.worker_time import PENDING_RETRY_S, worker_seconds_quota
from ladder.models import Comparison, Match, Tournament
from ladder.services.play.matches import match_claim, match_record_result, match_release_after_fault
from ladder.services.tournaments.comparisons import comparison_create
from ladder.services.tournaments.round_robins import tournament_create
from tests.factories import BotVersionFactory, StaffFactory

pytestmark = pytest.mark.django_db

# A two-player match at the limits below: 2 x (5 s start + 30 s match) + 10 s overhead.
WORST_2P = 80.0


@pytest.fixture(autouse=True)
def default_limits(settings):
    settings.BOTS_MATCH_MS, settings.BOTS_LIMITS_BY_GAME = 30000, {}
    settings.WORKER_SECONDS_PER_DAY = 1000
    settings.UNRATED_MATCHES_PER_DAY = 5000


def round_robin(user, bots, **kwargs):
    kwargs.setdefault("players_per_match", 2)
    return tournament_create(created_by=user, game_slug="kingdomino", name="cup", bot_ids=[b.id for b in bots],
                             **kwargs)


def record(match: Match, *, duration_s: float) -> None:
    """Claim and record ``match`` as a worker would, the referee saying it took ``duration_s``."""
    claim = match_claim(match_id=match.pk, worker="tests")
    result = MatchResult(
        game=claim.game, players=claim.players, seed=claim.seed, options=claim.options, actions=[],
        seats=[SeatResult(bot=seat.bot_name, score=0, place=1, outcome="ok", reason="", time_used_ms=1, log="")
               for seat in claim.seats],
        duration_s=duration_s,
    )
    assert match_record_result(match_id=match.pk, token=claim.token, result=result)


def test_the_worst_case_is_every_seat_spending_its_start_and_match_time_plus_the_overhead():
    assert match_worst_case_s(players=2, limits={"start_ms": 5000, "match_ms": 30000}) == WORST_2P
    assert match_worst_case_s(players=5, limits={"start_ms": 5000, "match_ms": 40000}) == 235.0


def test_each_match_reserves_its_worst_case_from_its_stored_limits(bot_factory, user_factory):
    user = user_factory()
    bots = bot_factory.create_batch(3)
    round_robin(user, bots)
    tight = round_robin(user, bots[:2], limits={"match_ms": 1000})
    assert set(Match.objects.exclude(tournament=tight).values_list("reserved_s", flat=True)) == {WORST_2P}
    # 2 x (5 s + 1 s) + 10 s.
    assert list(tight.matches.values_list("reserved_s", flat=True)) == [22.0]
    quota = worker_seconds_quota(user=user)
    assert (quota.limit, quota.period, quota.used, quota.reserved, quota.left) == (1000, "day", 262, 262, 738)
    assert 86_000 < quota.frees_in_s <= 86_400


def test_a_recorded_match_settles_at_what_it_took(bot_factory, user_factory):
    user = user_factory()
    tournament = round_robin(user, bot_factory.create_batch(3))
    first, second, third = tournament.matches.order_by("index")
    record(first, duration_s=0.4)
    record(second, duration_s=12.2)
    quota = worker_seconds_quota(user=user)
    # 0.4 + 12.2 played, 80 still reserved for the third, rounded up.
    assert (quota.used, quota.reserved) == (93, 80)
    # A failed match keeps its reservation: its attempts ran, for how long nobody recorded.
    claim = match_claim(match_id=third.pk)
    Match.objects.filter(pk=third.pk).update(attempts=99)
    assert match_release_after_fault(match_id=third.pk, token=claim.token, reason="no cgroup") == "failed"
    quota = worker_seconds_quota(user=user)
    assert (quota.used, quota.reserved) == (93, 0)


def test_past_the_budget_the_refusal_waits_for_the_reservations_to_be_played(bot_factory, user_factory):
    user = user_factory()
    bots = bot_factory.create_batch(2)
    round_robin(user, bots, games_per_pairing=12)  # 960 of 1000 reserved
    with pytest.raises(QuotaExceeded) as refused:
        round_robin(user, bots)
    assert refused.value.retry_after_s == PENDING_RETRY_S
    assert "at most 1000 worker seconds per day" in refused.value.message
    assert "960 are used or reserved in the last 24 hours (960 of them reserved" in refused.value.message
    assert "may take up to 80" in refused.value.message
    assert Tournament.objects.count() == 1
    # Once played, the matches count what they took, and the same request fits.
    for match in Match.objects.all():
        record(match, duration_s=1.0)
    round_robin(user, bots)
    assert worker_seconds_quota(user=user).used == 12 + 80


def test_what_was_played_frees_when_it_leaves_the_24_hours(bot_factory, user_factory):
    user = user_factory()
    bots = bot_factory.create_batch(2)
    round_robin(user, bots, games_per_pairing=3)
    matches = list(Match.objects.order_by("id"))
    for match, took in zip(matches, (300.0, 300.0, 300.0), strict=True):
        record(match, duration_s=took)
    now = timezone.now()
    for match, hours_ago in zip(matches, (20, 10, 5), strict=True):
        Match.objects.filter(pk=match.pk).update(created_at=now - timedelta(hours=hours_ago))
    # 900 used: two more matches (160 s) need 60 s to free, which the oldest match's 300 s do in 4 hours.
    with pytest.raises(QuotaExceeded) as refused:
        round_robin(user, bots, games_per_pairing=2)
    assert 4 * 3600 - 60 < refused.value.retry_after_s <= 4 * 3600
    assert f"try again in {refused.value.retry_after_s} seconds" in refused.value.message


def test_more_than_a_whole_days_budget_is_a_400_naming_the_field(bot_factory, user_factory):
    user = user_factory()
    with pytest.raises(ServiceError) as refused:
        round_robin(user, bot_factory.create_batch(2), games_per_pairing=13)  # 1040 s
    assert (refused.value.status, refused.value.field) == (400, "games_per_pairing")
    assert "may take up to 1040 worker seconds" in refused.value.message
    assert "tighter limits" in refused.value.message
    assert not Tournament.objects.exists()


def test_staff_are_not_held_to_the_budget(bot_factory):
    staff = StaffFactory()
    round_robin(staff, bot_factory.create_batch(2), games_per_pairing=50)
    assert worker_seconds_quota(user=staff) is None


def test_a_running_comparison_holds_the_rest_of_its_games_at_their_worst_case(settings, bot_factory):
    settings.COMPARISON_PAIRS_IN_FLIGHT = 1
    bot = bot_factory()
    BotVersionFactory(bot=bot)
    comparison = comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=2, max_games=10)
    assert Match.objects.filter(comparison=comparison).count() == 2
    quota = worker_seconds_quota(user=bot.owner)
    # 2 scheduled and 8 held, every one at 80 s.
    assert (quota.used, quota.reserved) == (800, 800)
    with pytest.raises(QuotaExceeded) as refused:
        comparison_create(user=bot.owner, bot_id=bot.id, baseline=2, candidate=1, max_games=4)
    assert refused.value.field is None and "800 are used or reserved" in refused.value.message
    with pytest.raises(ServiceError) as refused:
        comparison_create(user=bot.owner, bot_id=bot.id, baseline=2, candidate=1, max_games=14)
    assert (refused.value.status, refused.value.field) == (400, "max_games")
    assert "ask for fewer max_games" in refused.value.message
    # Once done, a comparison holds nothing more than the matches it scheduled.
    Comparison.objects.filter(pk=comparison.pk).update(status="done", verdict="better",
                                                       finished_at=comparison.created_at)
    assert worker_seconds_quota(user=bot.owner).used == 160
