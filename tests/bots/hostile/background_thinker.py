"""Thinks on the opponent's clock: a background thread and a forked child spin from import on.

Each counts as fast as it can; the child reports its count through a pipe. Every act first prints how far
both counters advanced since the end of the previous act (``between``: the time the bot was not on move)
and then lets them spin for ``THINK_S`` of its own turn and prints how far they got (``during``). A bot
that runs only on its own turn shows ``between`` near zero.
"""
import os
import struct
import threading
import time

THINK_S = globals().get("THINK_S", 0.3)
_REPORT_EVERY = 4096

thread_count = [0]


def _spin_thread():
    while True:
        thread_count[0] += 1


def _spin_child(report_fd):
    os.set_blocking(report_fd, False)
    count = 0
    while True:
        count += 1
        if count % _REPORT_EVERY == 0:
            try:
                os.write(report_fd, struct.pack("<Q", count))
            except BlockingIOError:
                pass  # the parent reads only in its turn; the next report carries the count anyway


_reports, _report_w = os.pipe()
_child = os.fork()
if _child == 0:
    os.close(_reports)
    _spin_child(_report_w)
    os._exit(0)
os.close(_report_w)
os.set_blocking(_reports, False)
_child_count = [0]
threading.Thread(target=_spin_thread, daemon=True).start()


def child_count():
    """The child's last reported count (reports are 8-byte atomic pipe writes)."""
    while True:
        try:
            data = os.read(_reports, 1 << 16)
        except BlockingIOError:
            return _child_count[0]
        if not data:
            return _child_count[0]
        _child_count[0] = struct.unpack_from("<Q", data, len(data) - 8)[0]


class Bot:
    def __init__(self, game, seat, players, options):
        self.turn = 0
        self.last = (thread_count[0], child_count())

    def act(self, observation, legal_actions):
        now = (thread_count[0], child_count())
        print(f"turn {self.turn} between thread={now[0] - self.last[0]} child={now[1] - self.last[1]}",
              flush=True)
        time.sleep(THINK_S)
        self.last = (thread_count[0], child_count())
        print(f"turn {self.turn} during thread={self.last[0] - now[0]} child={self.last[1] - now[1]}",
              flush=True)
        self.turn += 1
        return legal_actions[0]
