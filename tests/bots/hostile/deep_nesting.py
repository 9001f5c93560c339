"""Answers its first move with an action nested DEPTH levels deep, written straight onto the protocol
channel (the SDK's own encoder would refuse). A parser that recurses per level, or an engine that compares
actions by re-encoding them, raises RecursionError: the match would be impossible to record, which is
exactly what a bot about to lose wants. ``DEPTH`` is set by the test; 1000 passes orjson's own limit of
1024 levels and still breaks a recursive encoder."""
import sys

DEPTH = globals().get("DEPTH", 200000)


def _protocol_fd():
    # The SDK's serve() loop is the caller of act(); its channel holds the protocol descriptor.
    frame = sys._getframe(1)
    while frame is not None:
        channel = frame.f_locals.get("channel")
        if channel is not None:
            return channel.writer_fd
        frame = frame.f_back
    raise RuntimeError("no protocol channel found")


def _write(fd, data):
    import os

    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def act(observation, legal_actions):
    nested = b"[" * DEPTH + b"1" + b"]" * DEPTH
    _write(_protocol_fd(), b'{"type":"action","action":' + nested + b"}\n")
    # Never reached when the referee does its job: it stops asking after this answer.
    return legal_actions[0]
