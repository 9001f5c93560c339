"""``manage.py demo``, run as ``make demo`` runs it (on a private PostgreSQL, ``ladder.private_postgres``),
serves finished matches and leaves no process behind, its database server included, when stopped, however
it is stopped: SIGINT, SIGTERM to its process group and SIGKILL to it once the demo has exited or at most
3 s later (a supervisor's way), SIGKILL alone.

Its processes are found by a marker in their environment and by the sessions those processes lead
(the sandbox's processes get an empty environment but stay in their worker's session), never by name:
other workers run on the same machine."""

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.request
import uuid
from pathlib import Path

import pytest

from tests.conftest import wait_until

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

REPO = Path(__file__).resolve().parents[2]
#: ``make demo``'s command, without DATABASE_URL.
DEMO = [sys.executable, "-m", "ladder.private_postgres", "--", sys.executable, "manage.py", "demo"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def processes_with(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and entry.name != str(os.getpid()):
            try:
                if marker.encode() in (entry / "environ").read_bytes():
                    found.append(int(entry.name))
            except OSError:
                continue
    return found


def _stat_fields(pid: int) -> list[str]:
    """/proc/PID/stat after the command name: state, ppid, pgrp, session, ..."""
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2:].split()


def session_of(pid: int) -> int:
    return int(_stat_fields(pid)[3])


def live_processes(marker: str, sessions: set[int]) -> dict[int, str]:
    """pid -> command line of every process that is not a zombie and carries ``marker`` or belongs to one
    of ``sessions``."""
    found = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit() or entry.name == str(os.getpid()):
            continue
        pid = int(entry.name)
        try:
            state, _, _, session = _stat_fields(pid)[:4]
            ours = int(session) in sessions or marker.encode() in (entry / "environ").read_bytes()
            if ours and state != "Z":
                found[pid] = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except (OSError, ValueError):
            continue
    return found


def start_demo(tmp_path: Path, marker: str, port: int) -> subprocess.Popen:
    env = {key: value for key, value in os.environ.items()
           if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE")}
    env.update({"DEBUG": "1", "VAR_DIR": str(tmp_path / "var"), marker.split("=")[0]: marker.split("=")[1],
                "LADDER_INTERVAL_S": "2"})
    with open(tmp_path / "demo.out", "wb") as out:
        return subprocess.Popen([*DEMO, "--port", str(port)], cwd=REPO, env=env,
                                stdout=out, stderr=subprocess.STDOUT, start_new_session=True)


def wait_until_playing(tmp_path: Path, demo: subprocess.Popen) -> None:
    """Until the site is served and the worker has recorded a match (so its sandboxes exist)."""
    def playing():
        assert demo.poll() is None, (tmp_path / "demo.out").read_text()
        worker_log = tmp_path / "var" / "demo-worker.log"
        return (b"is running on" in (tmp_path / "demo.out").read_bytes()
                and worker_log.exists() and b"recorded" in worker_log.read_bytes())

    wait_until(playing, timeout=150, interval=0.5, message="the demo to serve its site and play matches")


def assert_leaves_nothing(demo: subprocess.Popen, stop, tmp_path: Path, marker: str) -> None:
    """Stop a playing demo with ``stop(demo)``; then nothing it started may be left."""
    sessions = {demo.pid}
    sessions |= {session_of(pid) for pid in live_processes(marker, set())}
    before = live_processes(marker, sessions)
    commands = "\n".join(before.values())
    assert "celery -A workers worker" in commands and "gunicorn" in commands, commands
    # The webhook worker: the webhooks' queue alone, on threads.
    assert "webhooks -P threads" in commands, commands
    assert "serve_forever" in commands, f"no sandbox process found: {commands}"
    assert "pginstall/bin/postgres -D" in commands, f"no private PostgreSQL found: {commands}"
    try:
        stop(demo)
        demo.wait(timeout=30)
        wait_until(lambda: not live_processes(marker, sessions), timeout=15, interval=0.2,
                   message="every process of the demo to end")
    except BaseException:
        left = live_processes(marker, sessions)
        print("left:", left, (tmp_path / "demo.out").read_text(errors="replace"))
        for pid in left:
            os.kill(pid, signal.SIGKILL)
        raise


def test_demo_terminated_then_killed_leaves_no_process(tmp_path):
    marker = f"DEMO_TEST_RUN={uuid.uuid4().hex}"
    demo = start_demo(tmp_path, marker, free_port())
    try:
        wait_until_playing(tmp_path, demo)

        def terminate_then_kill(demo):
            # As a supervisor stops a service (docker stop): SIGTERM, then SIGKILL to the group once the
            # demo has exited or 3 s have passed, whichever comes first.
            os.killpg(demo.pid, signal.SIGTERM)
            try:
                demo.wait(timeout=3)
            except subprocess.TimeoutExpired:
                pass
            try:
                os.killpg(demo.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass  # the whole group had stopped by itself

        assert_leaves_nothing(demo, terminate_then_kill, tmp_path, marker)
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait()


def test_demo_killed_outright_leaves_no_process(tmp_path):
    marker = f"DEMO_TEST_RUN={uuid.uuid4().hex}"
    demo = start_demo(tmp_path, marker, free_port())
    try:
        wait_until_playing(tmp_path, demo)
        assert_leaves_nothing(demo, lambda demo: demo.kill(), tmp_path, marker)
        assert demo.returncode == -signal.SIGKILL
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait()


def get_json(url: str):
    with urllib.request.urlopen(url, timeout=5) as response:
        return json.loads(response.read())


def test_demo_shows_finished_matches_and_stops_cleanly(tmp_path):
    marker = f"DEMO_TEST_RUN={uuid.uuid4().hex}"
    port = free_port()
    env = {key: value for key, value in os.environ.items()
           if key not in ("DATABASE_URL", "CELERY_BROKER_URL", "DJANGO_SETTINGS_MODULE")}
    env.update({"DEBUG": "1", "VAR_DIR": str(tmp_path / "var"), marker.split("=")[0]: marker.split("=")[1],
                "LADDER_INTERVAL_S": "2"})
    demo = subprocess.Popen([*DEMO, "--port", str(port)], cwd=REPO, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        base = f"http://127.0.0.1:{port}"
        finished = wait_until(
            lambda: _finished_matches(base), timeout=150, interval=1, message="finished matches on the demo site"
        )
        assert finished > 0
        with urllib.request.urlopen(f"{base}/games/kingdomino/", timeout=5) as page:
            assert b"random_bot" in page.read()
        assert processes_with(marker)
        demo.send_signal(signal.SIGINT)
        output = demo.communicate(timeout=60)[0].decode()
    finally:
        if demo.poll() is None:
            os.killpg(demo.pid, signal.SIGKILL)
            demo.wait()
    assert demo.returncode == 0, output
    assert f"http://127.0.0.1:{port}/" in output
    # The worker and the web server stopped by themselves on SIGTERM, without needing the SIGKILL.
    assert "stopped worker" in output and "stopped webhooks" in output and "stopped web" in output, output
    assert "did not stop" not in output, output
    time.sleep(0.5)
    assert processes_with(marker) == []


def _finished_matches(base: str) -> int:
    try:
        return get_json(f"{base}/api/matches/?status=finished")["count"]
    except OSError:
        return 0
