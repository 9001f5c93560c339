"""The sandbox: untrusted bots lose their match and nothing else.

Theory of operation
-------------------
Every bot of every match runs in its own process tree, confined by the Linux kernel alone (Python and libc
are all it needs; libseccomp is used when installed). The policy, what a bot may see and spend, is data in
:mod:`bots.sandbox.policy`: anything it does not list is denied.

*Starting bots cheaply.* Each worker slot owns one :class:`~bots.sandbox.zygote.ZygoteSandbox`: a Python
process started once, with an empty environment, that has already imported the SDK and the allowed
packages and has entered its own empty network namespace. For each bot the worker hands it the bot's three
pipes; the zygote forks, and the child confines itself before any of the bot's code is read
(:mod:`bots.sandbox.launch`). A bot therefore starts for the price of a fork and a few mounts, not an
interpreter start. The ``fresh`` mode, which executes a new interpreter in the same confinement, is kept as
the baseline that ``bench`` measures against.

*What confines a bot.* As root the child builds, in a new mount namespace, a root holding only the
Python runtime, the allowed packages and the bot's own code, all read-only, plus a small private ``/tmp``
and four harmless device nodes; it pivots into it and detaches the host's tree, so there is nothing else to
read (no project, no settings, no ``/proc``, no other bot). It then takes a host uid of its own (unique
per bot), enters new user, pid, network, ipc, uts and cgroup namespaces, and forks the first process of the
new pid namespace: the bot sees no other process and can signal none, and when that process dies the
kernel kills everything the bot started. The network namespace is empty, not even loopback is up. The
child's cgroups cap memory, processes and CPU; rlimits cap address space, CPU time, processes, file size
and open files as a second line. Finally it drops every capability, sets no_new_privs and installs a
seccomp filter refusing namespace, mount, tracing and kernel-administration calls and every socket family
but Unix. The last step verifies the result (no capabilities, no_new_privs, the right uid, no host files, no
route) and refuses to start the bot otherwise. As an ordinary user the same happens inside a user namespace
that maps only the user's own uid; cgroups are then skipped and rlimits bound the bot.

*Failing closed.* If any step fails the bot never runs: the child reports the failed step on the protocol
channel and the referee raises :class:`SandboxFault`, a fault of ours that the worker retries. When the
sandbox starts, a probe bot proves the confinement works; if it cannot (no user namespaces, say),
:func:`get_sandbox` raises :class:`SandboxUnavailable` naming the missing capability, unless the caller
explicitly allows the unsafe mode (:mod:`bots.sandbox.unsafe`), which is then announced loudly.

*Time, logs, cleanup.* The referee (:mod:`bots.referee`) owns the clock and the log caps: it measures
every decision against the per-move limit and the match's time bank, keeps the head and tail of each log,
and at the end kills each bot through a pidfd (never a pid that could have been recycled) and removes its
cgroups after killing anything still in them.
"""

from __future__ import annotations

import atexit
import logging
import os
import threading
from pathlib import Path

from bots.sandbox.errors import SandboxFault, SandboxUnavailable
from bots.sandbox.policy import Limits

__all__ = ["Limits", "SandboxFault", "SandboxUnavailable", "close_all", "get_sandbox"]

logger = logging.getLogger("bots.sandbox")

_lock = threading.Lock()
_shared: dict[tuple, object] = {}
_unavailable: dict[tuple, SandboxUnavailable] = {}
_owner_pid = os.getpid()


def get_sandbox(*, allow_unsafe: bool = False, cache_dir: str | Path | None = None, mode: str = "zygote"):
    """This process's shared sandbox for ``mode`` (one zygote per worker process), started on first use.

    Raises :class:`SandboxUnavailable` if isolation cannot be set up here, unless ``allow_unsafe``: then
    bots run unisolated (:class:`~bots.sandbox.unsafe.UnsafeSandbox`) with a loud warning. Where
    isolation works, ``allow_unsafe`` changes nothing.
    """
    from bots.sandbox.unsafe import WARNING, UnsafeSandbox
    from bots.sandbox.zygote import ZygoteSandbox

    global _owner_pid
    with _lock:
        if os.getpid() != _owner_pid:
            # A forked worker must not share its parent's zygote connection.
            _shared.clear()
            _unavailable.clear()
            _owner_pid = os.getpid()
        key = (mode, str(cache_dir))
        sandbox = _shared.get(key)
        if sandbox is not None:
            return sandbox
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


def close_all() -> None:
    """Stop every shared sandbox of this process (their zygotes and cgroups)."""
    with _lock:
        if os.getpid() != _owner_pid:
            return
        for sandbox in _shared.values():
            sandbox.close()
        _shared.clear()


atexit.register(close_all)
