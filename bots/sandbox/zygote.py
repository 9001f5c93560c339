"""The warm sandbox: one pre-started Python process per worker slot that forks one confined process per bot.

The host side (:class:`ZygoteSandbox`) starts the zygote once, with an empty environment, as
``python -I``, and talks to it over a Unix socket pair. The zygote imports the SDK and the allowed
packages, enters its own network, ipc and uts namespaces (when root) so that not even it can reach the
network, then waits. For each bot the host sends a request and the bot's three pipes (as file
descriptors); the zygote forks, and the child confines itself (:mod:`bots.sandbox.launch`) and becomes
the bot. The zygote answers with a pidfd of the child, which the host uses to kill it without any risk of
hitting a recycled pid. Starting a bot therefore costs a fork and a few mounts instead of an
interpreter start and imports.

This module is the host's side; the zygote's own is :mod:`bots.sandbox.zygote_server`.

``mode="fresh"`` keeps everything the same except that the confined child executes a new interpreter;
it is the baseline that ``bench`` compares the zygote with.
"""

from __future__ import annotations

import dataclasses
import itertools
import json
import logging
import os
import queue
import random
import secrets
import select
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

from bots.sandbox import launch, linux
from bots.sandbox.errors import SandboxFault, SandboxUnavailable
from bots.sandbox.policy import (
    CONTROL_MESSAGE_BYTES,
    Limits,
    Policy,
    default_policy,
)
from bots.sandbox.process import BotProcess
from bots.sandbox.unpacked_code import CodeCache
from bots.sandbox.zygote_server import send_message

logger = logging.getLogger("bots.sandbox")

_PROJECT_ROOT = str(Path(__file__).resolve().parents[2])
_BOOTSTRAP = ("import sys; sys.path.insert(0, {root!r}); "
              "from bots.sandbox.zygote_server import serve_forever; "
              "del sys.path[0]; serve_forever(int(sys.argv[1]), int(sys.argv[2]))")
_HELLO_TIMEOUT_S = 30
# Copying the runtime reads some 150 MB, from the disk on a cold machine.
_RUNTIME_TIMEOUT_S = 120
_REPLY_TIMEOUT_S = 10
_SDK_FILES = ("__init__.py", "sdk.py", "loader.py")
# Processes of ours in a cell's cgroups besides the bot's: the forker.
_CELL_PROCESSES = 1


def _shell_failure(shell: socket.socket, exc: OSError) -> str:
    """Why a shell died before its request: its last words on the channel, if it left any."""
    shell.setblocking(False)
    try:
        words = shell.recv(CONTROL_MESSAGE_BYTES)
    except OSError:
        words = b""
    return words.decode(errors="replace") or f"the prepared bot process is gone: {exc}"


def _namespace_init(shell: socket.socket, shell_pidfd: int) -> int:
    """A pidfd of the first process of the bot's pid namespace, which its shell sends first (as root the
    shell is that process; as an ordinary user its child). The bot is killed through it: the kernel then
    kills the whole namespace, whatever the bot did to its parent-death signal. Takes ``shell_pidfd``."""
    shell.settimeout(_REPLY_TIMEOUT_S)
    try:
        message, fds, _, _ = socket.recv_fds(shell, CONTROL_MESSAGE_BYTES, 1)
    except (TimeoutError, OSError) as exc:
        os.close(shell_pidfd)
        raise SandboxFault(f"the prepared bot process stopped answering: {exc}") from None
    os.close(shell_pidfd)
    if message == launch.INIT_MESSAGE and len(fds) == 1:
        return fds[0]
    for fd in fds:
        os.close(fd)
    raise SandboxFault(message.decode(errors="replace") or "the prepared bot process is gone")




@dataclasses.dataclass
class _Cell:
    """A forker of the zygote living in one bot's cgroups; it hosts one bot at a time. The host talks to
    it on ``channel``."""

    number: int
    pid: int
    pidfd: int
    cgroup: object
    channel: socket.socket

    def prepare(self) -> None:
        """Ask the cell for its next shell (it makes one by itself when it starts)."""
        try:
            self.channel.send(b"prepare")
        except OSError:
            pass  # the cell is gone; its next spawn reports it

    def take_shell(self) -> tuple[int, socket.socket, int]:
        """The cell's prepared shell: (pid, channel, pidfd), waiting for it if it is still being made;
        :class:`SandboxFault` if the cell cannot make one."""
        try:
            message, fds, _, _ = socket.recv_fds(self.channel, CONTROL_MESSAGE_BYTES, 2)
        except (TimeoutError, OSError) as exc:
            raise SandboxFault(f"the sandbox's cell stopped answering: {exc}") from None
        if not message:
            raise SandboxFault("the sandbox's cell exited")
        reply = json.loads(message)
        if reply.get("type") != "shell" or len(fds) != 2:
            for fd in fds:
                os.close(fd)
            raise SandboxFault(f"the sandbox could not prepare a bot: {reply.get('message', reply)}")
        return reply["pid"], socket.socket(fileno=fds[0]), fds[1]

    def remove(self) -> None:
        self.channel.close()
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        except ProcessLookupError:
            pass
        os.close(self.pidfd)
        if self.cgroup is not None:
            self.cgroup.kill_and_remove()


class ZygoteBot(BotProcess):
    """A bot forked by a cell: killed through its pidfd; its cell is handed back once it is empty.

    Paused by its cell's cgroup freezer where there is one (every process and thread of the bot; the
    cell's forker, idle meanwhile, with them), else by SIGSTOP of the namespace's first process, whose
    pidfd the host holds in every mode (see :func:`_namespace_init`).
    """

    def __init__(self, to_bot: int, from_bot: int, log: int, pidfd: int, cell: _Cell, release,
                 status: int, *, pause_mechanism: str = "none") -> None:
        super().__init__(to_bot, from_bot, log, status)
        self.pidfd = pidfd
        self.cell = cell
        self._release = release
        cgroup = cell.cgroup
        self._oom_baseline = cgroup.oom_kills() if cgroup is not None else 0
        self._oom = False
        self.pause_mechanism = pause_mechanism
        self._paused = False

    def pause(self) -> None:
        if self._paused or self.pidfd < 0 or self.pause_mechanism == "none":
            return
        self._paused = True
        if self.pause_mechanism == "freezer":
            try:
                self.cell.cgroup.freeze()
            except OSError as exc:
                raise SandboxFault(f"the sandbox could not freeze a bot: {exc}") from None
        else:
            self._signal_first(signal.SIGSTOP)

    def resume(self) -> None:
        if not self._paused or self.pidfd < 0:
            return
        if self.pause_mechanism == "freezer":
            try:
                self.cell.cgroup.thaw()
            except OSError as exc:
                raise SandboxFault(f"the sandbox could not thaw a bot: {exc}") from None
        else:
            self._signal_first(signal.SIGCONT)
        self._paused = False

    def _signal_first(self, signum: int) -> None:
        """Signal the first process of the bot's pid namespace; one that is gone is not an error."""
        try:
            signal.pidfd_send_signal(self.pidfd, signum)
        except ProcessLookupError:
            pass

    def kill(self) -> None:
        if self.pidfd < 0:
            return
        try:
            signal.pidfd_send_signal(self.pidfd, signal.SIGKILL)
        except ProcessLookupError:
            pass
        # A frozen bot acts on its SIGKILL only once thawed: the reaper thaws its cell before it waits for
        # it (see _reap_forever). Not here: on cgroup v1 thawing a group whose task has a fatal signal
        # pending can take milliseconds, which the match (and the next one on this worker) would wait out.
        # A stopped process dies of SIGKILL as it is: no SIGCONT is needed.
        self._paused = False
        self.memory_exceeded()
        pidfd, self.pidfd = self.pidfd, -1
        self._release(self.cell, pidfd)

    def memory_exceeded(self) -> bool:
        """Whether the OOM killer struck in the bot's cgroups (read while the bot still owns them)."""
        cgroup = self.cell.cgroup
        if not self._oom and cgroup is not None and self.pidfd >= 0:
            self._oom = cgroup.oom_kills() > self._oom_baseline
        return self._oom


class ZygoteSandbox:
    """One worker slot's sandbox: init (:meth:`start`), run (:meth:`spawn`), cleanup (:meth:`close`).

    Safe to share between threads; spawns are serialised, bots then run independently.
    """

    unsafe = False

    def __init__(self, cache_dir: str | Path | None = None, *, mode: str = "zygote",
                 policy: Policy | None = None, pool_size: int = 6, pause: str = "auto") -> None:
        """``pause`` chooses how bots are stopped while not on move (:meth:`BotProcess.pause`):
        ``"freezer"``, ``"sigstop"``, ``"none"``, or ``"auto"``, the freezer where the cgroups have one
        and SIGSTOP otherwise."""
        if mode not in ("zygote", "fresh"):
            raise ValueError(f"unknown sandbox mode {mode!r}")
        if pause not in ("auto", "freezer", "sigstop", "none"):
            raise ValueError(f"unknown pause mechanism {pause!r}")
        self.mode = mode
        self._pause_wanted = pause
        #: How this sandbox's bots are paused between their turns, once started.
        self.pause_mechanism = "none"
        self.policy = policy or default_policy()
        self._policy_data = dataclasses.asdict(self.policy)
        self.cache = CodeCache(cache_dir)
        self._lock = threading.Lock()
        self._idle = threading.Condition(self._lock)
        self._reaping: queue.SimpleQueue = queue.SimpleQueue()
        self._reaper: threading.Thread | None = None
        self._sock: socket.socket | None = None
        self._process: subprocess.Popen | None = None
        self._cgroups = None
        self._uids = itertools.count(random.SystemRandom().randrange(self.policy.host_uid_span))
        #: Host uids given to this sandbox's bots so far (as root; checked by the tests for leftovers).
        self.uids_used: set[int] = set()
        self._cell_numbers = itertools.count(1)
        self._free: list[_Cell] = []
        self._busy: set[int] = set()
        self._limits_seen: dict[Limits, dict] = {}
        self.pool_size = pool_size
        self.hello: dict = {}
        #: What the zygote's runtime root cost: ``in_memory`` (as root), then ``files``, ``bytes``,
        #: ``memory_bytes`` and ``seconds`` of the copy and ``locked_bytes`` of its mapped files.
        self.runtime: dict = {}

    # init

    def start(self) -> ZygoteSandbox:
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
        can_freeze = self._cgroups is not None and self._cgroups.can_freeze
        if self._pause_wanted == "freezer" and not can_freeze:
            self.close()
            raise SandboxUnavailable("the cgroup freezer is not available here")
        if self._pause_wanted == "auto":
            self.pause_mechanism = "freezer" if can_freeze else "sigstop"
        else:
            self.pause_mechanism = self._pause_wanted
        parent, child = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self._process = self._fork_zygote(
                [sys.executable, "-I", "-c", _BOOTSTRAP.format(root=_PROJECT_ROOT), str(child.fileno()),
                 str(os.getpid())], child.fileno())
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
        if not hello.get("seccomp"):
            self.close()
            raise SandboxUnavailable(f"isolation cannot be set up on this machine: "
                                     f"{hello.get('seccomp_error') or launch.NO_SECCOMP}")
        self._prepare_runtime()
        self._sock.settimeout(_REPLY_TIMEOUT_S)
        self._reaper = threading.Thread(target=self._reap_forever, name="sandbox-reaper", daemon=True)
        self._reaper.start()
        with self._lock:
            self._free = [self._new_cell() for _ in range(self.pool_size)]
        self._self_test()
        return self

    def _prepare_runtime(self) -> None:
        """Have the zygote copy the runtime every bot enters into memory (as root), once for all its
        cells; fail closed if it cannot."""
        self._sock.settimeout(_RUNTIME_TIMEOUT_S)
        send_message(self._sock, {"type": "runtime", "mode": self.mode, "runtime_dir": str(self._runtime_dir),
                           "root_mount_point": str(self._root_mount_point), "policy": self._policy_data})
        try:
            reply, _ = self._receive()
        except SandboxFault as exc:
            self.close()
            raise SandboxUnavailable(f"the sandbox's zygote did not prepare the runtime: {exc}") from None
        if reply.get("type") != "runtime_ready":
            self.close()
            raise SandboxUnavailable(f"isolation cannot be set up on this machine: {reply.get('message', reply)}")
        self.runtime = reply

    def _fork_zygote(self, argv: list[str], channel: int) -> subprocess.Popen:
        """Start the zygote from a thread of the sandbox's own, alive until :meth:`close`: the kernel sends
        the zygote its parent-death signal when the *thread* that forked it ends, and the thread that
        starts a sandbox may be a short-lived one."""
        started: queue.SimpleQueue = queue.SimpleQueue()
        self._zygote_parent_done = threading.Event()

        def parent() -> None:
            try:
                started.put(subprocess.Popen(argv, pass_fds=[channel], env={"OPENBLAS_NUM_THREADS": "1"},
                                             cwd="/", stdin=subprocess.DEVNULL))
            except BaseException as exc:  # noqa: BLE001 - handed to start(), which raises it
                started.put(exc)
                return
            self._zygote_parent_done.wait()

        self._zygote_parent = threading.Thread(target=parent, name="sandbox-zygote-parent", daemon=True)
        self._zygote_parent.start()
        process = started.get()
        if isinstance(process, BaseException):
            raise process
        return process

    def _write_runtime(self) -> Path:
        """A folder holding only the SDK, mounted at /sdk for the fresh-interpreter mode; also the sample
        bot every shell loads while it waits, cached like any bot (so with its bytecode)."""
        self._sample_bot = self.cache.path_for(launch.SAMPLE_BOT.encode())
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
        try:
            bot = self.spawn(probe, Limits())
        except SandboxFault as exc:
            self.close()
            raise SandboxUnavailable(f"isolation cannot be set up on this machine: {exc}") from None
        try:
            os.set_blocking(bot.to_bot, True)
            try:
                os.write(bot.to_bot, b'{"type":"start","game":"probe","seat":0,"players":1,"options":{}}\n')
            except BrokenPipeError:
                pass  # the child gave up before reading; its reason is on the status pipe
            reply = _read_line(bot.from_bot, _HELLO_TIMEOUT_S)
            failure = bot.sandbox_failure() if b'"ready"' not in reply else None
        finally:
            bot.close()
        if failure or b'"ready"' not in reply:
            self.close()
            detail = failure or reply.decode(errors="replace")[:300] or "no answer"
            raise SandboxUnavailable(f"isolation cannot be set up on this machine: {detail}")

    # run

    def spawn(self, code: bytes, limits: Limits, *, report_steps: bool = False) -> BotProcess:
        """Start one confined bot for ``code``; :class:`SandboxFault` if the sandbox cannot.

        ``report_steps`` (for ``bench``): the bot's shell writes when each step of its start ended on the
        status pipe (:data:`bots.sandbox.launch.STEPS_PREFIX`, then JSON), and the bot's ``spawn_marks``
        hold the host's own steps; see :func:`bots.bench.start_breakdown`."""
        if self._sock is None:
            raise SandboxFault("the sandbox is not started")
        marks = [("host.begin", time.monotonic())]
        bot_dir = self.cache.path_for(code)
        uid = self.policy.host_uid_base + next(self._uids) % self.policy.host_uid_span
        self.uids_used.add(uid)
        request = {
            "mode": self.mode, "bot_dir": str(bot_dir), "host_uid": uid, "host_gid": uid,
            "root_mount_point": str(self._root_mount_point), "runtime_dir": str(self._runtime_dir),
            "limits": self._limits_data(limits),
        }
        if report_steps:
            request["report_steps"] = True
        stdin_r, stdin_w = os.pipe()
        stdout_r, stdout_w = os.pipe()
        stderr_r, stderr_w = os.pipe()
        status_r, status_w = os.pipe()
        code_fd = -1
        try:
            code_fd = os.open(bot_dir, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
            with self._lock:
                # The longest-idle cell has had the most time to prepare its shell.
                cell = self._free.pop(0) if self._free else self._new_cell()
                self._busy.add(cell.number)
            try:
                if cell.cgroup is not None:
                    cell.cgroup.apply(limits, extra_processes=_CELL_PROCESSES,
                                      headroom_mb=self.policy.kernel_headroom_mb)
                marks.append(("host.cell_and_limits", time.monotonic()))
                _, shell, shell_pidfd = cell.take_shell()
                marks.append(("host.take_shell", time.monotonic()))
                try:
                    pidfd = _namespace_init(shell, shell_pidfd)
                    marks.append(("host.init_pidfd", time.monotonic()))
                    socket.send_fds(shell, [json.dumps(request).encode()],
                                    [stdin_r, stdout_w, stderr_w, status_w, code_fd])
                    marks.append(("host.send_request", time.monotonic()))
                except OSError as exc:
                    os.close(pidfd)
                    raise SandboxFault(_shell_failure(shell, exc)) from None
                finally:
                    shell.close()
            except BaseException:
                self._give_up(cell)
                raise
        except BaseException:
            for fd in (stdin_w, stdout_r, stderr_r, status_r):
                os.close(fd)
            raise
        finally:
            for fd in (stdin_r, stdout_w, stderr_w, status_w, code_fd):
                if fd >= 0:
                    os.close(fd)
        bot = ZygoteBot(stdin_w, stdout_r, stderr_r, pidfd, cell, self._release, status_r,
                        pause_mechanism=self.pause_mechanism)
        marks.append(("host.handle", time.monotonic()))
        bot.spawn_marks = marks
        return bot

    def _limits_data(self, limits: Limits) -> dict:
        """``limits`` as the request's plain data, made once per value: ``dataclasses.asdict`` is slow on
        a start's path, and the same few limits come back match after match."""
        data = self._limits_seen.get(limits)
        if data is None:
            if len(self._limits_seen) >= 64:
                self._limits_seen.clear()
            data = self._limits_seen[limits] = dataclasses.asdict(limits)
        return data

    def _new_cell(self) -> _Cell:
        """A new cell in fresh cgroups (lock held)."""
        cgroup = self._cgroups.create() if self._cgroups is not None else None
        number = next(self._cell_numbers)
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            try:
                socket.send_fds(self._sock, [json.dumps({
                    "type": "cell", "cell": number, "cgroup_procs": cgroup.procs_files if cgroup else [],
                    "mode": self.mode, "runtime_dir": str(self._runtime_dir),
                    "root_mount_point": str(self._root_mount_point), "policy": self._policy_data,
                    "sample_bot": str(self._sample_bot),
                }).encode()], [theirs.fileno()])
            finally:
                theirs.close()
            reply, fds = self._receive()
            if reply.get("type") != "cell_ready" or len(fds) != 1:
                for fd in fds:
                    os.close(fd)
                raise SandboxFault(f"the zygote could not fork a cell: {reply.get('message', reply)}")
        except BaseException:
            ours.close()
            if cgroup is not None:
                cgroup.kill_and_remove()
            raise
        ours.settimeout(_REPLY_TIMEOUT_S)
        return _Cell(number, reply["pid"], fds[0], cgroup, ours)

    def _release(self, cell: _Cell, pidfd: int) -> None:
        """Hand a cell whose bot was just killed (``pidfd``, which the reaper closes) to the reaper, so
        that the match need not wait for it."""
        self._reaping.put((cell, pidfd))

    def _reap_forever(self) -> None:
        """Take cells back once their bots are dead: no bot process may be left in their cgroups."""
        while (item := self._reaping.get()) is not None:
            cell, pidfd = item
            if cell.cgroup is not None and cell.cgroup.frozen:
                # Never wait on a frozen cell: its bot would not die of its SIGKILL.
                try:
                    cell.cgroup.thaw()
                except OSError:
                    pass  # wait_until_no_bot tries again, and discards the cell if it cannot
            # Sleeping in select until the bot's first process is gone keeps this thread off the GIL
            # while the referee plays; its namespace's other processes die with it.
            select.select([pidfd], [], [], 2.0)
            os.close(pidfd)
            clean = cell.cgroup is None or cell.cgroup.wait_until_no_bot(cell.pid)
            with self._idle:
                if not clean:
                    # Either something of the bot would not die or the OOM killer took the cell itself.
                    logger.error("cell %s was not left clean by its bot; it is discarded", cell.number)
                    cell.remove()
                elif self._sock is None or len(self._free) >= self.pool_size:
                    cell.remove()
                else:
                    cell.prepare()
                    self._free.append(cell)
                self._busy.discard(cell.number)
                self._idle.notify_all()

    def wait_idle(self, timeout_s: float = 5.0) -> bool:
        """Wait until every bot handed out has been killed and its cell cleaned; False on timeout."""
        with self._idle:
            return self._idle.wait_for(lambda: not self._busy, timeout_s)

    def _give_up(self, cell: _Cell) -> None:
        """Discard a cell that failed to start its bot."""
        with self._idle:
            self._busy.discard(cell.number)
            self._idle.notify_all()
        cell.remove()

    def _receive(self) -> tuple[dict, list[int]]:
        try:
            message, fds, _, _ = socket.recv_fds(self._sock, CONTROL_MESSAGE_BYTES, 1)
        except (TimeoutError, OSError) as exc:
            raise SandboxFault(f"the zygote stopped answering: {exc}") from None
        if not message:
            raise SandboxFault(f"the zygote exited (status {self._process.poll() if self._process else None})")
        return json.loads(message), fds

    # cleanup

    def close(self) -> None:
        """Stop the zygote, its cells and the worker's cgroups; safe to repeat."""
        if self._reaper is not None:
            self.wait_idle()
            self._reaping.put(None)
            self._reaper.join()
            self._reaper = None
        with self._lock:
            free, self._free = self._free, []
            for cell in free:
                cell.remove()
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
            self._zygote_parent_done.set()
            self._zygote_parent.join()
        if self._cgroups is not None:
            self._cgroups.close()
            self._cgroups = None

    def alive(self) -> bool:
        """Whether the zygote is still there to start bots."""
        return self._sock is not None and self._process is not None and self._process.poll() is None

    def leftovers(self) -> list[str]:
        """Bots still running, processes other than the forkers inside idle cells and idle cells left
        frozen (none after a match)."""
        self.wait_idle()
        with self._lock:
            found = [f"cell {number} still busy" for number in sorted(self._busy)]
            for cell in self._free:
                if cell.cgroup is not None:
                    found += [f"pid {pid} in cell {cell.number}" for pid in cell.cgroup.bot_pids()]
                    if cell.cgroup.frozen_on_disk():
                        found.append(f"cell {cell.number} is frozen")
            return found

    def describe(self) -> str:
        cgroup = self._cgroups.describe() if self._cgroups else "no cgroups (rlimits only)"
        seccomp = "seccomp allowlist" if self.hello.get("seccomp") else "no seccomp (libseccomp missing)"
        if linux.privileged():
            identity = "namespaces mnt/pid/net/ipc/uts/cgroup, a host uid per bot"
        else:
            identity = "namespaces user/mnt/pid/net/ipc/uts/cgroup"
        if self.runtime.get("in_memory"):
            runtime = (f"runtime in memory ({self.runtime['memory_bytes'] / 2**20:.0f} MiB copied and "
                       f"{(self.runtime['bound_bytes'] + self.runtime['locked_bytes']) / 2**20:.0f} MiB of the "
                       f"host's files locked, in {self.runtime['seconds']:.2f} s)")
        else:
            runtime = "runtime bound from the host's files"
        return (f"{self.mode} sandbox: {identity}, {cgroup}, {seccomp}, {runtime}, "
                f"paused off turn: {self.pause_mechanism}")


def _read_line(fd: int, timeout_s: float) -> bytes:
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


__all__ = ["ZygoteSandbox"]
