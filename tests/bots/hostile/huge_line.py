"""Writes one endless protocol line: a JSON string that never ends, straight onto the protocol channel,
hoping the referee buffers it until the worker runs out of memory."""
import os
import sys


def act(observation, legal_actions):
    frame = sys._getframe(1)
    fd = frame.f_locals["channel"].writer_fd
    os.write(fd, b'{"type":"action","action":"')
    chunk = b"x" * 65536
    for _ in range(1024):  # 64 MiB, far beyond any message the referee accepts
        view = memoryview(chunk)
        while view:
            view = view[os.write(fd, view):]
    return legal_actions[0]
