"""The warm sandbox: one pre-started Python process per worker slot that forks one confined process per bot.

The host side (:class:`ZygoteSandbox`) starts the zygote once, with an empty environment, as
``python -I``, and talks to it over a Unix socket pair. The zygote imports the SDK and the allowed
packages, enters its own network, ipc and uts namespaces (when root) so that not even it can reach the
network, then waits. For each bot the host sends a request and the bot's three pipes (as file
descriptors); the zygote forks, and the child confines itself (:mod:`bots.sandbox.launch`) and becomes
the bot. The zygote answers with a pidfd of the child, which the host uses to kill it without any risk of
hitting a recycled pid. Starting a bot therefore costs a fork and a few mounts instead of an
interpreter start and imports.

``mode="fresh"`` keeps everything the same except that the confined child executes a new interpreter;
it is the baseline that ``bench`` compares the zygote with.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import os
import random
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import threading
from pathlib import Path

from bots.sandbox.codecache import CodeCache
from bots.sandbox.errors import SandboxFault, SandboxUnavailable
from bots.sandbox.policy import Limits, Mount, Policy, default_policy
from bots.sandbox.process import BotProcess

logger = logging.getLogger("bots.sandbox")

_PROJECT_ROOT = str(Path(__file__).resolve().parents[2])
_BOOTSTRAP = ("import sys; sys.path.insert(0, {root!r}); from bots.sandbox.zygote import serve_forever; "
              "del sys.path[0]; serve_forever(int(sys.argv[1]))")
_MESSAGE_BYTES = 65536
_HELLO_TIMEOUT_S = 30
_REPLY_TIMEOUT_S = 10
_SDK_FILES = ("__init__.py", "sdk.py", "loader.py")


# ---------------------------------------------------------------------------------------------------
# Inside the zygote


def serve_forever(sock_fd: int) -> None:
    """The zygote's main loop: one request (plus three descriptors) in, one forked bot and a pidfd out."""
    from bots.sandbox import launch, linux

    sock = socket.socket(fileno=sock_fd)
    policy = default_policy()
    seccomp_lib = linux.load_seccomp()
    confined = []
    if os.geteuid() == 0:
        linux.unshare(linux.CLONE_NEWNET | linux.CLONE_NEWIPC | linux.CLONE_NEWUTS)
        linux.sethostname("zygote")
        confined = ["net", "ipc", "uts"]
    for name in policy.preload:
        try:
            __import__(name)
        except ImportError:
            pass
    import bots.sdk  # noqa: F401 - loaded now so that a bot's start costs no import of it

    os.environ.clear()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    _send(sock, {"type": "hello", "pid": os.getpid(), "seccomp": seccomp_lib is not None,
                 "namespaces": confined})
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(sock, _MESSAGE_BYTES, 3)
        except ConnectionResetError:
            break
        if not message:
            break
        request = json.loads(message)
        policy = _policy_from(request.pop("policy"), policy)
        if len(fds) != 3:
            for fd in fds:
                os.close(fd)
            _send(sock, {"type": "error", "message": f"expected 3 descriptors, got {len(fds)}"})
            continue
        pid = os.fork()
        if pid == 0:
            sock.close()
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
            os.closerange(3, 1 << 16)
            launch.become_bot(request, policy, seccomp_lib)
        for fd in fds:
            os.close(fd)
        pidfd = os.pidfd_open(pid)
        try:
            _send(sock, {"type": "spawned", "pid": pid}, [pidfd])
        finally:
            os.close(pidfd)
    os._exit(0)


def _policy_from(data: dict, current: Policy) -> Policy:
    """The host's policy (it owns it; the zygote only applies it)."""
    data = dict(data, mounts=tuple(Mount(**mount) for mount in data["mounts"]))
    data = {key: tuple(value) if isinstance(value, list) else value for key, value in data.items()}
    data["environment"] = tuple(tuple(pair) for pair in data["environment"])
    data["relocations"] = tuple(tuple(pair) for pair in data["relocations"])
    candidate = Policy(**data)
    return current if candidate == current else candidate


def _send(sock: socket.socket, message: dict, fds: list[int] | None = None) -> None:
    socket.send_fds(sock, [json.dumps(message).encode()], fds or [])


# ---------------------------------------------------------------------------------------------------
# On the host


class ZygoteBot(BotProcess):
    """A bot forked by the zygote: killed through its pidfd, its leftovers through its cgroup."""

    def __init__(self, to_bot: int, from_bot: int, log: int, pidfd: int, cgroup) -> None:
        super().__init__(to_bot, from_bot, log)
        self.pidfd = pidfd
        self.cgroup = cgroup

    def kill(self) -> None:
        if self.pidfd >= 0:
            try:
                signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.close(self.pidfd)
            self.pidfd = -1
        if self.cgroup is not None:
            self.cgroup.kill_and_remove()

    def memory_exceeded(self) -> bool:
        return self.cgroup is not None and self.cgroup.oom_killed()


class ZygoteSandbox:
    """One worker slot's sandbox: init (:meth:`start`), run (:meth:`spawn`), cleanup (:meth:`close`).

    Safe to share between threads; spawns are serialised, bots then run independently.
    """

    unsafe = False

    def __init__(self, cache_dir: str | Path | None = None, *, mode: str = "zygote",
                 policy: Policy | None = None) -> None:
        if mode not in ("zygote", "fresh"):
            raise ValueError(f"unknown sandbox mode {mode!r}")
        self.mode = mode
        self.policy = policy or default_policy()
        self._policy_data = dataclasses.asdict(self.policy)
        self.cache = CodeCache(cache_dir)
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._process: subprocess.Popen | None = None
        self._cgroups = None
        self._uids = itertools.count(random.SystemRandom().randrange(self.policy.host_uid_span))
        self.hello: dict = {}

    # init

    def start(self) -> "ZygoteSandbox":
        """Start the zygote and prove the confinement works with a probe bot; fail closed otherwise."""
        from bots.sandbox import cgroups

        self.cache.root.mkdir(parents=True, exist_ok=True)
        os.chmod(self.cache.root, 0o711)
        self._root_mount_point = self.cache.root / ".root"
        self._root_mount_point.mkdir(mode=0o755, exist_ok=True)
        self._runtime_dir = self._write_runtime()
        self._cgroups = cgroups.detect(f"{os.getpid()}-{secrets.token_hex(3)}")
        if self._cgroups is None:
            logger.warning("no usable cgroups: bot memory and processes are bounded by rlimits only")
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-c", _BOOTSTRAP.format(root=_PROJECT_ROOT), str(child.fileno())],
                pass_fds=[child.fileno()], env={"OPENBLAS_NUM_THREADS": "1"}, cwd="/",
                stdin=subprocess.DEVNULL,
            )
        finally:
            child.close()
        self._sock = parent
        self._sock.settimeout(_HELLO_TIMEOUT_S)
        try:
            hello, _ = self._receive()
        except SandboxFault as exc:
            self.close()
            raise SandboxUnavailable(f"the sandbox's zygote did not start: {exc}") from None
        self.hello = hello
        self._sock.settimeout(_REPLY_TIMEOUT_S)
        self._self_test()
        return self

    def _write_runtime(self) -> Path:
        """A folder holding only the SDK, mounted at /sdk for the fresh-interpreter mode."""
        source = Path(__file__).resolve().parents[1]
        runtime = self.cache.root / ".runtime" / "bots"
        runtime.mkdir(parents=True, exist_ok=True)
        for name in _SDK_FILES:
            target = runtime / name
            shutil.copyfile(source / name, target)
            os.chmod(target, 0o644)
        os.chmod(runtime, 0o755)
        os.chmod(runtime.parent, 0o755)
        return runtime.parent

    def _self_test(self) -> None:
        probe = b"def act(observation, legal_actions):\n    return legal_actions[0]\n"
        bot = self.spawn(probe, Limits())
        try:
            os.set_blocking(bot.to_bot, True)
            os.write(bot.to_bot, b'{"type":"start","game":"probe","seat":0,"players":1,"options":{}}\n')
            reply = _read_line(bot.from_bot, _HELLO_TIMEOUT_S)
        finally:
            bot.close()
        try:
            message = json.loads(reply)
        except ValueError:
            message = {}
        if message.get("type") != "ready":
            self.close()
            detail = message.get("message") or reply.decode(errors="replace")[:300] or "no answer"
            raise SandboxUnavailable(f"isolation cannot be set up on this machine: {detail}")

    # run

    def spawn(self, code: bytes, limits: Limits) -> BotProcess:
        """Start one confined bot for ``code``; :class:`SandboxFault` if the sandbox cannot."""
        if self._sock is None:
            raise SandboxFault("the sandbox is not started")
        bot_dir = self.cache.path_for(code)
        cgroup = self._cgroups.create(limits) if self._cgroups is not None else None
        uid = self.policy.host_uid_base + next(self._uids) % self.policy.host_uid_span
        request = {
            "mode": self.mode, "bot_dir": str(bot_dir), "host_uid": uid, "host_gid": uid,
            "cgroup_procs": cgroup.procs_files if cgroup else [],
            "root_mount_point": str(self._root_mount_point), "runtime_dir": str(self._runtime_dir),
            "limits": dataclasses.asdict(limits), "policy": self._policy_data,
        }
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        try:
            with self._lock:
                socket.send_fds(self._sock, [json.dumps(request).encode()], [stdin_r, stdout_w, stderr_w])
                reply, fds = self._receive()
        except BaseException:
            for fd in (stdin_w, stdout_r, stderr_r):
                os.close(fd)
            if cgroup is not None:
                cgroup.kill_and_remove()
            raise
        finally:
            for fd in (stdin_r, stdout_w, stderr_w):
                os.close(fd)
        if reply.get("type") != "spawned" or len(fds) != 1:
            for fd in [stdin_w, stdout_r, stderr_r, *fds]:
                os.close(fd)
            raise SandboxFault(f"the zygote could not start a bot: {reply.get('message', reply)}")
        return ZygoteBot(stdin_w, stdout_r, stderr_r, fds[0], cgroup)

    def _receive(self) -> tuple[dict, list[int]]:
        try:
            message, fds, _, _ = socket.recv_fds(self._sock, _MESSAGE_BYTES, 1)
        except (OSError, socket.timeout) as exc:
            raise SandboxFault(f"the zygote stopped answering: {exc}") from None
        if not message:
            raise SandboxFault(f"the zygote exited (status {self._process.poll() if self._process else None})")
        return json.loads(message), fds

    # cleanup

    def close(self) -> None:
        """Stop the zygote and remove the worker's cgroups; safe to repeat."""
        if self._sock is not None:
            self._sock.close()
            self._sock = None
        if self._process is not None:
            try:
                self._process.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self._process.kill()
                self._process.wait()
            self._process = None
        if self._cgroups is not None:
            self._cgroups.close()
            self._cgroups = None

    def describe(self) -> str:
        cgroup = self._cgroups.describe() if self._cgroups else "no cgroups (rlimits only)"
        seccomp = "seccomp" if self.hello.get("seccomp") else "no seccomp (libseccomp missing)"
        return f"{self.mode} sandbox: namespaces user/mnt/pid/net/ipc/uts/cgroup, {cgroup}, {seccomp}"


def _read_line(fd: int, timeout_s: float) -> bytes:
    import select

    data = b""
    while b"\n" not in data:
        readable, _, _ = select.select([fd], [], [], timeout_s)
        if not readable:
            break
        chunk = os.read(fd, 65536)
        if not chunk:
            break
        data += chunk
    return data.split(b"\n", 1)[0]


__all__ = ["ZygoteSandbox", "serve_forever"]
