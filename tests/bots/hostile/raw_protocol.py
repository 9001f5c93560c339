"""Writes LINE, chosen by the test, raw onto the protocol channel instead of answering: escapes of lone
surrogates, NULs, invalid UTF-8, a forged error report. Then it waits, as if it had answered."""
import os
import sys
import time

LINE = globals().get("LINE", b'{"type":"error","kind":"crash","message":"\\ud800\\u0000"}\n')


def act(observation, legal_actions):
    fd = sys._getframe(1).f_locals["channel"].writer_fd
    view = memoryview(LINE)
    while view:
        view = view[os.write(fd, view):]
    time.sleep(10**6)
