"""The production topology without Docker: the web tier runs no bot, the workers check every upload.

The web server is started as docker-compose.yml starts it (gunicorn with ``gunicorn.conf.py``, its
workers and timeout from the environment) and, as there, with ``BOTS_SANDBOX_FORBIDDEN`` set, so that the
sandbox refuses to start in it. Uploads go to it over HTTP; a real ``celery worker`` on the configured
broker and database compiles them and plays their smoke matches. A good bot ends accepted, a syntax error
and source that breaks the compiler end rejected with a message, no upload gets a 5xx, and the web
server's process tree holds nothing but gunicorn's own processes: it started no zygote, no bot, no
compiler process.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

from bots.sandbox import FORBIDDEN_ENV
from tests.conftest import REPO, database_url, wait_until
from tests.factories import FIRST_LEGAL_BOT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

UPLOADS = {
    "good": (FIRST_LEGAL_BOT, "accepted", "smoke match against the random bot"),
    "syntax": (b"def act(observation, legal_actions):\n    return legal_actions[0\n", "rejected",
               "syntax error in bot.py, line 2"),
    "deep": (b"x = " + b"-" * 500_000 + b"1\n" + FIRST_LEGAL_BOT, "rejected",
             "bot.py is nested too deeply for the Python compiler"),
}


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def descendants(pid: int) -> list[tuple[int, str]]:
    """(pid, command line) of every process below ``pid``."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        children.setdefault(parent, []).append(int(entry.name))
    found, stack = [], list(children.get(pid, []))
    while stack:
        child = stack.pop()
        try:
            command = (Path("/proc") / str(child) / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        found.append((child, command.strip()))
        stack.extend(children.get(child, []))
    return found


@pytest.fixture
def web_server(worker_pool, settings, tmp_path):
    """gunicorn as in docker-compose.yml, on the test database and the worker pool's queues."""
    port = free_port()
    env = {**worker_pool.env, FORBIDDEN_ENV: "1", "WEB_BIND": f"127.0.0.1:{port}", "WEB_CONCURRENCY": "2",
           "WEB_TIMEOUT_S": "30", "DEBUG": "0", "ALLOWED_HOSTS": "127.0.0.1", "DATABASE_URL": database_url()}
    with open(tmp_path / "gunicorn.log", "wb") as log:
        process = subprocess.Popen([sys.executable, "-m", "gunicorn", "ladder.wsgi:application"], cwd=REPO,
                                   env=env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    base = f"http://127.0.0.1:{port}"

    def listening():
        assert process.poll() is None, (tmp_path / "gunicorn.log").read_text()[-3000:]
        try:
            return requests.get(f"{base}/api/games/", timeout=10).status_code == 200
        except requests.RequestException:
            return False

    try:
        wait_until(listening, timeout=60, interval=0.3, message="gunicorn to listen")
        yield process, base
    finally:
        os.killpg(process.pid, signal.SIGTERM)
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait(timeout=10)


def test_the_web_tier_runs_no_bot_and_the_workers_check_every_upload(worker_pool, web_server):
    worker_pool.start(concurrency=1)
    server, base = web_server
    gunicorn_processes = {pid for pid, _ in descendants(server.pid)}
    assert len(gunicorn_processes) == 2  # its two workers, nothing else

    session = requests.Session()
    token = session.post(f"{base}/api/auth/register/", json={"username": "ada", "password": "a-long-passphrase"},
                         timeout=10).json()["token"]
    session.headers["Authorization"] = f"Token {token}"
    bot_ids = {}
    for name, (code, _, _) in UPLOADS.items():
        response = session.post(f"{base}/api/bots/", data={"game": "kingdomino", "name": name},
                                files={"code": ("bot.py", code)}, timeout=30)
        assert response.status_code == 202, (name, response.status_code, response.text[:300])
        bot_ids[name] = response.json()["id"]

    def decided():
        versions = {name: session.get(f"{base}/api/bots/{bot_id}/", timeout=10).json()["versions"][0]
                    for name, bot_id in bot_ids.items()}
        return versions if all(v["validation_status"] != "pending" for v in versions.values()) else None

    versions = wait_until(decided, timeout=180, interval=0.5, message="the worker to check the uploads")
    for name, (_, status, message) in UPLOADS.items():
        assert versions[name]["validation_status"] == status, (name, versions[name])
        assert message in versions[name]["validation_message"], (name, versions[name])

    time.sleep(0.5)
    # The same two gunicorn workers (none timed out and was replaced), and nothing started below them.
    assert {pid for pid, _ in descendants(server.pid)} == gunicorn_processes
