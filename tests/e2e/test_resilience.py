"""The pipeline's guarantees with real worker processes: a killed worker and a flushed broker delay matches
by seconds but lose none and duplicate none; a live match longer than its lease keeps it; two workers
racing on the same match record it once; ratings always equal ``rebuild_ratings``.
"""

import time

import pytest

from ladder.messaging.enqueue import matches_send_now
from ladder.models import Match, PendingRating, Rating, RatingChange
from ladder.services.play.matches import matches_reconcile
from ladder.services.ratings.rating_rebuild import ratings_rebuild
from ladder.services.tournaments.round_robins import tournament_create
from tests.conftest import broker_queue_purge, wait_until
from tests.factories import FIRST_LEGAL_BOT, LAST_LEGAL_BOT, BotFactory

pytestmark = [pytest.mark.slow, pytest.mark.timeout(420)]

# Slow enough that a kill lands in the middle of a match (Kingdomino asks each seat ~24 times).
SLOW_BOT = b"import time\n\ndef act(observation, legal_actions):\n    time.sleep(0.02)\n    return legal_actions[-1]\n"
MIDDLE_BOT = b"def act(observation, legal_actions):\n    return legal_actions[len(legal_actions) // 2]\n"


def make_bots():
    return [BotFactory(code=code) for code in (FIRST_LEGAL_BOT, LAST_LEGAL_BOT, SLOW_BOT, MIDDLE_BOT)]


def ratings_snapshot(bot_ids):
    return {r.bot_id: (r.elo, r.games, r.wins, r.draws, r.losses) for r in Rating.objects.filter(bot_id__in=bot_ids)}


#: The bound of the test below: a round robin of 120 matches through a killed worker and a flushed broker.
RECOVERED_WITHIN_S = 120


def test_killed_worker_and_flushed_broker_lose_nothing_and_recover_in_seconds(worker_pool, settings):
    """With the default lease, heartbeat and reconciler settings: every match finished exactly once,
    the whole round robin within two minutes of its start."""
    for name in ("MATCH_LEASE_S", "MATCH_HEARTBEAT_S", "RECONCILE_INTERVAL_S", "MATCH_REQUEUE_AFTER_S",
                 "MATCH_SOFT_TIME_LIMIT_S", "MATCH_TIME_LIMIT_S"):
        assert name not in worker_pool.env, f"{name} must keep its default here"
    bots = make_bots()
    bot_ids = [b.id for b in bots]
    worker_pool.start(concurrency=1, name="doomed")
    worker_pool.start(concurrency=1)
    began = time.monotonic()
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="resilience", bot_ids=bot_ids,
                                   players_per_match=2, games_per_pairing=20, rated=True)
    total = tournament.matches.count()
    assert total == 120
    matches = Match.objects.filter(tournament=tournament)
    try:
        wait_until(lambda: matches.filter(status="finished").count() >= 10, timeout=90,
                   message="the first matches to finish")
        # One of the slow bot's (about half a second): a fast match could be recorded between the look
        # and the kill, and the kill would interrupt nothing.
        slow = bots[2]
        wait_until(lambda: matches.filter(status="running", worker__startswith="doomed@", seats__bot=slow).exists(),
                   timeout=30, interval=0.02, message="a match of the slow bot running on the doomed worker")
        worker_pool.kill(worker_pool.processes[0])
        killed_at = time.monotonic()
        worker_pool.start(concurrency=1)
        assert broker_queue_purge(worker_pool.queue) > 0, "the flush dropped no message: nothing was tested"

        def all_done():
            # What celery beat runs, as often as it runs it by default.
            matches_reconcile()
            # Their ratings too: the game's applier applies each result moments after its recording.
            return not matches.filter(status__in=["queued", "running"]).exists() and not PendingRating.objects.exists()

        wait_until(all_done, timeout=RECOVERED_WITHIN_S, interval=settings.RECONCILE_INTERVAL_S,
                   message="every match to finish after the kill and the flush")
    except BaseException:
        print(worker_pool.logs())
        raise
    finished_at = time.monotonic()
    print(f"round robin done {finished_at - began:.1f} s after its start, {finished_at - killed_at:.1f} s "
          f"after the kill and the flush")
    assert finished_at - began < RECOVERED_WITHIN_S
    assert matches.filter(status="finished").count() == total
    assert matches.filter(attempts__gt=1).exists(), "no match was interrupted by the kill"
    assert RatingChange.objects.filter(match__tournament=tournament).count() == 2 * total
    assert sum(r[1] for r in ratings_snapshot(bot_ids).values()) == 2 * total
    incremental = ratings_snapshot(bot_ids)
    ratings_rebuild(game_slug="kingdomino")
    assert ratings_snapshot(bot_ids) == incremental


# About 6 s per match (Kingdomino asks each seat ~24 times), many times the lease of the test below.
SLEEPY_BOT = b"import time\n\ndef act(observation, legal_actions):\n    time.sleep(0.12)\n    return legal_actions[0]\n"


def test_a_match_longer_than_its_lease_stays_with_its_live_worker(worker_pool):
    """The worker renews the lease while it plays: the reconciler, running all along, never hands the
    match to the idle second worker, although the match lasts several leases."""
    worker_pool.env.update({"MATCH_LEASE_S": "2", "MATCH_HEARTBEAT_S": "0.5"})
    bots = [BotFactory(code=SLEEPY_BOT), BotFactory(code=SLEEPY_BOT)]
    worker_pool.start(concurrency=1)
    worker_pool.start(concurrency=1)
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="long", bot_ids=[b.id for b in bots],
                                   players_per_match=2, games_per_pairing=1, rated=True)
    match = tournament.matches.get()

    def finished_while_reconciling():
        report = matches_reconcile()
        assert report.expired == 0, "the reconciler took a live match from its worker"
        return Match.objects.filter(id=match.id, status="finished").exists()

    try:
        wait_until(finished_while_reconciling, timeout=120, interval=0.25, message="the long match to finish")
    except BaseException:
        print(worker_pool.logs())
        raise
    match.refresh_from_db()
    assert match.attempts == 1 and match.duration_s > 3 * 2
    assert RatingChange.objects.filter(match=match).count() == 2


def test_two_workers_racing_on_the_same_matches_record_each_once(worker_pool):
    bots = make_bots()
    bot_ids = [b.id for b in bots]
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="race", bot_ids=bot_ids,
                                   players_per_match=2, games_per_pairing=1, rated=True)
    ids = list(tournament.matches.values_list("id", flat=True))
    # Every match is announced three times before any worker runs, so both workers see duplicates.
    matches_send_now(ids)
    matches_send_now(ids)
    worker_pool.start(concurrency=2)
    worker_pool.start(concurrency=2)
    try:
        wait_until(lambda: not tournament.matches.exclude(status="finished").exists()
                   and not PendingRating.objects.exists(), timeout=180, message="every match to finish and be rated")
    except BaseException:
        print(worker_pool.logs())
        raise
    assert set(tournament.matches.values_list("attempts", flat=True)) == {1}
    assert RatingChange.objects.filter(match__tournament=tournament).count() == 2 * len(ids)
    incremental = ratings_snapshot(bot_ids)
    ratings_rebuild(game_slug="kingdomino")
    assert ratings_snapshot(bot_ids) == incremental
