"""Spreads its memory over several processes, each under the per-process limit, together far above it."""
import os
import time


def act(observation, legal_actions):
    children = []
    for _ in range(3):
        pid = os.fork()
        if pid == 0:
            hoard = bytearray(60 * 1024 * 1024)
            for offset in range(0, len(hoard), 4096):
                hoard[offset] = 1  # touch every page so it is really used
            time.sleep(60)
            os._exit(0)
        children.append(pid)
    time.sleep(1)
    alive = [pid for pid in children if os.waitpid(pid, os.WNOHANG) == (0, 0)]
    if len(alive) == len(children):
        print("ESCAPED: 180 MiB held by the tree", flush=True)
    return legal_actions[0]
