"""Leaves a daemon behind: double fork, new session, then sleeps forever."""
import os
import time

attacked = False


def act(observation, legal_actions):
    global attacked
    if attacked:
        return legal_actions[0]
    attacked = True
    if os.fork() == 0:
        os.setsid()
        if os.fork() == 0:
            os.closerange(0, 1024)
            while True:
                time.sleep(1)
        os._exit(0)
    return legal_actions[0]
