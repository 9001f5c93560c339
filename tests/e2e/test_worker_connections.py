"""A worker process holds at most one PostgreSQL connection, however many long matches it plays: the lease
heartbeat shares the process's connection instead of opening its own.

Each pool process names its connections after itself (``application_name``, ``workers.app``), so
``pg_stat_activity`` tells them apart.
"""

import os
import threading
import time
from collections import Counter

import pytest
from django.db import connection

from ladder.models import Match
from ladder.services.tournaments.round_robins import tournament_create
from tests.conftest import wait_until
from tests.factories import BotFactory

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

#: Pool processes of the worker (the issue's figure is 8; fewer on a small machine show the same bound).
PROCESSES = int(os.environ.get("CONNECTION_TEST_PROCESSES", "8"))
#: Matches, each several heartbeats long: two rounds of the pool.
MATCHES = 2 * PROCESSES
# About 2.5 s per Kingdomino match (each seat decides ~24 times), five heartbeats of the test's settings.
SLEEPY_BOT = b"import time\n\ndef act(observation, legal_actions):\n    time.sleep(0.05)\n    return legal_actions[0]\n"


def backend_pid() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_backend_pid()")
        return cursor.fetchone()[0]


def worker_connections(*, test_backends: list[int]) -> list[tuple[str, int]]:
    """(application_name, backend pid) of every connection to the test database but the test's own."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT application_name, pid FROM pg_stat_activity "
                       "WHERE datname = current_database() AND pid <> pg_backend_pid() AND pid <> ALL(%s)",
                       [test_backends])
        return cursor.fetchall()


def test_long_matches_hold_one_connection_per_worker_process(worker_pool, settings):
    if settings.DATABASE_POOLER:
        pytest.skip("behind a pooler the server's connections are the pooler's, bounded by its pool size")
    worker_pool.env.update({"MATCH_LEASE_S": "2", "MATCH_HEARTBEAT_S": "0.5"})
    bots = [BotFactory(code=SLEEPY_BOT) for _ in range(2)]
    worker_pool.start(concurrency=PROCESSES)
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="long",
                                   bot_ids=[b.id for b in bots], players_per_match=2, games_per_pairing=MATCHES)
    matches = Match.objects.filter(tournament=tournament)
    peak_per_process: Counter = Counter()
    peak_total = peak_running = 0
    stop = threading.Event()
    main_backend = backend_pid()

    def sample() -> None:
        # A thread of its own with its own connection, excluded from the count like the test's.
        nonlocal peak_total, peak_running
        from django.db import connection as own

        try:
            while not stop.is_set():
                rows = worker_connections(test_backends=[main_backend])
                for name, count in Counter(name for name, _ in rows).items():
                    peak_per_process[name] = max(peak_per_process[name], count)
                peak_total = max(peak_total, len(rows))
                peak_running = max(peak_running, matches.filter(status="running").count())
                time.sleep(0.05)
        finally:
            own.close()

    sampler = threading.Thread(target=sample)
    sampler.start()
    try:
        wait_until(lambda: not matches.exclude(status="finished").exists(), timeout=180, interval=0.5,
                   message="the long matches to finish")
    except BaseException:
        print(worker_pool.logs())
        raise
    finally:
        stop.set()
        sampler.join()
    durations = list(matches.values_list("duration_s", flat=True))
    print(f"{MATCHES} matches of {min(durations):.1f} to {max(durations):.1f} s on {PROCESSES} processes: "
          f"at most {peak_running} running at once, {peak_total} worker connections at once, "
          f"per process at most {max(peak_per_process.values())} ({dict(peak_per_process)})")
    assert min(durations) > 2 * 0.5, "the matches were too short for a heartbeat"
    assert peak_running >= PROCESSES // 2, "too few matches ran at once to test anything"
    named = [name for name in peak_per_process if name.startswith("ladder-worker:")]
    assert len(named) >= PROCESSES // 2, f"the pool processes did not name their connections: {peak_per_process}"
    assert max(peak_per_process.values()) == 1, f"a process held more than one connection: {peak_per_process}"
    assert peak_total <= PROCESSES
