"""Writes garbage straight onto every descriptor it has, the protocol channel among them."""
import os

attacked = False


def act(observation, legal_actions):
    global attacked
    if attacked:
        return legal_actions[0]
    attacked = True
    for fd in range(64):
        try:
            os.write(fd, b"}}garbage{{ not json\n")
        except OSError:
            pass
    return legal_actions[0]
