"""Bot sources shared by the sandbox tests."""

from __future__ import annotations

import os
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
