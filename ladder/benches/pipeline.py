"""Throughput of the match pipeline, measured side by side in one run (``manage.py bench``).

* ``pipeline.referee_matches_per_s``: the matches of a round robin played one after another by the referee
  alone, in this process, through the same sandbox the workers use.
* ``pipeline.celery_matches_per_s``: the same matches (same bots, seeds and seats) scheduled as a round
  robin and played end to end by one real ``celery worker`` process through the configured broker and
  database: enqueue, claim, fetch code, play, record result and ratings; timed from before the
  tournament is created to when its last recording marked it finished.
* ``pipeline.ratio``: celery / referee, i.e. how much of the referee's speed the pipeline keeps (goal >= 0.9).
  Both are measured in ``rounds`` pairs, each a new round robin through Celery and then its matches by
  the referee, so that each pair sees the machine in the same state; the figures are the medians, and
  ``pipeline.ratios`` gives every round's ratio (on a machine whose speed wanders by a few per cent from
  one second to the next, one pair alone can land several hundredths either side).
  ``pipeline.rounds_wall_s``: the seconds all the rounds took, the worker's start and warm-up included.
* ``pipeline.play_share``: the share of a round robin's time its worker spent playing, by the referee's own
  clock inside the worker (each match's stored ``duration_s``); the rest is what the pipeline adds. Both
  sides come from the same run, so the machine's drift between the two runs of a pair does not reach it:
  it shows the pipeline's cost where ``pipeline.ratio`` wanders. ``pipeline.play_speed``: how fast the
  worker played against the referee's replay of the same matches (1: as fast; each round's ratio is its
  share times its speed), which shows that the worker does not slow the referee down. Medians again,
  every round's share in ``pipeline.play_shares``.
* ``pipeline.scaling``: matches per second with two worker processes over one (goal >= 1.7 on 2 cores).
* ``ladder.matches_per_s``: the ladder alone on two worker processes, with the settings in force (the
  defaults unless the environment says otherwise), its tick run every ``LADDER_INTERVAL_S`` as beat runs
  it, among ``LADDER_BENCH_BOTS`` bots: finished ladder matches per second over ``ladder_seconds``, once
  the ladder has had ``LADDER_BENCH_WARMUP_S`` to find its pace. ``ladder.ratio``: that over
  ``pipeline.two_processes_matches_per_s``, a round robin of the same game on the same two processes
  (goal >= 0.8). ``ladder.learning``: whether the ladder was still learning when the window ended (it
  plays at its maintenance pace after, and the figure would measure that instead).
* ``pipeline.recovery_s.killed_worker``: a round robin on two workers (one process each), one of them
  killed with SIGKILL in the middle of a match: seconds from the kill to the last match finished. The
  killed worker's match waits for its lease to expire and the reconciler to queue it again.
* ``pipeline.recovery_s.flushed_broker``: the same, with the queue of the broker emptied instead: seconds
  from the flush to the last match finished. Both with the settings in force (the defaults unless the
  environment says otherwise), the reconciler run every ``RECONCILE_INTERVAL_S`` as beat runs it.

Everything runs in a scratch database created for the run (Django's test-database machinery: a new
database on the same PostgreSQL server) on a private queue, and is dropped afterwards, so benchmarking
never touches the ladder's real data.
"""

from __future__ import annotations

import dataclasses
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path

from django.conf import settings
from django.db import connection
from django.utils import timezone

from ladder.benches.scratch_database import scratch_database

REPO = Path(__file__).resolve().parents[2]
BENCH_GAME = "kingdomino"


def _database_url() -> str:
    conf = connection.settings_dict
    auth = conf["USER"] or ""
    if conf.get("PASSWORD"):
        auth += f":{conf['PASSWORD']}"
    port = f":{conf['PORT']}" if conf.get("PORT") else ""
    return f"postgres://{auth}@{conf['HOST'] or '127.0.0.1'}{port}/{conf['NAME']}"


class _Workers:
    """``celery worker`` subprocesses on the bench's private queue and scratch database."""

    def __init__(self, queue: str, log_dir: Path | None = None) -> None:
        self.queue = queue
        self.log_dir = log_dir
        self.processes: list[subprocess.Popen] = []

    def start(self, concurrency: int, name: str | None = None) -> subprocess.Popen:
        env = {**os.environ, "DATABASE_URL": _database_url(), "MATCH_QUEUE": self.queue,
               "LADDER_QUEUE": f"{self.queue}.ladder",
               "CELERY_TASK_DEFAULT_QUEUE": self.queue,
               "DJANGO_SETTINGS_MODULE": os.environ.get("DJANGO_SETTINGS_MODULE", "ladder.settings"),
               "BOTS_ALLOW_UNSAFE": "1" if settings.BOTS_ALLOW_UNSAFE else "0",
               # Workers run as deployed: DEBUG would record and log every query.
               "DEBUG": "0", "SECRET_KEY": settings.SECRET_KEY}
        name = name or uuid.uuid4().hex[:8]
        log = open(self.log_dir / f"{name}.log", "ab") if self.log_dir else subprocess.DEVNULL  # noqa: SIM115
        process = subprocess.Popen(
            [sys.executable, "-m", "celery", "-A", "workers", "worker", "-Q", f"{self.queue},{self.queue}.ladder", "-c", str(concurrency),
             "-P", "prefork", "--without-gossip", "--without-mingle", "--without-heartbeat", "-l", "WARNING",
             "-n", f"{name}@%h"],
            cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
        )
        if log is not subprocess.DEVNULL:
            log.close()
        self.processes.append(process)
        return process

    def kill(self, process: subprocess.Popen) -> None:
        """SIGKILL a worker and everything it started, as if its machine died."""
        try:
            os.killpg(process.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        process.wait(timeout=10)

    def stop(self) -> None:
        for process in self.processes:
            self.kill(process)
        self.processes.clear()


def _bots(count: int, first: int = 0) -> list[int]:
    from bots.examples import EXAMPLES_DIR
    from ladder.services.uploads.bots import bot_create
    from ladder.services.uploads.examples import examples_owner
    from ladder.services.uploads.validation import bot_version_validate

    code = (EXAMPLES_DIR / BENCH_GAME / "random_bot.py").read_bytes()
    owner = examples_owner()
    bots = [bot_create(owner=owner, game_slug=BENCH_GAME, name=f"bench{i}", data=code, filename="bot.py")
            for i in range(first, first + count)]
    # Checked here, as a worker would, so that the pipeline measured plays matches only.
    for bot in bots:
        bot_version_validate(version_id=bot.versions.get().id)
    return [bot.id for bot in bots]


def _round_robin(bot_ids: list[int], matches: int, name: str):
    from ladder.messaging.match_durations import match_seconds_forget
    from ladder.services.tournaments.round_robins import tournament_create

    # Its messages sized by every match played so far (``match_durations``), as a server that has been
    # playing the game for a while sizes them, not by what this process read a round or two ago.
    match_seconds_forget()
    pairs = len(bot_ids) * (len(bot_ids) - 1) // 2
    # Rated, like the ladder's matches: recording them includes the rating writes that production pays.
    return tournament_create(created_by=None, game_slug=BENCH_GAME, name=name, bot_ids=bot_ids,
                             players_per_match=2, games_per_pairing=max(1, matches // pairs), rated=True)


def _wait_finished(tournament, timeout: float) -> float:
    """The ``time.monotonic()`` at which ``tournament``'s last match ended, looked for every 50 ms: when
    the tournament was marked finished (by its last recording, a moment before that commits), or when
    this wait saw no match left where nothing marked it (a tournament of failed matches). Looking more
    often would take the machine from the pipeline it measures; stopping the clock when the wait looked
    would add half a look to the round robin's time on average."""
    from ladder.models import Match, Tournament

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if not Match.objects.filter(tournament=tournament, status__in=["queued", "running"]).exists():
            looked, now = time.monotonic(), timezone.now()
            finished_at = Tournament.objects.filter(id=tournament.id).values_list("finished_at", flat=True).get()
            if finished_at is None:
                return looked
            return looked - max(0.0, (now - finished_at).total_seconds())
        time.sleep(0.05)
    raise RuntimeError(f"tournament {tournament.id} did not finish within {timeout:.0f}s")


def _celery_rate(bot_ids: list[int], matches: int, concurrency: int, label: str) -> tuple[float, int]:
    """Matches per second through Celery with one worker of ``concurrency`` processes (started and warmed
    before the clock starts)."""
    workers = _Workers(f"bench-{uuid.uuid4().hex[:8]}")
    settings.MATCH_QUEUE = workers.queue
    try:
        workers.start(concurrency)
        warm = _round_robin(bot_ids[:2], 2 * concurrency, f"{label} warm-up")
        _wait_finished(warm, timeout=120)
        began = time.monotonic()
        tournament = _round_robin(bot_ids, matches, label)
        ended = _wait_finished(tournament, timeout=max(600.0, matches * 5.0))
        played = tournament.matches.filter(status="finished").count()
        return played / (ended - began), played
    finally:
        workers.stop()


@dataclasses.dataclass(frozen=True)
class Round:
    """One round of the ratio: a round robin played through Celery, then its matches by the referee alone.

    ``wall_s``: from before the tournament was created to its last recording; ``play_s``: the referee's
    own time for those matches inside the worker (the sum of their stored ``duration_s``, each timed from
    the first bot's start to the last one's stop); ``referee_matches_per_s``: the referee's speed replaying
    them in the bench's process right after."""

    played: int
    wall_s: float
    play_s: float
    referee_matches_per_s: float

    @property
    def celery_matches_per_s(self) -> float:
        return self.played / self.wall_s

    @property
    def ratio(self) -> float:
        """Celery's speed over the referee's: ``play_share * play_speed``."""
        return self.celery_matches_per_s / self.referee_matches_per_s

    @property
    def play_share(self) -> float:
        """The share of the round robin's time the worker spent playing: the rest is the pipeline's."""
        return self.play_s / self.wall_s

    @property
    def play_speed(self) -> float:
        """The worker's speed at play over the referee's replay of the same matches (1: as fast)."""
        return self.played / self.play_s / self.referee_matches_per_s


def round_figures(rounds: list[Round]) -> dict:
    """The ratio's figures of ``rounds`` (module docstring): medians, and every round's ratio and share."""
    ratios = [round(each.ratio, 3) for each in rounds]
    shares = [round(each.play_share, 3) for each in rounds]
    return {
        "pipeline.referee_matches_per_s": round(statistics.median(each.referee_matches_per_s for each in rounds), 2),
        "pipeline.celery_matches_per_s": round(statistics.median(each.celery_matches_per_s for each in rounds), 2),
        "pipeline.ratio": statistics.median(ratios),
        "pipeline.ratios": ratios,
        "pipeline.play_share": statistics.median(shares),
        "pipeline.play_shares": shares,
        "pipeline.play_speed": round(statistics.median(each.play_speed for each in rounds), 3),
    }


def _play_s(tournament) -> float:
    """The seconds the referee took to play ``tournament``'s finished matches, by its own clock."""
    from django.db.models import Sum

    return float(tournament.matches.filter(status="finished").aggregate(total=Sum("duration_s"))["total"] or 0.0)


def _rounds(bot_ids: list[int], matches: int, rounds: int) -> list[Round]:
    """``rounds`` rounds (:class:`Round`): one worker process, started and warmed once, plays a new round
    robin each round, and the referee then plays that round robin's matches in this process."""
    workers = _Workers(f"bench-{uuid.uuid4().hex[:8]}")
    settings.MATCH_QUEUE = workers.queue
    played_rounds = []
    try:
        workers.start(1)
        _wait_finished(_round_robin(bot_ids[:2], 2, "bench: 1 worker process, warm-up"), timeout=120)
        for round_number in range(1, rounds + 1):
            began = time.monotonic()
            tournament = _round_robin(bot_ids, matches, f"bench: 1 worker process, round {round_number}")
            ended = _wait_finished(tournament, timeout=max(600.0, matches * 5.0))
            played = tournament.matches.filter(status="finished").count()
            # Right after the Celery run, so both see the machine in the same state (the worker waits idle).
            played_rounds.append(Round(played=played, wall_s=ended - began, play_s=_play_s(tournament),
                                       referee_matches_per_s=_referee_rate(tournament)))
    finally:
        workers.stop()
    return played_rounds


def _wait_finished_reconciling(tournament, timeout: float, alive) -> float:
    """Like :func:`_wait_finished`, running the reconciler every ``RECONCILE_INTERVAL_S`` meanwhile; fails
    at once when ``alive()`` says the workers that should finish the job are gone."""
    from ladder.models import Match
    from ladder.services.play.matches import matches_reconcile

    deadline = time.monotonic() + timeout
    next_reconcile = time.monotonic()
    while time.monotonic() < deadline:
        if time.monotonic() >= next_reconcile:
            matches_reconcile()
            next_reconcile += settings.RECONCILE_INTERVAL_S
        if not Match.objects.filter(tournament=tournament, status__in=["queued", "running"]).exists():
            return time.monotonic()
        if not alive():
            raise RuntimeError(f"the worker that should finish tournament {tournament.id} exited")
        time.sleep(0.05)
    raise RuntimeError(f"tournament {tournament.id} did not finish within {timeout:.0f}s")


def _recovery_s(bot_ids: list[int], matches: int, disruption: str) -> float:
    """Seconds from ``disruption`` ("killed_worker" or "flushed_broker"), done once a tenth of a round
    robin on two workers has finished, to the round robin's last match finished."""
    from ladder.messaging.enqueue import broker_queue_purge
    from ladder.models import Match

    log_dir = Path(tempfile.mkdtemp(prefix="bench-workers-"))
    workers = _Workers(f"bench-{uuid.uuid4().hex[:8]}", log_dir=log_dir)
    settings.MATCH_QUEUE = workers.queue
    try:
        doomed = workers.start(1, name="doomed")
        survivor = workers.start(1, name="survivor")
        _wait_finished(_round_robin(bot_ids[:2], 8, f"bench: recovery ({disruption}) warm-up"), timeout=120)
        if doomed.poll() is not None or survivor.poll() is not None:
            raise RuntimeError(f"a worker exited before the measurement; its log is in {log_dir}")
        tournament = _round_robin(bot_ids, matches, f"bench: recovery ({disruption})")
        played = Match.objects.filter(tournament=tournament)
        deadline = time.monotonic() + 300
        while played.filter(status="finished").count() < matches // 10 and time.monotonic() < deadline:
            time.sleep(0.01)
        if disruption == "killed_worker":
            while not played.filter(status="running", worker__startswith="doomed@").exists():
                if time.monotonic() > deadline:
                    raise RuntimeError("no match ran on the worker to kill")
                time.sleep(0.002)
            workers.kill(doomed)
        else:
            broker_queue_purge(workers.queue)
        disrupted = time.monotonic()
        try:
            finished = _wait_finished_reconciling(tournament, timeout=600, alive=lambda: survivor.poll() is None)
        except RuntimeError as exc:
            raise RuntimeError(f"{exc}; worker logs in {log_dir}") from None
        shutil.rmtree(log_dir, ignore_errors=True)
        return finished - disrupted
    finally:
        workers.stop()


LADDER_BENCH_BOTS = 30
LADDER_BENCH_WARMUP_S = 20.0


def _ladder_rate(seconds: float) -> tuple[float, bool]:
    """Ladder matches finished per second on two worker processes (module docstring), and whether the
    ladder still learned at the end."""
    from ladder.models import Game, Match
    from ladder.services.tournaments.ladder import ladder_field, ladder_tick

    workers = _Workers(f"bench-{uuid.uuid4().hex[:8]}")
    settings.MATCH_QUEUE, settings.LADDER_QUEUE = workers.queue, f"{workers.queue}.ladder"
    try:
        workers.start(1, name="ladder-a")
        workers.start(1, name="ladder-b")
        began = time.monotonic()
        next_tick = began
        counted_from = counted = None
        while True:
            now = time.monotonic()
            if counted_from is None and now - began >= LADDER_BENCH_WARMUP_S:
                counted_from, counted = now, Match.objects.filter(tournament__kind="ladder", status="finished").count()
            if counted_from is not None and now - counted_from >= seconds:
                finished = Match.objects.filter(tournament__kind="ladder", status="finished").count()
                rate = (finished - counted) / (now - counted_from)
                break
            if now >= next_tick:
                ladder_tick()
                next_tick += settings.LADDER_INTERVAL_S
            time.sleep(0.05)
        field = ladder_field(game=Game.objects.get(slug=BENCH_GAME), now=timezone.now())
        return rate, bool(field and field.learning)
    finally:
        workers.stop()


def _referee_rate(tournament) -> float:
    """Matches per second for the same matches played in a loop by the referee alone."""
    from bots.referee import BotSpec, play_match
    from ladder.core.limits import sandbox_limits

    jobs = []
    matches = tournament.matches.select_related("setup").prefetch_related("seats__bot", "seats__bot_version")
    for match in matches.order_by("index"):
        seats = sorted(match.seats.all(), key=lambda s: s.position)
        jobs.append((match, [BotSpec(s.bot.name, bytes(s.bot_version.code)) for s in seats]))
    limits = sandbox_limits()
    play_match(BENCH_GAME, jobs[0][1], seed=0, limits=limits, allow_unsafe=settings.BOTS_ALLOW_UNSAFE)
    began = time.monotonic()
    for match, specs in jobs:
        play_match(BENCH_GAME, specs, seed=match.seed, options=match.options, limits=limits,
                   allow_unsafe=settings.BOTS_ALLOW_UNSAFE)
    return len(jobs) / (time.monotonic() - began)


def bench_pipeline(*, matches: int = 100, scaling_matches: int | None = None, recovery_matches: int = 120,
                   ladder_seconds: float = 30.0, rounds: int = 5) -> dict:
    """The pipeline figures as a flat dict; runs in a scratch database that is dropped afterwards.
    ``rounds`` pairs of Celery and referee runs give the ratio (module docstring); ``recovery_matches`` 0
    leaves out the recovery figures, ``ladder_seconds`` 0 the ladder's."""
    if rounds < 1:
        raise ValueError("rounds must be at least 1")
    scaling_matches = scaling_matches or matches
    with scratch_database():
        from ladder.models import Tournament

        bot_ids = _bots(5)
        started = time.monotonic()
        played_rounds = _rounds(bot_ids, matches, rounds)
        celery_s = time.monotonic() - started
        figures = round_figures(played_rounds)
        played = min(each.played for each in played_rounds)
        if scaling_matches == matches:
            one_rate = figures["pipeline.celery_matches_per_s"]
        else:
            one_rate, _ = _celery_rate(bot_ids, scaling_matches, 1, "bench: scaling, 1 process")
        two_rate, _ = _celery_rate(bot_ids, scaling_matches, 2, "bench: scaling, 2 processes")
        recovery = {f"pipeline.recovery_s.{disruption}": round(_recovery_s(bot_ids, recovery_matches, disruption), 1)
                    for disruption in ("killed_worker", "flushed_broker") if recovery_matches}
        ladder = {}
        if ladder_seconds:
            # Last: its unplayed matches stay queued when it stops.
            _bots(LADDER_BENCH_BOTS - len(bot_ids), first=len(bot_ids))
            ladder_rate, learning = _ladder_rate(ladder_seconds)
            ladder = {"ladder.matches_per_s": round(ladder_rate, 2), "ladder.ratio": round(ladder_rate / two_rate, 3),
                      "ladder.learning": learning, "ladder.seconds": ladder_seconds}
        failed = Tournament.objects.filter(matches__status="failed").count()
    return {
        "pipeline.matches": played,
        "pipeline.failed_matches": failed,
        "pipeline.rounds": rounds,
        "pipeline.rounds_wall_s": round(celery_s, 1),
        **figures,
        "pipeline.scaling_matches": scaling_matches,
        "pipeline.scaling": round(two_rate / one_rate, 3),
        "pipeline.two_processes_matches_per_s": round(two_rate, 2),
        **ladder,
        **recovery,
        **({"pipeline.recovery_matches": recovery_matches} if recovery_matches else {}),
        "pipeline.broker": settings.CELERY_BROKER_URL.split(":", 1)[0],
    }
