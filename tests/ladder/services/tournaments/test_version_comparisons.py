"""Version comparisons: a pair's score, the verdict rule, the schedule of pairs, the SPRT run to its end
on the workers' recording path, the quota and the seat constraint that lets two versions of a bot meet."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.db import IntegrityError, transaction
from django.utils import timezone

from bots.referee import MatchResult, SeatResult
from ladder.core.errors import ServiceError
from ladder.core.quotas import QuotaExceeded, unrated_matches_quota
from ladder.models import Comparison, Game, Match, Rating, RatingChange, Seat
from ladder.ratings.sequential import sprt_bounds
from ladder.services.play.matches import (
    match_claim,
    match_record_result,
    match_release_after_fault,
    matches_reconcile,
)
from ladder.services.tournaments.comparisons import (
    candidate_points,
    comparison_advance,
    comparison_create,
    comparison_verdict,
    pair_outcome,
)
from tests.factories import BotVersionFactory

pytestmark = pytest.mark.django_db

CAND, BASE, OTHER = 2, 1, 9


# --- The pair's score ------------------------------------------------------------------------------------

@pytest.mark.parametrize(("seats", "points"), [
    ([(CAND, 1, False), (BASE, 2, False)], 1.0),   # the candidate won
    ([(BASE, 1, False), (CAND, 2, False)], 0.0),   # it lost, from the other seat
    ([(CAND, 1, False), (BASE, 1, False)], 0.5),   # tied places draw
    ([(CAND, 1, True), (BASE, 2, False)], 0.0),    # a forfeit loses whatever the place
    ([(CAND, 2, False), (BASE, 1, True)], 1.0),    # ... also the baseline's
    ([(OTHER, 1, False), (BASE, 2, False)], 1.0),  # a field game of the baseline: what it did not score
    ([(BASE, 1, False), (OTHER, 2, False)], 0.0),
    ([(OTHER, 1, False), (CAND, 1, False)], 0.5),
])
def test_a_game_gives_the_candidate_its_score_or_what_the_baseline_missed(seats, points):
    assert candidate_points(seats=seats, candidate_id=CAND, baseline_id=BASE) == points


def test_a_game_without_either_version_or_of_three_seats_is_refused():
    with pytest.raises(ValueError):
        candidate_points(seats=[(OTHER, 1, False), (OTHER + 1, 2, False)], candidate_id=CAND, baseline_id=BASE)
    with pytest.raises(ValueError):
        candidate_points(seats=[(CAND, 1, False), (BASE, 2, False), (OTHER, 3, False)], candidate_id=CAND,
                         baseline_id=BASE)


@pytest.mark.parametrize(("points", "outcome"), [
    ((0, 0), 0), ((0, 0.5), 1), ((0.5, 0.5), 2), ((1, 0), 2), ((1, 0.5), 3), ((1, 1), 4)])
def test_a_pair_is_one_of_five_outcomes(points, outcome):
    assert pair_outcome(points) == outcome


BOUNDS = sprt_bounds(0.05, 0.05)


@pytest.mark.parametrize(("llr", "elo_high", "verdict"), [
    (3.0, 50.0, "better"),
    (BOUNDS.upper, 1.0, "better"),
    (-3.0, -1.0, "worse"),     # H0 and the whole interval below 0
    (-3.0, 4.0, "equal"),      # H0, but not shown to be worse
    (-3.0, 0.0, "equal"),
    (0.5, -40.0, None),        # between the bounds: keep playing
])
def test_the_verdict_rule(llr, elo_high, verdict):
    assert comparison_verdict(llr=llr, bounds=BOUNDS, elo_high=elo_high) == verdict


# --- Scheduling and recording ---------------------------------------------------------------------------

@pytest.fixture
def two_versions(bot_factory):
    """A bot with accepted versions 1 and 2 (different code), owner ``bot.owner``."""
    bot = bot_factory()
    BotVersionFactory(bot=bot)
    return bot


def play(match: Match, *, winner: int | None) -> bool:
    """Claim and record ``match`` as a worker would, version ``winner`` (a version id) placed first, the
    other second; ``winner=None`` ties them."""
    claim = match_claim(match_id=match.pk, worker="tests")
    assert claim is not None
    places = [1 if winner is None or seat.bot_version_id == winner else 2 for seat in claim.seats]
    result = MatchResult(
        game=claim.game, players=claim.players, seed=claim.seed, options=claim.options, actions=[],
        seats=[SeatResult(bot=s.bot_name, score=0, place=p, outcome="ok", reason="", time_used_ms=1, log="")
               for s, p in zip(claim.seats, places, strict=True)],
        duration_s=0.01,
    )
    return match_record_result(match_id=match.pk, token=claim.token, result=result)


def queued(comparison: Comparison) -> list[Match]:
    return list(comparison.matches.filter(status=Match.Status.QUEUED).order_by("index"))


def test_a_comparison_queues_a_window_of_pairs_each_on_one_secret_seed_from_both_seats(two_versions, settings):
    settings.COMPARISON_PAIRS_IN_FLIGHT = 3
    comparison = comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=1, candidate=2)
    assert (comparison.elo0, comparison.elo1, comparison.alpha, comparison.beta) == (0.0, 20.0, 0.05, 0.05)
    assert comparison.max_games == settings.COMPARISON_DEFAULT_MAX_GAMES
    matches = list(comparison.matches.prefetch_related("seats").order_by("index"))
    assert [m.deal for m in matches] == [0, 0, 1, 1, 2, 2]
    assert all(m.tournament_id is None and m.players == 2 for m in matches)
    for first, second in zip(matches[::2], matches[1::2], strict=True):
        assert first.seed == second.seed
        orders = [[s.bot_version_id for s in m.seats.order_by("position")] for m in (first, second)]
        assert orders == [[comparison.candidate_id, comparison.baseline_id],
                          [comparison.baseline_id, comparison.candidate_id]]
        assert {s.bot_id for m in (first, second) for s in m.seats.all()} == {two_versions.id}
    assert len({m.seed for m in matches}) == 3


def test_a_pair_counts_once_both_games_are_in_and_the_window_is_topped_up(two_versions, settings):
    settings.COMPARISON_PAIRS_IN_FLIGHT = 2
    comparison = comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=1, candidate=2)
    first, second = queued(comparison)[:2]
    assert play(first, winner=comparison.candidate_id)
    comparison.refresh_from_db()
    assert comparison.pairs == [0, 0, 0, 0, 0] and comparison.llr_history == []
    assert comparison.matches.count() == 4  # the pair is still in flight: nothing new
    assert play(second, winner=None)
    comparison.refresh_from_db()
    assert comparison.pairs == [0, 0, 0, 1, 0]  # a win and a draw: 3/2
    assert len(comparison.llr_history) == 1 and comparison.llr_history[0] > 0
    assert comparison.matches.count() == 6 and len(queued(comparison)) == 4
    assert comparison.status == "running" and comparison.verdict is None


def test_a_clearly_better_candidate_is_declared_better_and_the_unplayed_matches_are_dropped(two_versions, settings):
    settings.COMPARISON_PAIRS_IN_FLIGHT = 4
    comparison = comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=1, candidate=2,
                                   elo1=50, max_games=400)
    ratings_before = list(Rating.objects.values_list("bot_id", "elo", "games"))
    pairs = 0
    while (comparison := Comparison.objects.get(pk=comparison.pk)).status == "running":
        first, second = queued(comparison)[:2]
        assert first.deal == second.deal
        # Mostly wins, now and then a draw: every pair scores 3/2 or 2.
        assert play(first, winner=comparison.candidate_id)
        assert play(second, winner=None if pairs % 3 == 0 else comparison.candidate_id)
        pairs += 1
        assert pairs < 100
    assert comparison.verdict == "better"
    assert sum(comparison.pairs) == pairs == len(comparison.llr_history)
    assert comparison.llr_history[-1] >= sprt_bounds(0.05, 0.05).upper
    assert comparison.finished_at is not None
    assert not comparison.matches.filter(status=Match.Status.QUEUED).exists()
    assert comparison.matches.count() == 2 * pairs
    # Never rated: no rating moved, no history row, no seat's rating written.
    assert list(Rating.objects.values_list("bot_id", "elo", "games")) == ratings_before
    assert not RatingChange.objects.exists()
    assert not Seat.objects.filter(match__comparison=comparison, rating_after__isnull=False).exists()


def test_even_pairs_end_equal_and_a_worse_candidate_worse(bot_factory, settings):
    settings.COMPARISON_PAIRS_IN_FLIGHT = 2
    verdicts = []
    for winner in ("none", "baseline"):
        bot = bot_factory()
        BotVersionFactory(bot=bot)
        comparison = comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=2, elo1=50,
                                       max_games=1000)
        while (comparison := Comparison.objects.get(pk=comparison.pk)).status == "running":
            for match in queued(comparison)[:2]:
                assert play(match, winner=None if winner == "none" else comparison.baseline_id)
        verdicts.append(comparison.verdict)
    assert verdicts == ["equal", "worse"]


def test_the_cap_ends_an_undecided_comparison_inconclusive(two_versions, settings):
    settings.COMPARISON_PAIRS_IN_FLIGHT = 8
    comparison = comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=1, candidate=2,
                                   max_games=7)
    assert comparison.matches.count() == 6  # three whole pairs fit in 7 games
    for index, match in enumerate(queued(comparison)):
        assert play(match, winner=comparison.candidate_id if index % 2 else comparison.baseline_id)
    comparison.refresh_from_db()
    assert (comparison.status, comparison.verdict) == ("done", "inconclusive")
    assert comparison.pairs == [0, 0, 3, 0, 0] and comparison.matches.count() == 6


def test_a_match_given_up_after_its_faults_is_replaced_within_the_cap(two_versions, settings):
    settings.COMPARISON_PAIRS_IN_FLIGHT = 1
    settings.MATCH_MAX_ATTEMPTS = 1
    comparison = comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=1, candidate=2,
                                   max_games=4)
    first, second = queued(comparison)
    claim = match_claim(match_id=first.pk, worker="tests")
    assert match_release_after_fault(match_id=first.pk, token=claim.token, reason="sandbox fault") == "failed"
    assert play(second, winner=None)
    comparison.refresh_from_db()
    assert comparison.pairs == [0] * 5  # the pair with the failed game never counts
    third, fourth = queued(comparison)
    assert third.deal == fourth.deal == 1
    assert play(third, winner=None) and play(fourth, winner=None)
    comparison.refresh_from_db()
    assert (comparison.status, comparison.verdict, comparison.pairs) == ("done", "inconclusive", [0, 0, 1, 0, 0])


def test_a_result_recorded_after_the_decision_changes_nothing(two_versions, settings):
    settings.COMPARISON_PAIRS_IN_FLIGHT = 2
    comparison = comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=1, candidate=2)
    late = queued(comparison)[2]
    late_claim = match_claim(match_id=late.pk, worker="tests")  # running when the test decides
    Comparison.objects.filter(pk=comparison.pk).update(status="done", verdict="better",
                                                       finished_at=comparison.created_at)
    with transaction.atomic():
        assert comparison_advance(comparison_id=comparison.pk, match_id=late.pk) is None
    result = MatchResult(game=late_claim.game, players=2, seed=late_claim.seed, options={}, actions=[],
                         seats=[SeatResult(bot=s.bot_name, score=0, place=1, outcome="ok", reason="",
                                           time_used_ms=1, log="") for s in late_claim.seats], duration_s=0.01)
    assert match_record_result(match_id=late.pk, token=late_claim.token, result=result)
    comparison.refresh_from_db()
    assert comparison.pairs == [0] * 5 and comparison.matches.count() == 4


def test_against_a_field_both_versions_meet_each_opponent_from_the_same_seat_on_one_deal(two_versions, bot_factory,
                                                                                        settings):
    settings.COMPARISON_PAIRS_IN_FLIGHT = 4
    field = [bot_factory(), bot_factory()]
    comparison = comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=1, candidate=2,
                                   opponents=[b.id for b in field])
    matches = list(comparison.matches.prefetch_related("seats").order_by("index"))
    seatings = [[s.bot_version_id for s in m.seats.order_by("position")] for m in matches]
    v = {b.id: b.versions.get().id for b in field}
    c, b = comparison.candidate_id, comparison.baseline_id
    first, second = sorted(v)
    assert seatings == [[c, v[first]], [b, v[first]], [c, v[second]], [b, v[second]],
                        [v[first], c], [v[first], b], [v[second], c], [v[second], b]]
    assert [m.deal for m in matches] == [0, 0, 1, 1, 2, 2, 3, 3]
    # The candidate won where the baseline lost, on the same deal from the same seat: a pair worth 2.
    assert play(matches[0], winner=c) and play(matches[1], winner=v[first])
    comparison.refresh_from_db()
    assert comparison.pairs == [0, 0, 0, 0, 1]


# --- Refusals ------------------------------------------------------------------------------------------

@pytest.mark.parametrize(("changes", "field"), [
    ({"baseline": 3}, "baseline"),
    ({"candidate": 1}, "candidate"),
    ({"elo0": 10, "elo1": 5}, "elo1"),
    ({"elo1": 5000}, "elo1"),
    ({"alpha": 0.6, "beta": 0.5}, "alpha"),
    ({"alpha": 0}, "alpha"),
    ({"max_games": 1}, "max_games"),
    ({"max_games": 10**6}, "max_games"),
])
def test_bad_parameters_are_refused_naming_the_field(two_versions, changes, field):
    values = {"baseline": 1, "candidate": 2, **changes}
    with pytest.raises(ServiceError) as refused:
        comparison_create(user=two_versions.owner, bot_id=two_versions.id, **values)
    assert (refused.value.status, refused.value.field) == (400, field)
    assert not Comparison.objects.exists() and not Match.objects.exists()


def test_a_pending_version_is_refused(two_versions):
    BotVersionFactory(bot=two_versions, validation_status="pending")
    with pytest.raises(ServiceError, match="version 3 of .* is pending"):
        comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=1, candidate=3)


def test_opponents_must_be_other_active_bots_of_the_game(two_versions, bot_factory):
    other_game = bot_factory(game=Game.objects.get(slug="dice_king"))
    inactive = bot_factory(active=False)
    for opponents, message in (([two_versions.id], "the bot under comparison"), ([other_game.id], "another game"),
                               ([inactive.id], "inactive"), ([10**9], "no bots with ids"),
                               ([inactive.id, inactive.id], "listed once")):
        with pytest.raises(ServiceError, match=message) as refused:
            comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=1, candidate=2,
                              opponents=opponents)
        assert refused.value.field == "opponents"


def test_only_the_owner_may_compare_versions(two_versions, user_factory):
    with pytest.raises(ServiceError) as refused:
        comparison_create(user=user_factory(), bot_id=two_versions.id, baseline=1, candidate=2)
    assert refused.value.status == 404


def test_a_running_comparison_holds_the_rest_of_its_games_against_the_quota(two_versions, settings):
    settings.UNRATED_MATCHES_PER_DAY = 100
    settings.COMPARISON_PAIRS_IN_FLIGHT = 2
    comparison = comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=1, candidate=2,
                                   max_games=60)
    assert unrated_matches_quota(user=two_versions.owner).used == 60  # 4 scheduled, 56 held
    with pytest.raises(QuotaExceeded) as refused:
        comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=2, candidate=1, max_games=41)
    assert refused.value.retry_after_s >= 1 and "running comparisons hold 56 more" in refused.value.message
    comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=2, candidate=1, max_games=40)
    # Once done, a comparison holds only what it played.
    Comparison.objects.filter(pk=comparison.pk).update(status="done", verdict="better",
                                                       finished_at=comparison.created_at)
    assert unrated_matches_quota(user=two_versions.owner).used == 4 + 40


def test_more_games_than_a_days_quota_is_a_400(two_versions, settings):
    settings.UNRATED_MATCHES_PER_DAY = 10
    with pytest.raises(ServiceError) as refused:
        comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=1, candidate=2, max_games=12)
    assert (refused.value.status, refused.value.field) == (400, "max_games")


# --- The seat constraint -----------------------------------------------------------------------------

def test_two_versions_of_a_bot_may_share_a_match_but_one_version_not_two_seats(two_versions):
    comparison = comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=1, candidate=2)
    match = comparison.matches.order_by("index").first()
    assert sorted(match.seats.values_list("bot_id", flat=True)) == [two_versions.id, two_versions.id]
    seat = match.seats.first()
    with pytest.raises(IntegrityError), transaction.atomic():
        Seat.objects.create(match=match, position=2, bot=two_versions, bot_version_id=seat.bot_version_id)


def test_a_match_belongs_to_a_tournament_or_a_comparison(two_versions):
    comparison = comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=1, candidate=2)
    with pytest.raises(IntegrityError), transaction.atomic():
        Match.objects.filter(comparison=comparison).update(comparison=None)


def test_a_match_whose_worker_died_is_played_again_and_still_counts_its_pair(two_versions, settings):
    settings.COMPARISON_PAIRS_IN_FLIGHT = 1
    comparison = comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=1, candidate=2)
    first, second = queued(comparison)
    assert match_claim(match_id=first.pk, worker="dies") is not None  # and its worker is never heard of again
    assert play(second, winner=comparison.candidate_id)
    later = timezone.now() + timedelta(seconds=settings.MATCH_LEASE_S + 1)
    assert matches_reconcile(now=later).expired == 1
    first.refresh_from_db()
    assert first.status == Match.Status.QUEUED
    assert play(first, winner=comparison.candidate_id)
    comparison.refresh_from_db()
    assert comparison.pairs == [0, 0, 0, 0, 1] and len(comparison.llr_history) == 1
    assert len(queued(comparison)) == 2  # and the next pair is on its way


def test_a_match_still_playing_when_the_test_decided_is_dropped_if_its_worker_dies(two_versions, settings):
    settings.COMPARISON_PAIRS_IN_FLIGHT = 1
    comparison = comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=1, candidate=2,
                                   max_games=2)
    first, second = queued(comparison)
    assert match_claim(match_id=first.pk, worker="dies") is not None
    comparison_advance(comparison_id=comparison.id)  # nothing to count yet: still running
    Comparison.objects.filter(pk=comparison.pk).update(status=Comparison.Status.DONE, verdict="inconclusive",
                                                          finished_at=timezone.now())
    # The other game of the pair was never played, and the test is over: playing the first one again
    # would cost a worker a match nobody counts.
    later = timezone.now() + timedelta(seconds=settings.MATCH_LEASE_S + 1)
    assert matches_reconcile(now=later).expired == 1
    assert not Match.objects.filter(pk=first.pk).exists()
    assert not Seat.objects.filter(match_id=first.pk).exists()


def test_both_games_of_a_pair_recorded_in_one_batch_count_the_pair_once(two_versions, settings):
    from ladder.services.play.recording import result_pack, results_record

    settings.COMPARISON_PAIRS_IN_FLIGHT = 2
    comparison = comparison_create(user=two_versions.owner, bot_id=two_versions.id, baseline=1, candidate=2)
    packed = []
    for match in queued(comparison)[:2]:
        claim = match_claim(match_id=match.pk, worker="tests")
        result = MatchResult(
            game=claim.game, players=2, seed=claim.seed, options=claim.options, actions=[], duration_s=0.01,
            seats=[SeatResult(bot=s.bot_name, score=0, place=1 if s.bot_version_id == comparison.candidate_id else 2,
                              outcome="ok", reason="", time_used_ms=1, log="") for s in claim.seats])
        packed.append(result_pack(match_id=match.pk, token=claim.token, result=result))
    assert all(results_record(packed).values())
    comparison.refresh_from_db()
    assert comparison.pairs == [0, 0, 0, 0, 1] and len(comparison.llr_history) == 1
