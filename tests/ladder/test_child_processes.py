"""``ladder.child_processes``: a child started bound dies with its parent, however the parent ends, and the
reaper kills the groups it was told of, and only those, once its parent lets go of the pipe."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from ladder.child_processes import GroupReaper, kill_group

REPO = Path(__file__).resolve().parents[2]


def _gone(pid: int, timeout: float = 10.0) -> bool:
    """Whether ``pid`` has ended (reaped, or a zombie waiting for a parent that is not us)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            return True
        if state in ("Z", "X"):
            return True
        time.sleep(0.05)
    return False


def test_the_reaper_kills_a_watched_group_when_its_parent_closes_the_pipe():
    reaper = GroupReaper()
    child = subprocess.Popen(["sleep", "60"], start_new_session=True)
    reaper.watch(child.pid)
    reaper.close()
    assert child.wait(timeout=10) == -signal.SIGKILL


def test_a_forgotten_group_is_left_alone():
    reaper = GroupReaper()
    child = subprocess.Popen(["sleep", "60"], start_new_session=True)
    try:
        reaper.watch(child.pid)
        reaper.forget(child.pid)
        reaper.close()
        time.sleep(0.2)
        assert child.poll() is None
    finally:
        if child.poll() is None:  # only a group of ours that still exists: its number is not reused yet
            kill_group(child.pid)
            child.wait(timeout=10)


def test_a_bound_child_dies_with_its_parent_killed_by_sigkill():
    script = ("import sys, time\n"
              "from ladder.child_processes import GroupReaper, spawn_bound\n"
              "child = spawn_bound(['sleep', '60'], reaper=GroupReaper())\n"
              "print(child.pid, flush=True)\n"
              "time.sleep(60)\n")
    parent = subprocess.Popen([sys.executable, "-c", script], cwd=REPO, stdout=subprocess.PIPE, text=True,
                              start_new_session=True)
    try:
        child_pid = int(parent.stdout.readline())
        assert not _gone(child_pid, timeout=0.3)
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        assert _gone(child_pid), "the bound child outlived its parent"
    finally:
        if parent.poll() is None:
            kill_group(parent.pid)
            parent.wait(timeout=10)

