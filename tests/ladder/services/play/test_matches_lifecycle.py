"""Claim, record, release and reconcile: the rules that make run_match safe to deliver twice or lose."""

import time
from datetime import timedelta

import pytest
from django.db import IntegrityError, connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from bots.referee import MatchResult, SeatResult
from ladder.messaging.enqueue import broker_queue_length, celery_client, matches_send_now
from ladder.models import Match, PendingRating, Rating, RatingChange, Tournament
from ladder.services.play.matches import (
    match_claim,
    match_lease_renew,
    match_record_result,
    match_release_after_fault,
    matches_reconcile,
)
from ladder.services.tournaments.round_robins import tournament_create
from tests.conftest import broker_queue_purge
from tests.factories import StaffFactory

pytestmark = pytest.mark.django_db


@pytest.fixture
def match(bot_factory):
    a, b = bot_factory(), bot_factory()
    # Rated (staff), so that recording it moves ratings.
    tournament = tournament_create(created_by=StaffFactory(), game_slug="kingdomino", name="t",
                                   bot_ids=[a.id, b.id], players_per_match=2, rated=True)
    return tournament.matches.get()


def result_for(claim, places=(1, 2), outcomes=("ok", "ok")) -> MatchResult:
    return MatchResult(
        game=claim.game, players=claim.players, seed=claim.seed, options=claim.options, actions=[{"x": 1}],
        seats=[SeatResult(bot=s.bot_name, score=10 - place, place=place, outcome=outcome, reason="",
                          time_used_ms=12, log="hello")
               for s, place, outcome in zip(claim.seats, places, outcomes)],
        duration_s=0.5,
    )


def test_claim_takes_a_queued_match_once(match):
    first = match_claim(match_id=match.id, worker="w1")
    second = match_claim(match_id=match.id, worker="w2")
    assert first is not None and second is None
    match.refresh_from_db()
    assert (match.status, match.attempts, match.worker) == ("running", 1, "w1")
    assert [s.bot_name for s in first.seats] == list(match.seats.values_list("bot__name", flat=True))


def test_result_is_recorded_once_with_ratings(match):
    claim = match_claim(match_id=match.id)
    assert match_record_result(match_id=match.id, token=claim.token, result=result_for(claim)) is True
    assert match_record_result(match_id=match.id, token=claim.token, result=result_for(claim)) is False
    match.refresh_from_db()
    assert match.status == "finished" and match.actions == [{"x": 1}]
    seats = list(match.seats.order_by("position"))
    assert [s.place for s in seats] == [1, 2]
    assert seats[0].rating_after > seats[0].rating_before == 1500.0
    assert RatingChange.objects.filter(match=match).count() == 2
    winner = Rating.objects.get(bot_id=seats[0].bot_id)
    assert (winner.games, winner.wins, winner.losses) == (1, 1, 0)
    assert sum(r.elo for r in Rating.objects.all()) == pytest.approx(3000.0)
    assert match.tournament.status == "finished"


def test_a_lost_claim_cannot_record(match):
    old = match_claim(match_id=match.id, worker="slow")
    later = timezone.now() + timedelta(seconds=10_000)
    new = match_claim(match_id=match.id, worker="fast", now=later)
    assert new is not None and new.token != old.token
    assert match_record_result(match_id=match.id, token=old.token, result=result_for(old)) is False
    assert match_record_result(match_id=match.id, token=new.token, result=result_for(new)) is True
    assert RatingChange.objects.filter(match=match).count() == 2


def test_forfeit_is_a_result_and_a_loss(match):
    claim = match_claim(match_id=match.id)
    match_record_result(match_id=match.id, token=claim.token,
                        result=result_for(claim, places=(2, 1), outcomes=("timeout", "ok")))
    seat = match.seats.get(position=0)
    assert seat.outcome == "timeout"
    assert Rating.objects.get(bot_id=seat.bot_id).losses == 1


# Text as hostile bots write it: a lone surrogate (the JSON escape "\ud800" decoded), NUL, invalid UTF-8
# decoded byte by byte, and far too much of it.
HOSTILE_TEXT = "crash \ud800 lone \udfff nul \x00 bytes " + b"\xff\xfe".decode("latin-1") + " " + "x" * 50000


def test_text_a_bot_controls_is_recorded_whatever_it_holds(match):
    """PostgreSQL refuses NUL and lone surrogates: an unsanitised reason or log made the recording raise,
    so the match stayed running, was retried, and ended failed with no rating change."""
    claim = match_claim(match_id=match.id)
    result = result_for(claim, places=(2, 1), outcomes=("crash", "ok"))
    honest = result.seats[0]
    result.seats[0] = SeatResult(bot=honest.bot, score=honest.score, place=2, outcome="crash", reason=HOSTILE_TEXT,
                                 time_used_ms=3, log=HOSTILE_TEXT + "\n" + HOSTILE_TEXT)
    assert match_record_result(match_id=match.id, token=claim.token, result=result) is True
    match.refresh_from_db()
    assert match.status == "finished"
    stored = match.seats.get(position=0)
    assert (stored.outcome, stored.place) == ("crash", 2)
    assert stored.reason.startswith("crash \ufffd lone \ufffd nul \ufffd bytes ")
    assert len(stored.reason) <= 1000 and "characters cut" in stored.reason
    assert "\x00" not in stored.log and stored.log.count("crash \ufffd") == 2
    assert RatingChange.objects.filter(match=match).count() == 2


def test_sandbox_faults_requeue_then_fail(match, settings):
    settings.MATCH_MAX_ATTEMPTS = 2
    claim = match_claim(match_id=match.id)
    assert match_release_after_fault(match_id=match.id, token=claim.token, reason="no cgroup") == "requeued"
    assert match_release_after_fault(match_id=match.id, token=claim.token, reason="again") == "stale"
    claim = match_claim(match_id=match.id)
    assert match_release_after_fault(match_id=match.id, token=claim.token, reason="no cgroup") == "failed"
    match.refresh_from_db()
    assert (match.status, match.attempts, match.failure_reason) == ("failed", 2, "no cgroup")
    assert RatingChange.objects.count() == 0
    assert match.tournament.status == "finished"


def test_reconciler_requeues_expired_leases_and_resends_stale_messages(match, settings, private_queue,
                                                                       django_capture_on_commit_callbacks):
    settings.MATCH_REQUEUE_AFTER_S = 60
    claim = match_claim(match_id=match.id)
    later = timezone.now() + timedelta(seconds=settings.MATCH_LEASE_S + 1)
    with django_capture_on_commit_callbacks(execute=True):
        report = matches_reconcile(now=later)
    assert (report.expired, report.failed, report.lost) == (1, 0, 0)
    match.refresh_from_db()
    assert match.status == "queued" and match.attempt_token is None
    assert broker_queue_length(private_queue) == 1
    assert match_record_result(match_id=match.id, token=claim.token, result=result_for(claim)) is False
    assert matches_reconcile(now=later).resent == 0
    # A message that waited long is sent again even though the broker still holds it.
    with django_capture_on_commit_callbacks(execute=True):
        assert matches_reconcile(now=later + timedelta(seconds=61)).to_json() == {
            "expired": 0, "failed": 0, "resent": 1, "lost": 0}
    assert broker_queue_length(private_queue) == 2


def test_reconciler_resends_at_once_what_the_broker_lost(three_matches, private_queue,
                                                        django_capture_on_commit_callbacks):
    matches_send_now([m.id for m in three_matches])
    assert broker_queue_length(private_queue) == 3
    assert matches_reconcile().resent == 0
    match_claim(match_id=three_matches[0].id)
    broker_queue_purge(private_queue)
    with django_capture_on_commit_callbacks(execute=True):
        report = matches_reconcile()
    # The two queued matches, not the running one; immediately, not after MATCH_REQUEUE_AFTER_S.
    assert (report.lost, report.resent, report.expired) == (2, 2, 0)
    assert broker_queue_length(private_queue) == 2
    assert matches_reconcile().resent == 0


# Only the Redis broker keeps taken messages where the reconciler can see them.
@pytest.mark.redis
def test_reconciler_leaves_taken_messages_alone_and_resends_only_the_lost(three_matches, settings, private_queue,
                                                                         django_capture_on_commit_callbacks):
    """Messages a worker has prefetched (taken, not acknowledged) are in Kombu's ``unacked`` hash, not in
    the queue: their matches are not missing. A lost message among them is found, and only it is sent."""
    first, second, third = [m.id for m in three_matches]
    matches_send_now([first, second, third])
    with celery_client().connection_for_read() as consumer:
        channel = consumer.channel()
        # What a worker's prefetch does: two messages delivered and held unacknowledged.
        taken = [channel.basic_get(private_queue, no_ack=False) for _ in range(2)]
        announced = {m.payload[0][0] for m in taken}
        assert broker_queue_length(private_queue) == 1
        assert matches_reconcile().to_json() == {"expired": 0, "failed": 0, "resent": 0, "lost": 0}
        broker_queue_purge(private_queue)
        with django_capture_on_commit_callbacks(execute=True):
            report = matches_reconcile()
        (lost,) = {first, second, third} - announced
        assert (report.lost, report.resent) == (1, 1)
        assert broker_queue_length(private_queue) == 1
        assert channel.basic_get(private_queue, no_ack=True).payload[0] == [lost]
        for message in taken:
            message.ack()
        channel.close()


@pytest.mark.redis
def test_a_message_held_longer_than_a_lease_by_a_worker_counts_as_lost(three_matches, settings, private_queue,
                                                                        django_capture_on_commit_callbacks):
    """A worker that died with prefetched messages never acknowledges them, and Kombu gives them back only
    after its visibility timeout: a queued match whose message was taken a lease ago is sent again."""
    matches_send_now([m.id for m in three_matches])
    with celery_client().connection_for_read() as consumer:
        channel = consumer.channel()
        held = channel.basic_get(private_queue, no_ack=False)
        assert matches_reconcile().resent == 0
        # Taken a lease ago, as the prefetch of a worker killed since.
        channel.client.zadd(channel.unacked_index_key,
                            {held.delivery_tag: time.time() - settings.MATCH_LEASE_S - 1}, xx=True)
        with django_capture_on_commit_callbacks(execute=True):
            report = matches_reconcile()
        assert (report.lost, report.resent) == (1, 1)
        assert matches_reconcile().resent == 0, "sent again at every run"
        held.ack()
        channel.close()


@pytest.fixture
def unreachable_broker(settings, monkeypatch):
    """The configured broker replaced by a Redis URL where nothing listens."""
    import ladder.messaging.enqueue as enqueue

    # Celery reads the variable before the setting.
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:1/0")
    settings.CELERY_BROKER_URL, settings.CELERY_BROKER_TRANSPORT = "redis://127.0.0.1:1/0", "redis"
    enqueue._client = None
    yield
    enqueue._client = None


def test_reconciler_waits_for_the_timer_where_the_broker_cannot_count(match, settings, unreachable_broker):
    settings.MATCH_REQUEUE_AFTER_S = 60
    assert broker_queue_length() is None
    assert matches_reconcile().resent == 0
    report = matches_reconcile(now=timezone.now() + timedelta(seconds=61))
    assert (report.resent, report.lost) == (1, 0)


def test_a_renewed_lease_keeps_a_long_match_from_the_reconciler(match, settings):
    claim = match_claim(match_id=match.id)
    lease = timedelta(seconds=settings.MATCH_LEASE_S)
    # Renewed every few seconds, the lease of a match that plays for ten leases never expires.
    for beat in range(1, 40):
        now = timezone.now() + beat * lease / 4
        assert matches_reconcile(now=now).expired == 0
        assert match_lease_renew(match_id=match.id, token=claim.token, now=now) is True
    match.refresh_from_db()
    assert match.status == "running" and match.lease_expires_at == now + lease and match.attempts == 1
    assert matches_reconcile(now=now + lease + timedelta(seconds=1)).expired == 1


def test_only_the_holder_of_a_claim_renews_its_lease(match, settings):
    claim = match_claim(match_id=match.id)
    later = timezone.now() + timedelta(seconds=settings.MATCH_LEASE_S + 1)
    assert match_lease_renew(match_id=match.id, token="not-a-token", now=later) is False
    assert match_lease_renew(match_id=match.id, token="00000000-0000-4000-8000-000000000000", now=later) is False
    assert matches_reconcile(now=later).expired == 1
    # Taken over: the old token renews nothing, the new one does.
    takeover = match_claim(match_id=match.id, now=later)
    assert match_lease_renew(match_id=match.id, token=claim.token, now=later) is False
    assert match_lease_renew(match_id=match.id, token=takeover.token, now=later) is True
    assert match_record_result(match_id=match.id, token=takeover.token, result=result_for(takeover)) is True
    assert match_lease_renew(match_id=match.id, token=takeover.token, now=later) is False
    match.refresh_from_db()
    assert match.status == "finished" and match.lease_expires_at is None


def test_reconciler_fails_a_match_that_keeps_losing_its_worker(match, settings):
    settings.MATCH_MAX_ATTEMPTS = 1
    match_claim(match_id=match.id)
    report = matches_reconcile(now=timezone.now() + timedelta(seconds=settings.MATCH_LEASE_S + 1))
    assert report.failed == 1
    assert Match.objects.get(id=match.id).status == "failed"


@pytest.fixture
def three_matches(bot_factory):
    a, b = bot_factory(), bot_factory()
    tournament = tournament_create(created_by=StaffFactory(), game_slug="kingdomino", name="t3",
                                   bot_ids=[a.id, b.id], players_per_match=2, games_per_pairing=3, rated=True)
    return list(tournament.matches.order_by("index"))


def _commits(match, claim) -> int:
    """The COMMITs sent while recording: the transaction's own, logged by Django, and one more if the
    recording ended its transaction inside its batch of writes."""
    with CaptureQueriesContext(connection) as queries:
        assert match_record_result(match_id=match.id, token=claim.token, result=result_for(claim)) is True
    return [(query["sql"] or "").strip().upper() for query in queries.captured_queries].count("COMMIT")


@pytest.mark.django_db(transaction=True)
def test_a_recording_commits_with_its_writes_until_the_tournament_may_be_done(three_matches):
    """Outside any enclosing transaction, a match of a tournament with matches still queued is committed
    in the batch of its writes (where batches are pipelined); once nothing is queued, a recording takes
    the path that can finish the tournament. Each rated result is applied to the ratings in the
    recording's own transaction (the game's applier free, nothing pending)."""
    first, second, last = three_matches
    first_claim, second_claim = match_claim(match_id=first.id), match_claim(match_id=second.id)
    assert _commits(first, first_claim) == 2
    last_claim = match_claim(match_id=last.id)  # nothing queued any more: second may be the last to finish
    assert _commits(second, second_claim) == 1
    assert _commits(last, last_claim) == 1
    assert list(Match.objects.filter(id__in=[m.id for m in three_matches]).values_list("status", flat=True)) \
        == ["finished"] * 3
    assert Tournament.objects.get(id=first.tournament_id).status == "finished"
    assert RatingChange.objects.count() == 6
    assert Rating.objects.get(bot_id=first.seats.get(position=0).bot_id).games == 3


@pytest.mark.django_db(transaction=True)
def test_a_recording_that_fails_in_its_writes_commits_nothing(three_matches):
    """A failed write of the batch makes the server skip the batch's COMMIT: nothing of the match is kept."""
    match = three_matches[0]
    claim = match_claim(match_id=match.id)
    # The match is already marked pending, so the recording's own mark breaks the unique rule.
    PendingRating.objects.create(match=match, game_id=match.game_id)
    with pytest.raises(IntegrityError):
        match_record_result(match_id=match.id, token=claim.token, result=result_for(claim))
    match.refresh_from_db()
    assert (match.status, match.actions) == ("running", [])
    assert list(match.seats.values_list("place", flat=True)) == [None, None]
    assert list(Rating.objects.values_list("games", flat=True)) == [0, 0]
    assert PendingRating.objects.count() == 1
    assert not RatingChange.objects.exists()
