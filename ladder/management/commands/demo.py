"""``manage.py demo``: the embedded default end to end, on one machine, with nothing else to install
(``make demo`` runs it on a private PostgreSQL server, ``ladder.private_postgres``).

Migrates the database, uploads the example bots, starts a real ``celery worker`` (with the beat scheduler
embedded for the ladder and the reconciler) and a webhook worker (the webhooks' queue alone, on threads,
as in production: a delivery never takes a match worker's time), waits until the worker has checked the
uploads, schedules a round robin per game and serves the site (whose processes may not run bots, as in
production).

SIGINT or SIGTERM (to the demo alone or to its process group) stops every process it started. Each child
leads a session of its own (``ladder.child_processes``), so the signal reaches the demo only, and the demo
stops each child the way it expects: SIGTERM to its main process (Celery's warm shutdown lets the pool
processes finish their matches and exit; signalling them first deadlocks the worker's shutdown), then,
after ``STOP_GRACE_S`` or a second signal, SIGKILL to whatever is left of its group. If the demo itself is
killed, the children's parent-death signal and the reaper end them all the same.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from bots.sandbox import FORBIDDEN_ENV
from ladder.child_processes import GroupReaper, kill_group, spawn_bound
from ladder.core.errors import ServiceError
from ladder.models import Bot, BotVersion, Game
from ladder.services.tournaments.round_robins import tournament_create

REPO = Path(__file__).resolve().parents[3]
STOP_GRACE_S = 10.0
# Checking an example bot is one smoke match; a slow machine checks a few dozen of them.
CHECKS_TIMEOUT_S = 300.0


class Command(BaseCommand):
    help = ("Run the whole ladder locally: worker, beat, webhook worker, example bots, a round robin per game, "
            "the website.")

    def add_arguments(self, parser):
        parser.add_argument("--host", default="127.0.0.1")
        parser.add_argument("--port", type=int, default=8000)
        parser.add_argument("--concurrency", type=int, default=2, help="worker processes playing matches")
        parser.add_argument("--webhook-threads", type=int, default=8,
                            help="threads of the webhook worker (deliveries wait on the network, not a CPU)")
        parser.add_argument("--games-per-pairing", type=int, default=4)
        parser.add_argument("--run-for", type=float, default=0.0,
                            help="stop by itself after this many seconds (0: run until Ctrl-C)")

    def handle(self, *args, host: str, port: int, concurrency: int, webhook_threads: int, games_per_pairing: int,
               run_for: float, **options):
        self._children: list[subprocess.Popen] = []
        self._signals = 0
        self._stopping = False
        self._reaper: GroupReaper | None = None
        previous = {sig: signal.signal(sig, self._on_signal) for sig in (signal.SIGINT, signal.SIGTERM)}
        try:
            self._check_port(host, port)
            self._check_sandbox()
            call_command("migrate", interactive=False, verbosity=0)
            if not settings.DEBUG:
                call_command("collectstatic", interactive=False, verbosity=0)
            call_command("seed_examples", stdout=self.stdout)
            self._reaper = GroupReaper()
            self._start_worker(concurrency)
            self._start_webhook_worker(webhook_threads)
            self._await_checks()
            self._schedule(games_per_pairing)
            # The sandbox check above started one in this process; the workers have their own. Closing it
            # now keeps its processes out of the terminal's Ctrl-C.
            from bots.sandbox import close_sandboxes

            close_sandboxes()
            self._start_web(host, port)
            self._wait_for_port(host, port)
            self.stdout.write(self.style.SUCCESS(f"The ladder is running on http://{host}:{port}/"))
            self.stdout.write("Press Ctrl-C to stop it.")
            self.stdout.flush()
            self._supervise(run_for)
        finally:
            self._stop_children()
            for sig, handler in previous.items():
                signal.signal(sig, handler)
        self.stdout.write("Stopped; every process the demo started has exited.")

    # --- steps ---------------------------------------------------------------------------------------

    def _check_port(self, host: str, port: int) -> None:
        with socket.socket() as probe:
            if probe.connect_ex((host, port)) == 0:
                raise CommandError(f"something already listens on {host}:{port}; stop it or pass --port")

    def _check_sandbox(self) -> None:
        from bots.referee import SandboxUnavailable
        from bots.sandbox import get_sandbox

        try:
            get_sandbox(allow_unsafe=settings.BOTS_ALLOW_UNSAFE)
        except SandboxUnavailable as exc:
            raise CommandError(
                f"bots cannot be sandboxed on this machine: {exc}\n"
                "Set BOTS_ALLOW_UNSAFE=1 to run the trusted example bots without isolation (local use only)."
            ) from exc

    def _await_checks(self, timeout: float = CHECKS_TIMEOUT_S) -> None:
        """Wait until the worker has accepted or rejected every uploaded example (a round robin takes
        accepted bots only)."""
        pending = BotVersion.objects.filter(validation_status=BotVersion.Validation.PENDING)
        deadline = time.monotonic() + timeout
        if pending.exists():
            self.stdout.write(f"the worker is checking {pending.count()} uploaded bots...")
            self.stdout.flush()
        while pending.exists() and not self._stopping:
            self._check_children()
            if time.monotonic() > deadline:
                raise CommandError(f"the worker did not check the example bots within {timeout:.0f} s; see "
                                   f"{Path(settings.VAR_DIR) / 'demo-worker.log'}")
            time.sleep(0.3)
        for version in BotVersion.objects.filter(validation_status=BotVersion.Validation.REJECTED,
                                                 bot__owner__username="examples").select_related("bot"):
            self.stdout.write(f"example {version.bot.name} v{version.number} was rejected: "
                              f"{version.validation_message}")

    def _schedule(self, games_per_pairing: int) -> None:
        for game in Game.objects.filter(available=True):
            bots = list(
                Bot.objects.filter(game=game, active=True, versions__validation_status=BotVersion.Validation.ACCEPTED)
                .distinct()
                .values_list("id", flat=True)
            )
            players = max(2, game.min_players)
            if len(bots) < players:
                self.stdout.write(f"{game.slug}: fewer than {players} example bots, no round robin")
                continue
            try:
                # The server chose these games, so they are rated: the demo's leaderboards fill from them.
                tournament = tournament_create(
                    created_by=None, game_slug=game.slug, name=f"{game.title} demo round robin", bot_ids=bots,
                    players_per_match=players, games_per_pairing=games_per_pairing, rated=True,
                )
            except ServiceError as exc:
                self.stdout.write(f"{game.slug}: no round robin ({exc.message})")
                continue
            self.stdout.write(f"{game.slug}: round robin #{tournament.id} with {tournament.matches.count()} matches")

    def _spawn(self, argv: list[str], name: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        log_path = Path(settings.VAR_DIR) / f"demo-{name}.log"
        with open(log_path, "ab") as log:
            child = spawn_bound(argv, reaper=self._reaper, cwd=REPO, stdout=log, stderr=subprocess.STDOUT,
                                env={**os.environ, **(env or {})})
        child.demo_name = name  # type: ignore[attr-defined]
        self._children.append(child)
        self.stdout.write(f"started {name} (pid {child.pid}, log {log_path})")
        return child

    def _start_worker(self, concurrency: int) -> None:
        queues = ",".join(dict.fromkeys([settings.VALIDATION_QUEUE, settings.CELERY_TASK_DEFAULT_QUEUE,
                                         settings.MATCH_QUEUE, settings.LADDER_QUEUE]))
        self._spawn(
            [sys.executable, "-m", "celery", "-A", "workers", "worker", "-B", "-s",
             str(Path(settings.VAR_DIR) / "demo-celerybeat-schedule"), "-Q", queues, "-c", str(concurrency),
             "-n", "worker@%h", "-l", "INFO", "--without-gossip", "--without-mingle"],
            "worker",
        )

    def _start_webhook_worker(self, threads: int) -> None:
        self._spawn(
            [sys.executable, "-m", "celery", "-A", "workers", "worker", "-Q", settings.WEBHOOKS_QUEUE, "-P", "threads",
             "-c", str(threads), "--prefetch-multiplier", "8", "-n", "webhooks@%h", "-l", "INFO",
             "--without-gossip", "--without-mingle"],
            "webhooks",
            # It posts to other people's servers and never runs a bot.
            env={FORBIDDEN_ENV: "1"},
        )

    def _start_web(self, host: str, port: int) -> None:
        self._spawn(
            [sys.executable, "-m", "gunicorn", "ladder.wsgi:application", "-b", f"{host}:{port}", "-w", "2",
             "--access-logfile", "-"],
            "web",
            # As in production: the web tier stores uploads and never runs a bot.
            env={FORBIDDEN_ENV: "1"},
        )

    def _wait_for_port(self, host: str, port: int, timeout: float = 30.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline and not self._stopping:
            self._check_children()
            with socket.socket() as probe:
                if probe.connect_ex((host, port)) == 0:
                    return
            time.sleep(0.2)
        if not self._stopping:
            raise CommandError(f"the web server did not start listening on {host}:{port}")

    def _supervise(self, run_for: float) -> None:
        deadline = time.monotonic() + run_for if run_for > 0 else None
        while not self._stopping:
            self._check_children()
            if deadline is not None and time.monotonic() >= deadline:
                return
            time.sleep(0.5)

    def _check_children(self) -> None:
        for child in self._children:
            if child.poll() is not None and not self._stopping:
                raise CommandError(
                    f"{child.demo_name} exited with status {child.returncode}; see "  # type: ignore[attr-defined]
                    f"{Path(settings.VAR_DIR) / ('demo-' + child.demo_name + '.log')}"  # type: ignore[attr-defined]
                )

    # --- stopping ------------------------------------------------------------------------------------

    def _on_signal(self, signum, frame) -> None:
        self._signals += 1
        self._stopping = True

    def _stop_children(self) -> None:
        self._stopping = True
        signals_before = self._signals
        running = [child for child in self._children if child.poll() is None]
        for child in running:
            # The main process only: it stops its own processes in order (see the module docstring).
            child.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + STOP_GRACE_S
        while (any(child.poll() is None for child in running) and time.monotonic() < deadline
               and self._signals == signals_before):
            time.sleep(0.05)
        for child in self._children:
            lingered = child.poll() is None
            # Whatever is left of its group (pool processes, the sandbox's, bots) goes too.
            kill_group(child.pid)
            child.wait(timeout=5)
            if self._reaper is not None:
                self._reaper.forget(child.pid)
            if child in running:
                name = child.demo_name  # type: ignore[attr-defined]
                self.stdout.write(f"{name} did not stop within {STOP_GRACE_S:g} s of SIGTERM; killed it"
                                  if lingered else f"stopped {name}")
        if self._reaper is not None:
            self._reaper.close()
