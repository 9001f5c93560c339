"""Stalls while being started, longer than its start allowance: sleeping at import (MODE "sleep") or
spinning the CPU in ``Bot.__init__`` (MODE "spin"), hoping that the referee's wait for it eats the other
seats' start time too, so that they forfeit with it and it shares their place."""
import time

MODE = globals().get("MODE", "sleep")
STALL_S = globals().get("STALL_S", 30)

if MODE == "sleep":
    time.sleep(STALL_S)


class Bot:
    def __init__(self, game, seat, players, options):
        if MODE == "spin":
            end = time.monotonic() + STALL_S
            while time.monotonic() < end:
                pass

    def act(self, observation, legal_actions):
        return legal_actions[0]
