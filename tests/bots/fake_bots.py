"""Fake bots for the referee's tests: real pipes, with a thread of the test process at the far end.

A :class:`ScriptedProcess` is a :class:`bots.sandbox.process.BotProcess` whose "bot" is a Python function
of the test (``script(ends, process)``) running in a thread; :class:`FakeSandbox` spawns them. They are our
own trusted code, so they run without the sandbox: they let a test make a bot write exactly the bytes it
wants, when it wants, and stop exactly when the referee kills it.
"""

from __future__ import annotations

import fcntl
import json
import os
import select
import threading

from bots.sandbox.policy import Limits
from bots.sandbox.process import BotProcess

_POLL_S = 0.005


class _Stopped(Exception):
    """The referee killed the fake bot."""


class BotEnds:
    """The fake bot's side of its three pipes; every operation gives up once the referee kills it."""

    def __init__(self, stdin: int, stdout: int, log: int, stop: threading.Event) -> None:
        self.stdin, self.stdout, self.log, self.stop = stdin, stdout, log, stop
        self.pending = bytearray()
        for fd in (stdin, stdout, log):
            os.set_blocking(fd, False)

    def read_line(self) -> bytes | None:
        """The referee's next message, or None once it closed the pipe."""
        while True:
            newline = self.pending.find(b"\n")
            if newline >= 0:
                line = bytes(self.pending[:newline])
                del self.pending[: newline + 1]
                return line
            if self.stop.is_set():
                raise _Stopped
            readable, _, _ = select.select([self.stdin], [], [], _POLL_S)
            if readable:
                try:
                    data = os.read(self.stdin, 1 << 16)
                except BlockingIOError:
                    continue
                if not data:
                    return None
                self.pending += data

    def write(self, fd: int, data: bytes) -> None:
        view = memoryview(data)
        while view:
            if self.stop.is_set():
                raise _Stopped
            try:
                view = view[os.write(fd, view):]
            except BlockingIOError:
                select.select([], [fd], [], _POLL_S)

    def hang(self) -> None:
        self.stop.wait()
        raise _Stopped


class ScriptedProcess(BotProcess):
    """A :class:`BotProcess` whose bot is ``script(ends)`` running in a thread of this process."""

    def __init__(self, script, pipe_bytes: int | None = None) -> None:
        to_bot_r, to_bot_w = os.pipe()
        from_bot_r, from_bot_w = os.pipe()
        log_r, log_w = os.pipe()
        if pipe_bytes:
            fcntl.fcntl(to_bot_w, fcntl.F_SETPIPE_SZ, pipe_bytes)
        super().__init__(to_bot_w, from_bot_r, log_r)
        self._stop = threading.Event()
        self._ends = BotEnds(to_bot_r, from_bot_w, log_w, self._stop)
        self.closed_ends: set[int] = set()
        self._thread = threading.Thread(target=self._run, args=(script,), daemon=True)
        self._thread.start()

    def close_end(self, fd: int) -> None:
        """Close one of the fake bot's own descriptors (only its thread calls this, or kill after it)."""
        if fd not in self.closed_ends:
            self.closed_ends.add(fd)
            os.close(fd)

    def _run(self, script) -> None:
        try:
            script(self._ends, self)
        except (_Stopped, BrokenPipeError):
            pass
        finally:
            for fd in (self._ends.stdin, self._ends.stdout, self._ends.log):
                self.close_end(fd)

    def kill(self) -> None:
        self._stop.set()
        self._thread.join(timeout=5)
        assert not self._thread.is_alive(), "a fake bot did not stop when killed"


class FakeSandbox:
    """Spawns the scripted fake whose ``code`` names it; every other seat gets an honest fake."""

    unsafe = False

    def __init__(self, scripts: dict[bytes, object], pipe_bytes: int | None = None) -> None:
        self.scripts = scripts
        self.pipe_bytes = pipe_bytes
        self.spawned: list[ScriptedProcess] = []

    def spawn(self, code: bytes, limits: Limits) -> BotProcess:
        process = ScriptedProcess(self.scripts.get(code, honest), self.pipe_bytes)
        self.spawned.append(process)
        return process


def honest(ends: BotEnds, process: ScriptedProcess) -> None:
    """Speaks the protocol: ready to start, the first legal action to every act, gone after end."""
    while (line := ends.read_line()) is not None:
        message = json.loads(line)
        if message["type"] == "start":
            ends.write(ends.stdout, b'{"type":"ready"}\n')
        elif message["type"] == "act":
            ends.write(ends.log, b"thinking\n")
            ends.write(ends.stdout, json.dumps({"type": "action", "action": message["legal_actions"][0]})
                       .encode() + b"\n")
        elif message["type"] == "end":
            return
