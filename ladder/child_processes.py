"""Child processes that cannot outlive the process that started them (``manage.py demo``'s).

Each child leads a session (and process group) of its own, which everything it starts shares: a signal
to the parent's group (a terminal's Ctrl-C, a supervisor's SIGTERM) then reaches only the parent, which
stops each child the way that child expects (Celery's worker, for one, must get SIGTERM in its main
process alone: its pool processes dying first deadlock its shutdown). If the parent itself dies without
stopping them, two mechanisms end them, because either alone leaves a gap:

* a parent-death signal: a child is started through this module (``python -m ladder.child_processes
  bound PARENT_PID -- ARGV...``), which asks the kernel for SIGKILL when its parent dies, checks that the
  parent is still there (it may have died before the request) and then becomes ARGV. The signal reaches
  that one process only, not what it starts (Celery's embedded beat has none; gunicorn's workers notice a
  dead master only every few seconds);
* a :class:`GroupReaper`: a small process in a session of its own that reads the process groups of the
  children from a pipe whose write end only the parent holds. However the parent ends, even by SIGKILL,
  the pipe then reads end-of-file, and the reaper kills every group it was told of, then exits.

Linux only (``prctl``); elsewhere only the reaper acts.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
import time
from collections.abc import Sequence

_PR_SET_PDEATHSIG = 1
#: Times a group is killed: a member forking while the first SIGKILL is delivered may leave a child
#: that the next one reaches.
_KILL_ROUNDS = 3


class GroupReaper:
    """The reaper process of one parent. :meth:`watch` each child's group as soon as it is started;
    :meth:`close` when the children are stopped (the reaper then kills what is left, and exits)."""

    def __init__(self) -> None:
        self._process = subprocess.Popen(
            [sys.executable, "-m", __name__, "reap"], stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
            start_new_session=True,
        )

    def watch(self, pgid: int) -> None:
        self._send(pgid)

    def forget(self, pgid: int) -> None:
        """Stop watching a group the parent has emptied itself: its number may go to a stranger."""
        self._send(-pgid)

    def _send(self, value: int) -> None:
        self._process.stdin.write(f"{value}\n".encode())
        self._process.stdin.flush()

    def close(self, timeout: float = 10.0) -> None:
        if self._process.stdin and not self._process.stdin.closed:
            self._process.stdin.close()
        try:
            self._process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()


def spawn_bound(argv: Sequence[str], *, reaper: GroupReaper, **popen_options) -> subprocess.Popen:
    """Start ``argv`` as a child of this process that dies with it: in a session of its own, with a
    parent-death signal, its group watched by ``reaper``. ``popen_options`` go to ``subprocess.Popen``."""
    child = subprocess.Popen(
        [sys.executable, "-m", __name__, "bound", str(os.getpid()), "--", *argv],
        start_new_session=True, **popen_options,
    )
    reaper.watch(child.pid)
    return child


def kill_group(pgid: int) -> None:
    """SIGKILL every process of group ``pgid``; nothing happens if the group is gone."""
    for attempt in range(_KILL_ROUNDS):
        try:
            os.killpg(pgid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            return
        if attempt + 1 < _KILL_ROUNDS:
            time.sleep(0.05)


def set_parent_death_signal(sig: int) -> bool:
    """Ask the kernel to send ``sig`` to this process when its parent dies; False where it cannot."""
    if not sys.platform.startswith("linux"):
        return False
    libc = ctypes.CDLL(None, use_errno=True)
    return libc.prctl(_PR_SET_PDEATHSIG, int(sig), 0, 0, 0) == 0


def _become_bound(parent: int, argv: list[str]) -> None:
    set_parent_death_signal(signal.SIGKILL)
    if os.getppid() != parent:
        # The parent died before the request took effect: nobody would ever stop this child.
        os._exit(1)
    os.execvp(argv[0], argv)


def _reap() -> None:
    # Blocks until every write end is closed: the parent stopped or died.
    groups: dict[int, None] = {}
    for value in map(int, sys.stdin.buffer.read().split()):
        if value > 0:
            groups[value] = None
        else:
            groups.pop(-value, None)
    for pgid in groups:
        kill_group(pgid)


def main(args: list[str]) -> None:
    if args[:1] == ["reap"]:
        _reap()
        return
    if len(args) > 3 and args[0] == "bound" and args[2] == "--":
        _become_bound(int(args[1]), args[3:])
    sys.exit("usage: python -m ladder.child_processes (reap | bound PARENT_PID -- ARGV...)")


if __name__ == "__main__":
    main(sys.argv[1:])
