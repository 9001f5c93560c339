"""The sandbox: untrusted bots lose their match and nothing else.

Theory of operation
-------------------
Every bot of every match runs in its own process tree, confined by the Linux kernel alone (Python and libc
and libseccomp are all it needs). The policy, what a bot may see and spend, is data in
:mod:`bots.sandbox.policy`: anything it does not list is denied.

*Starting bots cheaply.* Each worker slot owns one :class:`~bots.sandbox.zygote.ZygoteSandbox`: a Python
process (the zygote) started once, with an empty environment, that has already imported the SDK and the
allowed packages and has entered its own empty network namespace. The zygote forks a few *cells*: small
forkers that each live in the cgroups of one future bot (so no process ever has to be moved between
cgroups, which costs the kernel tens of milliseconds) and that, as root, find in the zygote's own mount
namespace the read-only runtime root every bot will enter, which the zygote copied into memory once when
it started. Each cell keeps one *shell* ready: a child already inside the bot's
new namespaces (as root, forked straight into its pid namespace as pid 1: one fork per bot), waiting, and
hands it to the host (its channel and a pidfd). Starting a bot sends the shell the request and the bot's
three pipes directly, so no other process has to wake up; the shell mounts the bot's code, drops its
privileges and serves the protocol with the SDK already in memory (:mod:`bots.sandbox.launch`). A reaper
thread takes the cell back once its bot is dead and asks it for its next shell. A bot therefore starts
for the price of a few mounts and a message, not an interpreter start. The ``fresh`` mode, which executes a new interpreter in
the same confinement, is the baseline ``bench`` measures against.

*What confines a bot.* Its shell sits in new mount, pid, ipc, uts and cgroup namespaces and in its cell's
own network namespace (a cell hosts one bot at a time and none outlives the next; as an ordinary user
each bot gets a network namespace of its own). Its root
holds only the interpreter, its standard library (with empty folders over its ``site-packages`` and the
parts no bot can use: its test suite, IDLE, tkinter), the allowed packages (under a neutral
``/opt/packages``) and, file by file, the shared libraries these load (:mod:`bots.sandbox.runtime_files`),
all read-only, its own code at ``/bot`` (read-only), a small private ``/tmp`` and four harmless device
nodes; it pivots into it and detaches the host's tree, so there is nothing else to read (no project, no
other package, no settings, no ``/proc`` or ``/sys``, no other bot). As root that root is a copy in
memory (a ramfs; the few large libraries bound from the host with their pages locked in memory:
:func:`~bots.sandbox.root_filesystem.build_memory_root`), and the pages of every file the zygote maps are locked
in memory too: a read, a lookup or a page fault in the runtime costs the same whoever did it before, so
the machine's page and dentry caches tell a bot nothing of the others. The bot is pid 1 of its namespace: it sees no other process and can
signal none, and when it dies the kernel kills everything it started. The network namespace is empty, not
even loopback is up. As root, the mounts are made in a mount namespace owned by the host, and the bot then
takes a host uid of its own (unique per bot, no groups), which leaves it no capability anywhere. Its cell's
cgroups cap memory, processes (and threads) and CPU; rlimits cap address space, CPU time, processes, file
size and open files as a second line. Finally it empties its capability sets, sets no_new_privs and its
parent-death signal and installs a seccomp allowlist (:data:`bots.sandbox.policy.ALLOWED_SYSCALLS`: what a
Python bot with numpy needs, by argument where it matters; everything else fails with EPERM, and a foreign
ABI kills the bot). The list leaves out every call through which two bots could meet on a kernel object
they both reach (the runtime's files are the same inodes for every bot): file locks, leases, inotify and
dnotify, file-backed shared mappings, futexes that are not process-private, page-cache residency, SysV
and POSIX IPC; the calls that answer with figures of the whole machine (``sysinfo``, ``statfs``); and
every prctl that changes something, so a bot can never clear its parent-death signal. The filter is
installed in two stacked halves (:func:`bots.sandbox.policy.stacked_seccomp_rules`): the large one, which
also lets the shell finish its work (:data:`bots.sandbox.policy.SHELL_SYSCALLS`: the mounts of ``/bot``
and ``/tmp``, the uid change, the capabilities, the prctls above), while the shell waits for its bot, and
a small one that refuses those calls again as the last step, since the kernel answers with the
stricter of two filters, together exactly the allowlist.
The last step verifies the result (no capabilities, no_new_privs, both halves of the filter, the parent-death signal, the
right uid, no host files, no route) and refuses to start the bot otherwise. As an ordinary user the same happens inside a user namespace
that maps only the user's own uid (so the runtime root is built per shell); cgroups are then skipped and
rlimits bound the bot.

*Failing closed.* The seccomp filter is required: where libseccomp cannot be loaded the zygote says so
in its hello and the sandbox does not start. If any step fails the bot never runs: the failed step is reported on the protocol
channel (or by the cell) and the referee raises :class:`SandboxFault`, a fault of ours that the worker
retries. When the sandbox starts, a probe bot proves the confinement works; if it cannot (no user
namespaces, say), :func:`get_sandbox` raises :class:`SandboxUnavailable` naming the failed step, unless the
caller explicitly allows the unsafe mode (:mod:`bots.sandbox.unsafe`), which is then announced loudly.

*Only on its own turn.* A bot that is not on move gets no CPU: the referee pauses each seat after its
``ready`` and whenever the move passes from it to another seat, and resumes it once its next ``act``
waits in its pipe (as far as the pipe takes it: the bot then wakes once, to its message), whose clock
starts once the resume has returned (:meth:`~bots.sandbox.process.BotProcess.pause`).
(A seat that decides twice in a row keeps running through the engine's step in between, which is shorter
than a pause and resume.) Where the cell has a cgroup freezer (v1 ``freezer.state``, v2
``cgroup.freeze``) pausing freezes the cell's group: every process and thread of the bot stops, and none
of them can wake another. That is what the sandbox uses as root: a pause and resume costs tens of
microseconds, a little more than SIGSTOP and SIGCONT (``manage.py bench``, ``pause.*``). As an ordinary user there
are no cgroups: the bot's first process is sent SIGSTOP and SIGCONT instead (through a pidfd), which
stops its threads but neither the processes it forked, which keep running (and could send their parent
SIGCONT), nor anything they do: the limit of that mode. The unsafe mode stops the bot's process group.
A bot paused while it waits on its stdin stops inside the read, which restarts untouched on resume.

*Time, logs, cleanup.* The referee (:mod:`bots.referee`) owns the clock and the log caps: it measures
every decision against the per-move limit and the match's time bank, keeps the head and tail of each log,
and at the end kills each bot through a pidfd (never a pid that could have been recycled) of the first
process of the bot's pid namespace, which the shell hands the host, so that the kernel kills everything the
bot started, thawing it if it was frozen (a frozen process acts on SIGKILL only once thawed). If the host itself dies, its zygote, the zygote's cells, their shells and the bots follow it
through their parent-death signals. The reaper then
waits until nothing of the bot is left in its cell's cgroups, killing stragglers, before the cell serves
another bot; a cell that cannot be cleaned is discarded with its cgroups. The worker's cgroups are its own
by a lock it holds, not by its pid (:mod:`bots.sandbox.cgroups`): it removes them whenever it stops
(:func:`close_sandboxes`, at exit and from the Celery pool process's shutdown), and a sandbox starting removes
those of workers that died, never a live one's, whatever pid namespace either lives in.
"""

from __future__ import annotations

import atexit
import logging
import os
import signal
import threading
from pathlib import Path

from bots.sandbox.errors import SandboxFault, SandboxUnavailable
from bots.sandbox.policy import Limits

__all__ = ["FORBIDDEN_ENV", "Limits", "SandboxFault", "SandboxUnavailable", "close_sandboxes", "get_sandbox",
           "remove_cgroups_on"]

#: Set in the environment of a process that must never start bots (the web tier): :func:`get_sandbox`
#: refuses there, whatever the caller allows, so that untrusted code can only ever run on the workers.
FORBIDDEN_ENV = "BOTS_SANDBOX_FORBIDDEN"

logger = logging.getLogger("bots.sandbox")

_lock = threading.Lock()
_shared: dict[tuple, object] = {}
_unavailable: dict[tuple, SandboxUnavailable] = {}
_owner_pid = os.getpid()


def get_sandbox(*, allow_unsafe: bool = False, cache_dir: str | Path | None = None, mode: str = "zygote"):
    """This process's shared sandbox for ``mode`` (one zygote per worker process), started on first use.

    Raises :class:`SandboxUnavailable` if isolation cannot be set up here, unless ``allow_unsafe``: then
    bots run unisolated (:class:`~bots.sandbox.unsafe.UnsafeSandbox`) with a loud warning. Where
    isolation works, ``allow_unsafe`` changes nothing. Where :data:`FORBIDDEN_ENV` is set it always
    raises, unsafe or not.
    """
    from bots.sandbox.unsafe import WARNING, UnsafeSandbox
    from bots.sandbox.zygote import ZygoteSandbox

    global _owner_pid
    if os.environ.get(FORBIDDEN_ENV, "").lower() in ("1", "true", "yes", "on"):
        raise SandboxUnavailable(f"this process may not run bots: {FORBIDDEN_ENV} is set (the web tier leaves "
                                 "every bot, even an upload's check, to the workers)")
    with _lock:
        if os.getpid() != _owner_pid:
            # A forked worker must not share its parent's zygote connection.
            _shared.clear()
            _unavailable.clear()
            _owner_pid = os.getpid()
        key = (mode, str(cache_dir))
        sandbox = _shared.get(key)
        if sandbox is not None and sandbox.alive():
            return sandbox
        if sandbox is not None:
            # The zygote died (killed from outside, say): start a new one rather than fail every match.
            logger.error("the bot sandbox's zygote died; starting a new one")
            sandbox.close()
            del _shared[key]
        if key not in _unavailable:
            try:
                sandbox = ZygoteSandbox(cache_dir, mode=mode).start()
                logger.info("bot sandbox ready: %s", sandbox.describe())
                _shared[key] = sandbox
                return sandbox
            except SandboxUnavailable as exc:
                _unavailable[key] = exc
        reason = _unavailable[key]
        if not allow_unsafe:
            raise SandboxUnavailable(f"{reason} (refusing to run uploaded bots without isolation; "
                                     "set BOTS_ALLOW_UNSAFE=1 only for local work)")
        unsafe_key = ("unsafe", str(cache_dir))
        if unsafe_key not in _shared:
            logger.warning("%s: %s", WARNING, reason)
            _shared[unsafe_key] = UnsafeSandbox(cache_dir)
        return _shared[unsafe_key]


def close_sandboxes() -> None:
    """Stop every shared sandbox of this process (their zygotes and cgroups)."""
    from bots.sandbox import cgroups

    with _lock:
        if os.getpid() != _owner_pid:
            return
        try:
            for sandbox in _shared.values():
                sandbox.close()
            _shared.clear()
        finally:
            # Whatever a sandbox that failed to close (or one of no one's sharing) left.
            cgroups.remove_worker_groups()


def remove_cgroups_on(signum: int) -> None:
    """Make ``signum``, where it would end this process without any clean-up (its default action), first
    remove the cgroups of this process's sandboxes (killing their bots), then end it as before.

    For a process that would die of a signal rather than exit (``manage.py play`` on SIGTERM; a Celery
    pool process needs none, billiard turns SIGTERM into an exit there). Python runs the handler in the
    main thread between two steps of whatever it interrupted, so it takes no lock
    (:func:`bots.sandbox.cgroups.remove_worker_groups`); the zygotes and cells follow their host as they
    always do. Main thread only; a signal that is ignored or already handled is left alone.
    """
    if signal.getsignal(signum) is not signal.SIG_DFL:
        return

    def remove_then_die(received: int, frame) -> None:
        from bots.sandbox import cgroups

        try:
            # The zygotes go first when nothing holds the sandboxes' lock (never waited for here): a
            # cgroup whose bot's cell a live zygote still serves cannot be removed.
            if _lock.acquire(blocking=False):
                try:
                    for sandbox in list(_shared.values()):
                        sandbox.close()
                finally:
                    _lock.release()
            cgroups.remove_worker_groups()
        finally:
            signal.signal(received, signal.SIG_DFL)
            signal.raise_signal(received)

    signal.signal(signum, remove_then_die)


atexit.register(close_sandboxes)
