"""The reconciler against workers that prefetch: a message a worker has taken and not yet acknowledged is
never sent again, and a flushed broker is still recovered within seconds.

Counted at the source, by match: every match message of this test (``run_match``, or ``run_matches``
carrying several) is sent by the test process (the round robin's creation and the reconciler it runs as
beat would), and the workers log each one they receive. The matches whose messages a FLUSHDB destroys (every
match then queued) must each be sent again; beyond those, at most ``MESSAGES_PER_MATCH`` sends per match.
"""

import re
import time

import pytest
import redis

from ladder.models import Match, Seat
from ladder.services.play.matches import matches_reconcile
from ladder.services.tournaments.round_robins import tournament_create
from tests.factories import FIRST_LEGAL_BOT, LAST_LEGAL_BOT, BotFactory, _game

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

#: The bound of the issue: messages the broker receives per match.
MESSAGES_PER_MATCH = 1.02
#: How soon after a FLUSHDB the lost matches must have their messages again.
FLUSH_RECOVERED_WITHIN_S = 10
WORKERS = 4
PREFETCH = 4


# FLUSHDB and the broker's unacknowledged messages are Redis's.
@pytest.mark.redis
def test_prefetching_workers_get_each_match_once_and_a_flush_is_recovered(worker_pool, settings):
    dice_king = _game("dice_king")
    codes = [FIRST_LEGAL_BOT, LAST_LEGAL_BOT] * 2 + [FIRST_LEGAL_BOT]
    bots = [BotFactory(code=code, game=dice_king) for code in codes]
    for _ in range(WORKERS):
        worker_pool.start(concurrency=1, args=("--prefetch-multiplier", str(PREFETCH)))
    tournament = tournament_create(created_by=None, game_slug="dice_king", name="prefetch",
                                   bot_ids=[b.id for b in bots], players_per_match=2, games_per_pairing=100)
    matches = Match.objects.filter(tournament=tournament)
    total = matches.count()
    assert total == 1000
    sent = total
    reports = []

    def reconcile() -> None:
        nonlocal sent
        report = matches_reconcile()
        reports.append(report)
        sent += report.resent

    flushed_at = recovered_at = None
    destroyed = 0
    try:
        while matches.filter(status__in=["queued", "running"]).exists():
            # Every second, five times as often as beat: a count that mistook reserved messages for lost
            # ones would resend the backlog many times over.
            reconcile()
            if flushed_at is None and matches.filter(status="finished").count() >= total // 2:
                assert matches.filter(status="queued").exists()
                redis.Redis.from_url(settings.CELERY_BROKER_URL).flushdb()
                flushed_at = time.monotonic()
                # Their messages went with the flush (those prefetched by the workers too, which will still
                # play them): one more message each is the least a recovery sends.
                destroyed = matches.filter(status="queued").count()
            elif flushed_at is not None and recovered_at is None and reports[-1].lost:
                recovered_at = time.monotonic()
            assert time.monotonic() - (flushed_at or time.monotonic()) < 120, "no recovery after the flush"
            time.sleep(1)
    except BaseException:
        print(worker_pool.logs())
        raise
    received = sum(len(re.findall(r"Task ladder\.run_matche?s?\[[^]]*\] received", path.read_text(errors="replace")))
                   for path in worker_pool.log_dir.glob("*.log"))
    lost_once = sum(r.lost for r in reports)
    print(f"{sent} matches sent for {total}, {destroyed} of them flushed while queued: "
          f"{(sent - destroyed) / total:.3f} per match beyond the flush's; {received} messages received by the workers; "
          f"{lost_once} found lost in {sum(1 for r in reports if r.lost)} runs, the first "
          f"{recovered_at - flushed_at:.1f} s after the flush")
    assert recovered_at - flushed_at <= FLUSH_RECOVERED_WITHIN_S
    assert sent - destroyed <= MESSAGES_PER_MATCH * total
    assert matches.filter(status="finished").count() == total
    assert set(matches.values_list("attempts", flat=True)) == {1}
    # Each seat written once, by the one claim of its match.
    assert Seat.objects.filter(match__tournament=tournament, place__isnull=False).count() == 2 * total
