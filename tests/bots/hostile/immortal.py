"""Tries to outlive its match: names itself ``TOKEN`` (set by the test, so that the host can look for it),
clears its parent-death signal, forks a grandchild that leaves the session and sleeps, then hangs."""
import ctypes
import os
import time

PR_SET_PDEATHSIG, PR_SET_NAME, PR_SET_CHILD_SUBREAPER = 1, 15, 36
libc = ctypes.CDLL(None, use_errno=True)


def act(observation, legal_actions):
    libc.prctl(PR_SET_NAME, TOKEN.encode(), 0, 0, 0)  # noqa: F821 - set by the test
    for name, option in (("parent-death signal", PR_SET_PDEATHSIG), ("child subreaper", PR_SET_CHILD_SUBREAPER)):
        if libc.prctl(option, 0, 0, 0, 0) == 0:
            print("cleared", name, flush=True)
        else:
            print("refused", name, os.strerror(ctypes.get_errno()), flush=True)
    child = os.fork()
    if child == 0:
        os.setsid()
        if os.fork() == 0:
            libc.prctl(PR_SET_PDEATHSIG, 0, 0, 0, 0)
            while True:
                time.sleep(1)
        os._exit(0)
    os.waitpid(child, 0)
    print("grandchild started", flush=True)
    while True:
        time.sleep(1)
