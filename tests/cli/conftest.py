"""Fixtures for the ``botladder`` command's tests: a live server on a real port, and the command run in
this process (``cli``) or as its own process (``cli_process``), configured only by its environment."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass

import pytest
from django.core.cache import cache

from botladder_cli.main import main
from tests.conftest import REPO, broker_queue_purge


@dataclass
class Run:
    status: int
    out: str
    err: str


@pytest.fixture
def cli_env(live_server, tmp_path, monkeypatch, settings):
    """The command pointed at ``live_server`` with a config folder of its own and no token; validation
    tasks of uploads go to a queue of this test alone, purged after (no worker reads it)."""
    cache.clear()  # throttle counters
    monkeypatch.setenv("BOTLADDER_URL", live_server.url)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "config"))
    monkeypatch.delenv("BOTLADDER_TOKEN", raising=False)
    settings.VALIDATION_QUEUE = f"test-cli-{os.getpid()}-{tmp_path.name}.validation"
    yield live_server.url
    broker_queue_purge(settings.VALIDATION_QUEUE)
    cache.clear()


@pytest.fixture
def cli(cli_env, capsys):
    """``cli("upload", "bot.py", ...)`` runs the command in this process: ``Run(status, out, err)``."""

    def run(*argv: str) -> Run:
        capsys.readouterr()
        status = main(list(argv))
        captured = capsys.readouterr()
        return Run(status, captured.out, captured.err)

    return run


def cli_process(*argv: str, env: dict[str, str], stdin: str = "", timeout: float = 300) -> Run:
    """The command as its own process (``python -m botladder_cli``), as a CI job runs it."""
    done = subprocess.run([sys.executable, "-m", "botladder_cli", *argv], cwd=REPO, env={**os.environ, **env},
                          input=stdin, capture_output=True, text=True, timeout=timeout)
    return Run(done.returncode, done.stdout, done.stderr)
