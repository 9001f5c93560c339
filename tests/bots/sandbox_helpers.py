"""Bot sources shared by the sandbox tests."""

from __future__ import annotations

import os
import textwrap

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
