"""The rotations of a rated duplicate deal run one after another: only the first rotation of each deal is
sent when the tournament is scheduled, the next one in the transaction that records (or fails for good)
the one before, a worker cannot claim a held rotation, and the reconciler recovers lost messages without
sending held ones. An unrated duplicate sends every rotation at once.

Messages are read back from the configured broker (a private queue), not from a stand-in."""

from collections import defaultdict
from datetime import timedelta

import pytest
from django.utils import timezone

from bots.referee import MatchResult, SeatResult
from ladder.messaging.enqueue import broker_queue_length, celery_client
from ladder.models import Match
from ladder.services.play.matches import (
    match_claim,
    match_record_result,
    match_release_after_fault,
    matches_reconcile,
)
from ladder.services.tournaments.rotations import first_rotations
from ladder.services.tournaments.round_robins import tournament_create
from tests.conftest import broker_queue_purge
from tests.factories import StaffFactory

pytestmark = pytest.mark.django_db


def sent_match_ids(queue: str) -> list[int]:
    """Take every message waiting in ``queue`` off the broker; the match id each one names, sorted."""
    ids = []
    with celery_client().connection_for_read() as connection:
        channel = connection.default_channel
        while (message := channel.basic_get(queue, no_ack=True)) is not None:
            args, _kwargs, _embed = message.decode()
            ids.append(args[0])
    return sorted(ids)


def duplicate(bots, *, rated: bool, players: int = 2, deals: int = 2):
    extra = {"created_by": StaffFactory(), "rated": True} if rated else {"created_by": None, "seed": 7}
    return tournament_create(game_slug="kingdomino", name="duplicate", bot_ids=[b.id for b in bots],
                             players_per_match=players, games_per_pairing=deals, duplicate=True, **extra)


def played(match_id: int, claim) -> None:
    result = MatchResult(
        game=claim.game, players=claim.players, seed=claim.seed, options=claim.options, actions=[],
        seats=[SeatResult(bot=s.bot_name, score=0, place=p, outcome="ok", reason="", time_used_ms=1, log="")
               for p, s in enumerate(claim.seats, start=1)],
        duration_s=0.1,
    )
    assert match_record_result(match_id=match_id, token=claim.token, result=result)


def rotations(tournament) -> dict[int, list[int]]:
    """deal -> the ids of its rotations, in order."""
    by_deal = defaultdict(list)
    for match_id, deal in tournament.matches.order_by("index").values_list("id", "deal"):
        by_deal[deal].append(match_id)
    return dict(by_deal)


def test_first_rotations_are_the_first_match_of_each_deal():
    assert first_rotations([10, 11, 12, 13, 14, 15], [0, 0, 0, 1, 1, 1]) == [10, 13]
    assert first_rotations([], []) == []


def test_at_any_time_one_rotation_of_a_rated_deal_is_sent_or_running(bot_factory, private_queue,
                                                                     django_capture_on_commit_callbacks):
    """Played through to the end as two workers would, taking every message there is: at no moment are
    two rotations of one deal queued with a message or running."""
    bots = [bot_factory() for _ in range(3)]
    with django_capture_on_commit_callbacks(execute=True):
        tournament = duplicate(bots, rated=True, players=3, deals=2)
    deal_of = dict(tournament.matches.values_list("id", "deal"))
    by_deal = rotations(tournament)
    assert [len(ids) for ids in by_deal.values()] == [3, 3]

    sent = sent_match_ids(private_queue)
    assert sent == sorted(ids[0] for ids in by_deal.values())
    assert set(Match.objects.filter(enqueued_at__isnull=True).values_list("id", flat=True)) == {
        match_id for ids in by_deal.values() for match_id in ids[1:]}
    order = []
    while sent:
        claims = {match_id: match_claim(match_id=match_id, worker="w") for match_id in sent}
        assert all(claims.values())
        running = Match.objects.filter(status="running").values_list("deal", flat=True)
        assert len(running) == len(set(running)), "two rotations of one deal run at once"
        order += sent
        with django_capture_on_commit_callbacks(execute=True):
            for match_id, claim in claims.items():
                played(match_id, claim)
        sent = sent_match_ids(private_queue)
        assert len({deal_of[match_id] for match_id in sent}) == len(sent)
        # Marked sent as they are released, so that the reconciler does not take them for lost.
        assert not Match.objects.filter(id__in=sent, enqueued_at__isnull=True).exists()
    assert sorted(order) == sorted(deal_of)
    for ids in by_deal.values():
        assert [match_id for match_id in order if match_id in ids] == ids
    tournament.refresh_from_db()
    assert tournament.status == "finished"


def test_a_worker_cannot_claim_a_held_rotation_whatever_message_it_got(bot_factory):
    bots = [bot_factory() for _ in range(2)]
    tournament = duplicate(bots, rated=True, deals=1)
    first, second = rotations(tournament)[0]
    assert match_claim(match_id=second) is None
    claim = match_claim(match_id=first)
    assert match_claim(match_id=second) is None  # the first one runs
    played(first, claim)
    assert match_claim(match_id=second) is not None


def test_a_rotation_that_failed_for_good_sends_the_next(bot_factory, settings, private_queue,
                                                        django_capture_on_commit_callbacks):
    settings.MATCH_MAX_ATTEMPTS = 1
    bots = [bot_factory() for _ in range(2)]
    with django_capture_on_commit_callbacks(execute=True):
        tournament = duplicate(bots, rated=True, deals=1)
    first, second = rotations(tournament)[0]
    assert sent_match_ids(private_queue) == [first]
    claim = match_claim(match_id=first)
    with django_capture_on_commit_callbacks(execute=True):
        assert match_release_after_fault(match_id=first, token=claim.token, reason="no cgroup") == "failed"
    assert sent_match_ids(private_queue) == [second]
    assert match_claim(match_id=second) is not None


def test_a_rotation_given_back_after_a_fault_keeps_the_next_held(bot_factory, private_queue,
                                                                 django_capture_on_commit_callbacks):
    bots = [bot_factory() for _ in range(2)]
    with django_capture_on_commit_callbacks(execute=True):
        tournament = duplicate(bots, rated=True, deals=1)
    first, second = rotations(tournament)[0]
    sent_match_ids(private_queue)
    claim = match_claim(match_id=first)
    with django_capture_on_commit_callbacks(execute=True):
        assert match_release_after_fault(match_id=first, token=claim.token, reason="no cgroup") == "requeued"
    assert sent_match_ids(private_queue) == [first]
    assert match_claim(match_id=second) is None


def test_the_reconciler_recovers_lost_messages_and_never_sends_a_held_rotation(
        bot_factory, settings, private_queue, django_capture_on_commit_callbacks):
    settings.MATCH_REQUEUE_AFTER_S = 60
    bots = [bot_factory() for _ in range(2)]
    with django_capture_on_commit_callbacks(execute=True):
        tournament = duplicate(bots, rated=True, deals=2)
    (a1, a2), (b1, b2) = rotations(tournament).values()
    assert broker_queue_length(private_queue) == 2
    # Two messages for two sendable matches: nothing is lost, though four matches are queued.
    assert matches_reconcile().to_json() == {"expired": 0, "failed": 0, "resent": 0, "lost": 0}
    # Nor are the held ones stale, however long they wait.
    later = timezone.now() + timedelta(seconds=61)
    broker_queue_purge(private_queue)
    with django_capture_on_commit_callbacks(execute=True):
        report = matches_reconcile(now=later)
    assert (report.lost, report.resent) == (2, 2)
    assert sent_match_ids(private_queue) == sorted([a1, b1])

    claim = match_claim(match_id=a1)
    with django_capture_on_commit_callbacks(execute=True):
        played(a1, claim)
    # The message that released a2 is lost (a flushed broker): the reconciler sends it again, and b1's.
    broker_queue_purge(private_queue)
    with django_capture_on_commit_callbacks(execute=True):
        report = matches_reconcile()
    assert (report.lost, report.resent) == (2, 2)
    assert sent_match_ids(private_queue) == sorted([a2, b1])
    assert match_claim(match_id=b2) is None


def test_an_unrated_duplicate_sends_every_rotation_at_once(bot_factory, private_queue,
                                                           django_capture_on_commit_callbacks):
    bots = [bot_factory() for _ in range(2)]
    with django_capture_on_commit_callbacks(execute=True):
        tournament = duplicate(bots, rated=False, deals=2)
    every = sorted(tournament.matches.values_list("id", flat=True))
    assert sent_match_ids(private_queue) == every
    assert all(match_claim(match_id=match_id) for match_id in every)
