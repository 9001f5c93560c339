"""The ladder on two real ``celery worker`` processes over the configured broker and database, its tick run
every second as beat would: it keeps the workers busy, balances each bot's seats, never seats two bots of one
owner, lets no bot wait past the bound, and a round robin submitted while seconds of ladder work are queued
starts within seconds."""

import random
import time
from collections import defaultdict

import pytest
from django.utils import timezone

from ladder.models import LadderEntry, Match, Seat
from ladder.services.tournaments.ladder import ladder_tick
from ladder.services.tournaments.round_robins import tournament_create
from tests.conftest import wait_until
from tests.factories import LAST_LEGAL_BOT, BotFactory, UserFactory

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

RUN_S = 25.0


def test_the_ladder_keeps_two_workers_busy_fairly_and_yields_to_a_round_robin(worker_pool, settings):
    settings.LADDER_MAX_WAIT_S = 4.0
    for name in ("ada", "bob", "cy", "dee"):
        owner = UserFactory(username=name)
        BotFactory(owner=owner, name=f"{name}_first")
        BotFactory(owner=owner, name=f"{name}_last", code=LAST_LEGAL_BOT)
    worker_pool.start(concurrency=1)
    worker_pool.start(concurrency=1)
    ladder = Match.objects.filter(tournament__kind="ladder")
    rng = random.Random(0)
    began = time.monotonic()
    idle_ticks = ticks = 0
    try:
        while time.monotonic() - began < RUN_S:
            ticks += 1
            # Once it found its pace (workers started, a few ticks of ramp), the queue the tick finds is never empty: no worker waited for work.
            if time.monotonic() - began > 10 and not ladder.filter(status="queued").exists():
                idle_ticks += 1
            ladder_tick(rng=rng)
            time.sleep(1.0)
        played = ladder.filter(status="finished").count()
        assert played >= 100, played
        assert idle_ticks <= 1, f"the ladder's queue ran dry at {idle_ticks} of {ticks} ticks"

        # A round robin now waits behind seconds of queued ladder work, in a queue the workers take first.
        queued_before = ladder.filter(status="queued").count()
        bots = list(BotFactory._meta.model.objects.order_by("id")[:4])
        submitted = timezone.now()
        cup = tournament_create(created_by=None, game_slug="kingdomino", name="cup", bot_ids=[b.id for b in bots],
                                players_per_match=2, games_per_pairing=2)
        assert ladder_tick(rng=rng) == {}  # nothing added while the round robin's 12 matches wait
        first_start = wait_until(
            lambda: Match.objects.filter(tournament=cup, started_at__isnull=False).order_by("started_at")
            .values_list("started_at", flat=True).first(), timeout=30, message="the round robin's first match")
        assert queued_before >= 10, queued_before
        assert (first_start - submitted).total_seconds() <= 5.0
        wait_until(lambda: not Match.objects.filter(tournament=cup, status__in=["queued", "running"]).exists(),
                   timeout=60, message="the round robin to finish")
    except BaseException:
        print(worker_pool.logs())
        raise

    seats = list(Seat.objects.filter(match__tournament__kind="ladder").select_related("bot__owner", "match"))
    tables = defaultdict(list)
    for seat in seats:
        tables[seat.match_id].append(seat)
    for table in tables.values():
        owners = [seat.bot.owner_id for seat in table]
        assert len(owners) == len(set(owners)) == 2, f"match {table[0].match_id} seats owners {owners}"
    by_bot = defaultdict(list)
    for seat in seats:
        by_bot[seat.bot_id].append(seat)
    for bot_id, own in by_bot.items():
        positions = [seat.position for seat in own]
        # Seats balanced to within a game or two of each bot's games.
        assert abs(positions.count(0) - positions.count(1)) <= 2, (bot_id, positions.count(0), positions.count(1))
        # No bot waited past the bound (plus one tick) for its next game while the ladder played.
        created = sorted(seat.match.created_at for seat in own)
        gaps = [(b - a).total_seconds() for a, b in zip(created, created[1:])]
        assert max(gaps) <= settings.LADDER_MAX_WAIT_S + 2.5, (bot_id, max(gaps))
    assert len(by_bot) == 8
    entries = {e.bot_id: e for e in LadderEntry.objects.all()}
    assert {bot_id: len(own) for bot_id, own in by_bot.items()} == {b: e.scheduled for b, e in entries.items()}
