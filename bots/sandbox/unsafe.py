"""The explicit opt-in for local work: every bot in a plain child process, with no isolation.

Bots started here can read the project, reach the network and signal other processes of the same user.
Only rlimits bound them. :class:`UnsafeSandbox` exists so that a developer on a machine without user
namespaces can still play; it is never chosen implicitly and it says so loudly in the logs.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from pathlib import Path

from bots.sandbox.policy import Limits
from bots.sandbox.process import BotProcess
from bots.sandbox.unpacked_code import CodeCache

logger = logging.getLogger("bots.sandbox")

WARNING = "UNSAFE MODE: bots run WITHOUT isolation (network, files and processes of this user are reachable)"

_PROJECT_ROOT = str(Path(__file__).resolve().parents[2])
# The child sets its own rlimits (a preexec_fn is unsafe in a threaded parent).
_BOOTSTRAP = ("import resource, sys; memory, cpu = int(sys.argv[2]), int(sys.argv[3]); "
              "resource.setrlimit(resource.RLIMIT_AS, (memory, memory)); "
              "resource.setrlimit(resource.RLIMIT_CPU, (cpu, cpu + 1)); "
              f"sys.path.insert(0, {_PROJECT_ROOT!r}); from bots.sdk import main; main(sys.argv[1:2])")


class _ChildProcess(BotProcess):
    """Paused by SIGSTOP of its process group: the bot and whatever it forked, unless that left the group."""

    pause_mechanism = "sigstop"

    def __init__(self, popen: subprocess.Popen) -> None:
        super().__init__(popen.stdin.fileno(), popen.stdout.fileno(), popen.stderr.fileno())
        self._popen = popen

    def pause(self) -> None:
        self._signal_group(signal.SIGSTOP)

    def resume(self) -> None:
        self._signal_group(signal.SIGCONT)

    def _signal_group(self, signum: int) -> None:
        # Until it is reaped, the leader's pid (the group's id) cannot be given to another process.
        if self._popen.returncode is None:
            try:
                os.killpg(self._popen.pid, signum)
            except ProcessLookupError:
                pass

    def kill(self) -> None:
        if self._popen.returncode is None:
            try:
                os.killpg(self._popen.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            self._popen.wait()

    def close(self) -> None:
        self.kill()
        for stream in (self._popen.stdin, self._popen.stdout, self._popen.stderr):
            try:
                stream.close()
            except OSError:
                pass
        self._closed = True


class UnsafeSandbox:
    """Starts each bot as ``python -I -m bots.sdk`` in its own session, limited by rlimits only."""

    unsafe = True
    mode = "unsafe"

    def __init__(self, cache_dir: str | Path | None = None) -> None:
        self.cache = CodeCache(cache_dir)
        logger.warning(WARNING)

    def spawn(self, code: bytes, limits: Limits) -> BotProcess:
        bot_dir = self.cache.path_for(code)
        # Address space, not memory: the interpreter maps far more than it uses.
        address_space = limits.memory_mb * 1024 * 1024 * 4
        popen = subprocess.Popen(
            [sys.executable, "-I", "-B", "-c", _BOOTSTRAP, str(bot_dir), str(address_space),
             str(limits.cpu_seconds)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
            cwd=bot_dir, env={"OPENBLAS_NUM_THREADS": "1"}, start_new_session=True,
        )
        return _ChildProcess(popen)

    def alive(self) -> bool:
        return True

    def close(self) -> None:
        pass
