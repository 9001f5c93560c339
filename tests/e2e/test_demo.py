"""``manage.py demo`` serves finished matches and leaves no process behind when stopped."""

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
    demo = subprocess.Popen([sys.executable, "manage.py", "demo", "--port", str(port)], cwd=REPO, env=env,
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
    time.sleep(0.5)
    assert processes_with(marker) == []


def _finished_matches(base: str) -> int:
    try:
        return get_json(f"{base}/api/matches/?status=finished")["count"]
    except OSError:
        return 0
