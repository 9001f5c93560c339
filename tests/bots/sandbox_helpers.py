"""Bot sources shared by the sandbox tests."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest


def bot_source(body: str) -> bytes:
    return textwrap.dedent(body).encode()


FIRST_BOT = bot_source("""
    def act(observation, legal_actions):
        return legal_actions[0]
""")

GREEDY_BOT = bot_source("""
    class Bot:
        def __init__(self, game, seat, players, options):
            self.seat = seat
        def act(self, observation, legal_actions):
            print("seat", self.seat, "sees", observation["total"])
            return max(legal_actions)
""")


def skip_without_isolation(reason: object) -> None:
    """Skip a sandbox test on a machine that cannot isolate bots, naming what is missing.

    In CI (``CI`` set) this fails instead: CI must exercise the real sandbox, and a silent skip there would
    let a broken sandbox land.
    """
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the real sandbox, but isolation is unavailable here: {reason}")
    pytest.skip(f"no isolation on this machine: {reason}")


def live_processes(*, uids: set[int] = frozenset(), name: str | None = None) -> list[str]:
    """Live processes (not zombies) whose uid is one of ``uids`` or whose name is ``name``, each as
    ``"pid name uid"``."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            status = (entry / "status").read_text()
        except OSError:
            continue
        fields = dict(line.split(":", 1) for line in status.splitlines() if ":" in line)
        process_name, uid = fields.get("Name", "").strip(), int(fields["Uid"].split()[0])
        if (uid in uids or process_name == name) and not fields["State"].strip().startswith("Z"):
            found.append(f"{entry.name} {process_name} {uid}")
    return found


def run_as_ordinary_user(script: str, *, cwd: Path, timeout: float = 120) -> dict:
    """Run ``script`` in a child that ``unshare --user`` has made uid 1000 with no capability in the host's
    namespaces (the sandbox then takes its unprivileged path), and return the JSON object it printed last.
    Skips where unshare or user namespaces are missing; fails on any other error of the script."""
    if shutil.which("unshare") is None:
        pytest.skip("util-linux unshare is not installed")
    completed = subprocess.run(
        ["unshare", "--user", "--map-user=1000", "--map-group=1000", sys.executable, "-c", script],
        capture_output=True, text=True, timeout=timeout, cwd=cwd, check=False,
    )
    if "user namespaces must be enabled" in completed.stderr or "unshare failed" in completed.stderr:
        pytest.skip(f"user namespaces are not available here: {completed.stderr[-300:]}")
    assert completed.returncode == 0, completed.stderr[-2000:]
    return json.loads(completed.stdout.strip().splitlines()[-1])


def descendants(pid: int) -> set[int]:
    """``pid``'s live descendants, found through every process's parent in ``/proc``."""
    children: dict[int, list[int]] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                parent = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(parent, []).append(int(entry.name))
    found, todo = set(), [pid]
    while todo:
        for child in children.get(todo.pop(), []):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found


def botladder_groups(pids: set[int]) -> set[Path]:
    """The sandbox's worker folders (``botladder-*``, on every hierarchy) holding any of ``pids``, read
    from their ``/proc/PID/cgroup``."""
    from bots.sandbox import cgroups

    mounts = cgroups._mounts()
    found = set()
    for pid in pids:
        try:
            lines = Path(f"/proc/{pid}/cgroup").read_text().splitlines()
        except OSError:
            continue
        for line in lines:
            _, controllers, path = line.split(":", 2)
            parts = path.strip("/").split("/")
            ours = [i for i, part in enumerate(parts) if part.startswith("botladder-")]
            if not ours:
                continue
            for controller in controllers.split(",") if controllers else [""]:
                if controller in mounts:
                    found.add(mounts[controller].joinpath(*parts[:ours[0] + 1]))
    return found
