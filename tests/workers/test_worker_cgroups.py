"""A worker stopped the ordinary ways leaves none of its cgroups behind.

A supervisor stops a worker with SIGTERM to its main process (Celery's warm shutdown) or to its whole
process group (systemd's default), a terminal with SIGINT to the group. Either way the sandbox of each
pool process must remove its ``botladder-*`` groups, the frozen ``freezer-pin`` among them, before the
process is gone: the next sandbox to start on the machine would remove a dead worker's, but none may ever
start there.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time

import pytest

from ladder.models import Match
from ladder.services.tournaments.round_robins import tournament_create
from tests.bots.sandbox_helpers import botladder_groups, descendants
from tests.conftest import wait_until
from tests.factories import FIRST_LEGAL_BOT, LAST_LEGAL_BOT, BotFactory

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]


STOPS = {
    "sigterm-main-process": (signal.SIGTERM, False),
    "sigterm-process-group": (signal.SIGTERM, True),
    "sigint-process-group": (signal.SIGINT, True),
}


@pytest.mark.parametrize("stop", list(STOPS))
def test_a_stopped_worker_leaves_no_cgroup_behind(worker_pool, stop):
    if os.geteuid() != 0:
        pytest.skip("the sandbox makes cgroups as root only")
    bots = [BotFactory(code=FIRST_LEGAL_BOT), BotFactory(code=LAST_LEGAL_BOT)]
    worker = worker_pool.start(concurrency=1)
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="one", bot_ids=[b.id for b in bots],
                                   players_per_match=2, games_per_pairing=1, rated=False)
    try:
        wait_until(lambda: Match.objects.filter(tournament=tournament, status="finished").exists(), timeout=180,
                   interval=0.3, message="the match to finish")
        # The pool process keeps its sandbox's cells ready, each in its groups.
        groups = wait_until(lambda: botladder_groups(descendants(worker.pid)), timeout=30,
                            message="the worker's cells in their cgroups")
    except BaseException:
        print(worker_pool.logs())
        raise
    if any(parent.name == "freezer" for parent in (g.parent for g in groups)):
        assert any((group / "freezer-pin").is_dir() for group in groups)
    signum, whole_group = STOPS[stop]
    (os.killpg if whole_group else os.kill)(worker.pid, signum)
    try:
        worker.wait(timeout=60)
    except subprocess.TimeoutExpired:
        print(worker_pool.logs())
        raise
    # A little time for processes that outlive the main one by a moment (nothing should need it).
    deadline = time.monotonic() + 10
    while any(group.exists() for group in groups) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert [str(group) for group in groups if group.exists()] == [], worker_pool.logs()
