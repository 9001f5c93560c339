"""Bot sources shared by the sandbox tests."""

from __future__ import annotations

import textwrap


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
