"""Confine a process and turn it into one bot, in two halves: a *shell* made ahead of need, then the bot.

A cell (see :mod:`bots.sandbox.zygote`) keeps one shell ready. :func:`fork_shell` and
:func:`become_shell` do everything that does not depend on the bot:

1. as root, the cell forks the shell straight into a new pid namespace, whose pid 1 it is (when it
   dies, every process the bot started dies); the shell enters new mount, ipc, uts and cgroup
   namespaces and the read-only runtime root the zygote copied into memory
   (:func:`~bots.sandbox.root_filesystem.build_memory_root`) is already there. As an ordinary user the
   shell makes all of them inside a new user namespace that maps only that user's uid, builds the runtime
   root from the host's files (:func:`~bots.sandbox.root_filesystem.build_template`), and forks the pid
   namespace's first process itself (the parent only waits, and takes the child with it when it dies,
   through the child's parent-death signal);
2. the pid namespace's first process sends the host a pidfd of itself on its channel: the host kills
   the bot through it, which kills the whole namespace, in both paths. It drops the capability
   bounding set (as root the cell has done it once for all its shells), loads
   a sample bot once (so that the pages a start writes are copied now rather than on the bot's clock),
   and the start's own steps once on stand-ins (:func:`_warm_up_start`), then pivots into the runtime
   root and detaches the host's tree (which makes the kernel wait for an RCU grace period: too slow for
   a start's path), mounts the bot's private ``/tmp`` (the default size), installs the first half of
   the seccomp filter (:class:`SeccompPrograms`) and waits for a request, the bot's three pipes and a
   descriptor of the bot's folder in the code cache, the only door out of the root it is given.

When they arrive it finishes, as a straight sequence of steps each of which either succeeds or ends the
process with the failed step's name written to the status pipe (descriptor 3, closed before any code of
the bot runs), so that a half-confined bot never runs:

3. copy the bot's code from that descriptor into the tmpfs mounted ahead at ``/bot`` (read-only from
   then on), close the descriptor, and resize ``/tmp`` if the bot's limits give it another size;
4. set rlimits; as root, take the bot's own unprivileged host uid and gid (no groups); drop every
   capability, set no_new_privs, the parent-death signal and the second half of the seccomp filter
   (required: without libseccomp no bot starts); verify all of it;
5. serve the protocol: from the already-loaded SDK (zygote mode) or by executing a fresh interpreter
   (the baseline the zygote is measured against), in the environment (the policy's, nothing else),
   import path and working directory (``/bot``) the shell set while it waited, and (zygote mode) on the
   SDK's streams it made then (:func:`bots.sdk.prepare_streams`).

What the bot's files are, and how its root, code folder and /tmp are made, is
:mod:`bots.sandbox.root_filesystem`'s; this module is the shell's life, from its fork to the bot.
"""

from __future__ import annotations

import errno
import io
import json
import os
import resource
import shutil
import signal
import socket
import sys
import time
import traceback
from dataclasses import dataclass

from bots.sandbox import linux
from bots.sandbox.policy import CONTROL_MESSAGE_BYTES, Policy
from bots.sandbox.root_filesystem import (
    DEFAULT_TMP_MB,
    build_template,
    copy_code,
    copy_tree,
    mount_code_folder,
    mount_tmp,
    pivot_into,
    runtime_mounts,
)

EXIT_SANDBOX_ERROR = 70
NO_SECCOMP = ("libseccomp cannot be loaded, and bots never run without their seccomp filter (install it: "
              "Debian/Ubuntu package libseccomp2, Fedora libseccomp)")
_OTHER_NAMESPACES = (linux.CLONE_NEWPID | linux.CLONE_NEWNET | linux.CLONE_NEWIPC | linux.CLONE_NEWUTS
                     | linux.CLONE_NEWCGROUP)
_FRESH_BOOTSTRAP = ("import sys; sys.path[:0] = {paths!r}; from bots.sdk import main; main([{bot!r}])")


class _Step:
    """Names the step in progress, so that a failure says which capability is missing."""

    name = "start"


# The status pipe: the sandbox's own channel to the host, closed before any code of the bot runs, so that
# a bot can never pass its own failures off as the sandbox's.
STATUS_FD = 3
# The bot's folder in the host's code cache, which the shell copies from (it is in the runtime root by
# then, the host's tree detached): a door out of the root, closed as soon as the copy is made.
CODE_FD = 4


def _fail(step: str, exc: BaseException) -> None:
    try:
        os.write(STATUS_FD, f"sandbox setup failed at '{step}': {exc}".encode())
    except OSError:
        pass
    os._exit(EXIT_SANDBOX_ERROR)


#: (step, ``time.monotonic()`` when it ended) of this shell, from the cell's fork on: reported to the host
#: only when a request asks (``report_steps``, for ``bench``), on the status pipe before it is closed. The
#: host and the shell read the same clock (no time namespace), so the host can place them among its own.
_marks: list[tuple[str, float]] = []


def _mark(step: str) -> None:
    _marks.append((step, time.monotonic()))


def fork_shell(pid_namespace: int | None) -> int:
    """Fork the next shell; 0 in the shell, its pid in the cell. The cell is single-threaded.

    As root (``pid_namespace`` is a descriptor of the cell's own pid namespace) the shell is born as pid
    1 of a new pid namespace: the cell asks for one for its next child only, then goes back to its own,
    so a bot is one process, one fork and one exit. Forking a process the size of the zygote, and tearing
    it down, is the largest cost of a bot's start. As an ordinary user the shell makes its namespaces
    itself (:func:`become_shell`).
    """
    _marks[:] = [("cell.before_fork", time.monotonic())]
    if pid_namespace is None:
        return os.fork()
    linux.unshare(linux.CLONE_NEWPID)
    pid = -1
    try:
        pid = os.fork()
    finally:
        if pid != 0:
            linux.setns(pid_namespace, linux.CLONE_NEWPID)
    return pid


@dataclass(frozen=True)
class SeccompPrograms:
    """A bot's seccomp filter, compiled in its two stacked halves
    (:func:`bots.sandbox.policy.stacked_seccomp_rules`): the shell installs ``shell`` while it waits for
    its bot, and ``bot`` once the bot's credentials are set, just before the bot's code runs."""

    shell: bytes
    bot: bytes


def become_shell(channel: socket.socket, setup: dict, policy: Policy, seccomp: SeccompPrograms | None,
                 template_ready: bool, as_root: bool) -> None:
    """Prepare the namespaces of one future bot, wait for its request on ``channel``, become it.

    Runs in the child of :func:`fork_shell`; ``as_root`` tells whether the cell is privileged (see
    :func:`bots.sandbox.linux.privileged`), in which case it has emptied the capability bounding set
    already. Never returns. A failure before the request arrives is sent
    back on ``channel`` before the process ends; the host reports it when it hands the shell a bot, as a
    sandbox fault.
    """
    step = _Step()
    _mark("shell.fork")
    try:
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
        if as_root:
            # As root the mounts are made with real privileges in a mount namespace owned by the host's
            # user namespace, where the bot will hold no capability: it can never change them. The bot
            # then runs under a host uid of its own, so no user namespace is needed.
            if os.getpid() != 1:
                step.name = "start in a new pid namespace"
                raise PermissionError("the shell was not forked into a pid namespace of its own")
            step.name = "enter the runtime root"
            if not template_ready:
                # As root the runtime root is the zygote's copy in memory, never the host's files.
                raise PermissionError("the cell has no runtime root in memory")
            step.name = "create namespaces"
            # The cell already has a network namespace of its own, which its bots (one at a time, none
            # outliving the next) share: creating and tearing one down per bot is costly. The runtime
            # root is in the mount namespace this one copies.
            linux.unshare(linux.CLONE_NEWNS | (_OTHER_NAMESPACES & ~linux.CLONE_NEWPID & ~linux.CLONE_NEWNET))
        else:
            # An ordinary user gets the same namespaces inside a user namespace mapping only their uid.
            outer_uid, outer_gid = os.geteuid(), os.getegid()
            if outer_uid == 0 and not setup["cgroup_procs"]:
                # The kernel never applies RLIMIT_NPROC to root, so only a pids cgroup bounds a fork bomb.
                step.name = "bound the bot's processes"
                raise PermissionError("bots would run as root with no pids cgroup to bound their processes")
            step.name = "create namespaces (user namespaces must be enabled)"
            linux.unshare(linux.CLONE_NEWUSER | linux.CLONE_NEWNS | _OTHER_NAMESPACES)
            step.name = "map the bot's uid"
            proc_self = os.open("/proc/self", os.O_PATH | os.O_DIRECTORY)
            _map_ids(proc_self, policy.inner_id, outer_uid, outer_gid)
            os.close(proc_self)
            step.name = "build the runtime root"
            linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)
            build_template(setup["root_mount_point"],
                           runtime_mounts(setup["mode"], setup["runtime_dir"], policy), policy)
            step.name = "fork the pid namespace's first process"
            child = os.fork()
            if child:
                channel.close()
                _wait_and_exit(child)
        step.name = "set the hostname"
        linux.sethostname("bot")
        linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
        _mark("shell.namespaces")
        step.name = "hand the host the pid namespace's init"
        _announce_init(channel)
        _mark("shell.announce_init")
        # Everything that does not depend on the bot is done now, while no bot waits for it.
        if not as_root:
            step.name = "drop the capability bounding set"
            # Emptying it limits only what a later execve could grant, so the mounts still to come keep
            # the capabilities they need; it needs CAP_SETPCAP, which the bot's uid change takes away.
            linux.drop_bounding_set()
        step.name = "mount the bot's code folder"
        mount_code_folder(setup["root_mount_point"] + policy.bot_dir, policy)
        _mark("shell.mount_code_folder")
        step.name = "measure address space"
        base_vm = _vm_size_bytes()
        _forget_internals()
        step.name = "warm up on the sample bot"
        _warm_up(setup["sample_bot"])
        _warm_up_start(setup["sample_bot"], setup["root_mount_point"] + policy.bot_dir, policy)
        _mark("shell.warm_up")
        step.name = "enter the runtime root"
        # Ahead of need too: detaching the host's tree makes the kernel wait for an RCU grace period,
        # the largest single cost of a start. The bot's code comes as a descriptor of its folder.
        pivot_into(setup["root_mount_point"])
        _mark("shell.pivot_root")
        step.name = "mount the bot's /tmp"
        mount_tmp(policy, DEFAULT_TMP_MB)
        _mark("shell.tmp")
        step.name = "prepare the bot's interpreter"
        _prepare_interpreter(policy)
        _mark("shell.interpreter")
        streams = None
        if setup["mode"] != "fresh":
            step.name = "prepare the protocol's streams"
            from bots.sdk import prepare_streams

            streams = prepare_streams()
            _mark("shell.streams")
        if seccomp is not None:
            # The costly half of the filter, off the start's path. From here on the shell can do only
            # what a bot may, and what is left of its own work (:data:`~bots.sandbox.policy.SHELL_SYSCALLS`).
            step.name = "install the shell's seccomp filter"
            linux.load_seccomp_program(seccomp.shell)
            _mark("shell.seccomp")
        step.name = "wait for the bot"
        message, fds, _, _ = socket.recv_fds(channel, CONTROL_MESSAGE_BYTES, 5)
        _mark("bot.request_received")
    except BaseException as exc:  # noqa: BLE001 - told to the cell, which reports it with the next spawn
        try:
            channel.send(f"sandbox setup failed at '{step.name}': {exc}".encode())
        except OSError:
            pass
        os._exit(EXIT_SANDBOX_ERROR)
    if not message or len(fds) != 5:
        os._exit(0)
    channel.close()
    # Received in ascending order, so none is overwritten before it is moved.
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
    # All but the reader the streams made ahead are over (the protocol's input is moved there).
    keep = streams.reader_fd if streams is not None else CODE_FD
    os.closerange(CODE_FD + 1, keep)
    os.closerange(keep + 1, 1 << 16)
    _mark("bot.descriptors")
    try:
        _finish(json.loads(message), policy, seccomp, as_root, step, base_vm, streams)
    except BaseException as exc:  # noqa: BLE001 - any failure here is the sandbox's, reported as such
        _fail(step.name, exc if str(exc) else traceback.format_exc(limit=1))
    os._exit(EXIT_SANDBOX_ERROR)


#: What starts the status pipe's text when it reports the start's steps (``report_steps``) rather than a
#: failure.
STEPS_PREFIX = b"steps "

#: The first message a shell sends on its channel, with a pidfd of its pid namespace's first process.
INIT_MESSAGE = b"init"


def _announce_init(channel: socket.socket) -> None:
    """Send the host a pidfd of this process, the first of the bot's pid namespace: killing it kills
    everything the bot starts, and the host kills it directly rather than trust a parent-death signal
    (which, as an ordinary user, is all that links it to the outer shell the cell forked)."""
    pidfd = os.pidfd_open(os.getpid())
    try:
        socket.send_fds(channel, [INIT_MESSAGE], [pidfd])
    finally:
        os.close(pidfd)


#: A bot's typical shape: the sandbox writes it next to the code cache and every shell loads it once.
SAMPLE_BOT = '''"""A sample bot."""
import random


class Bot:
    def __init__(self, game, seat, players, options):
        self.rng = random.Random(seat)

    def act(self, observation, legal_actions):
        return self.rng.choice(legal_actions)
'''


def _warm_up(sample_bot: str) -> None:
    """Load a sample bot and run the protocol's hot path once, while waiting for the real bot.

    A forked process copies every page of the zygote it writes to, and the interpreter writes to shared
    objects all the time (reference counts, allocator pools): loading a bot the first time costs a few
    hundred such copies. Paid here, they are paid before the bot's clock runs.
    """
    from bots.loader import bind, load_module, wants_time_left

    path = sys.path[:]
    act = bind(load_module(sample_bot, "_warm_up"), game="game", seat=0, players=2, options={})
    wants_time_left(act)
    act({}, [1, 2])
    sys.path[:] = path
    with io.TextIOWrapper(io.BytesIO(), encoding="utf-8", errors="replace", line_buffering=True) as text:
        text.write("warm\n")
    sample = {"type": "act", "observation": {"board": [[0, 1, None], [True, "x", 2.5]], "turn": 1},
              "legal_actions": [[1, 2], {"take": 3}], "time_left_ms": 1000}
    from bots import sdk

    for _ in range(3):
        # The SDK's own parse of a line and encoding of an answer.
        sdk._parse_line((sdk._encode(sample) + "\n").encode())


def _warm_up_start(sample_bot: str, code_folder: str, policy: Policy) -> None:
    """Run the start's own steps once on stand-ins, for the page copies of :func:`_warm_up`: a request
    parsed, the sample bot's folder copied into a scratch folder of the code's tmpfs and removed again
    (which leaves the tmpfs empty), and the reads the verification makes."""
    json.loads(json.dumps({"mode": "zygote", "limits": {"memory_mb": 1, "tmp_mb": 1}, "host_uid": 0}))
    scratch = f"{code_folder}/.warm-up"
    os.mkdir(scratch)
    folder = os.open(sample_bot, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    mask = os.umask(0o022)
    try:
        copy_tree(folder, scratch)
    finally:
        os.umask(mask)
        os.close(folder)
        shutil.rmtree(scratch)
    linux.capabilities()
    linux.prctl(linux.PR_GET_NO_NEW_PRIVS)
    linux.prctl(linux.PR_GET_SECCOMP)
    linux.prctl(linux.PR_GET_DUMPABLE)
    linux.parent_death_signal()
    os.getresuid(), os.getresgid(), os.getgroups()
    os.path.exists(policy.bot_dir)


#: The sandbox's own modules, listed once by the zygote (:func:`note_internal_modules`).
_internal_modules: tuple[str, ...] = ()


def note_internal_modules() -> None:
    """List the sandbox's own modules loaded in the zygote, for every bot to forget them."""
    global _internal_modules
    _internal_modules = tuple(name for name in sys.modules if name.startswith(("bots.sandbox", "engines")))


def _forget_internals() -> None:
    """Unload the sandbox's own modules: the bot gets the SDK, not the sandbox's internals. (The functions
    still to run keep what they use alive.) Looked up by name: walking ``sys.modules`` would write to,
    and so copy, a page of the zygote for nearly every module."""
    for name in _internal_modules:
        sys.modules.pop(name, None)


def _finish(request: dict, policy: Policy, seccomp: SeccompPrograms | None, as_root: bool, step: _Step,
            base_vm: int, streams=None) -> None:
    step.name = "enter the bot's root"
    _enter_root(request, policy)

    step.name = "set rlimits"
    _set_rlimits(request, base_vm, policy)
    _mark("bot.rlimits")

    step.name = "drop capabilities"
    uid = policy.inner_id
    if as_root:
        step.name = "drop to the bot's host uid"
        uid, gid = request["host_uid"], request["host_gid"]
        os.setgroups([])
        os.setresgid(gid, gid, gid)
        os.setresuid(uid, uid, uid)
    linux.drop_all_capabilities()
    step.name = "set no_new_privs"
    linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    linux.prctl(linux.PR_SET_DUMPABLE, 0)
    # Credential changes clear the parent-death signal: set it again after the last one. The filter then
    # refuses PR_SET_PDEATHSIG, so the bot can never clear it.
    linux.prctl(linux.PR_SET_PDEATHSIG, signal.SIGKILL)
    _mark("bot.credentials")
    step.name = "install the seccomp filter"
    if seccomp is None:
        raise PermissionError(NO_SECCOMP)
    linux.load_seccomp_program(seccomp.bot)
    _mark("bot.seccomp")
    step.name = "verify confinement"
    _verify(policy, request["bot_dir"], uid)
    _mark("bot.verify")

    step.name = "start the bot"
    if request.get("report_steps"):
        # Written by the sandbox, before any code of the bot runs: the host may trust it as its own.
        os.write(STATUS_FD, STEPS_PREFIX + json.dumps(_marks).encode())
    os.close(STATUS_FD)
    if request["mode"] == "fresh":
        paths = ["/sdk", *policy.python_path]
        code = _FRESH_BOOTSTRAP.format(paths=paths, bot=policy.bot_dir)
        os.execve(policy.python_executable, [policy.python_executable, "-I", "-S", "-c", code],
                  dict(policy.environment))
    from bots.sdk import serve

    status = serve(policy.bot_dir, streams)
    os._exit(status)


def relocate_modules(relocations) -> None:
    """Point modules the zygote loaded from a relocated folder at where that folder is now."""
    for module in list(sys.modules.values()):
        for host, inside in relocations:
            path = getattr(module, "__path__", None)
            if isinstance(path, list):
                path[:] = [inside + entry[len(host):] if entry.startswith(host) else entry for entry in path]
            file = getattr(module, "__file__", None)
            if isinstance(file, str) and file.startswith(host):
                try:
                    module.__file__ = inside + file[len(host):]
                except (AttributeError, TypeError):
                    pass


def join_cgroups(procs_files: list[str]) -> None:
    """Move this process into the bot's cgroups (done by the pre-forked child, ahead of need)."""
    for procs in procs_files:
        with open(procs, "w") as handle:
            handle.write("0")


def _vm_size_bytes() -> int:
    """This process's address space (the first field of ``statm``, in pages)."""
    fd = os.open("/proc/self/statm", os.O_RDONLY)
    try:
        return int(os.read(fd, 256).split()[0]) * os.sysconf("SC_PAGE_SIZE")
    finally:
        os.close(fd)


def _write(path: str, text: str) -> None:
    with open(path, "w") as handle:
        handle.write(text)


def _wait_and_exit(child: int) -> None:
    """The namespace's parent: hold no pipe, wait for the bot's first process, exit with its status."""
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in (0, 1, 2):
        os.dup2(devnull, fd)
    os.close(devnull)
    while True:
        try:
            _, status = os.waitpid(child, 0)
        except ChildProcessError:
            os._exit(0)
        except InterruptedError:
            continue
        os._exit(os.waitstatus_to_exitcode(status) & 0xFF)


def _map_ids(proc_self: int, inner: int, uid: int, gid: int) -> None:
    for name, text in (("setgroups", "deny"), ("uid_map", f"{inner} {uid} 1"), ("gid_map", f"{inner} {gid} 1")):
        fd = os.open(name, os.O_WRONLY, dir_fd=proc_self)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)


def _prepare_interpreter(policy: Policy) -> None:
    """What the bot's interpreter needs that does not depend on the bot, done by the shell while it
    waits (each costs the bot's start some 50 to 100 us on its clock): the policy's environment and
    nothing else, the policy's import path (the sandbox imports nothing more: what it still runs is
    loaded), and the bot's folder as the working directory (the tmpfs the code is copied into: the copy
    and its read-only remount leave the directory the process is in as it is)."""
    os.environ.clear()
    os.environ.update(dict(policy.environment))
    sys.path[:] = list(policy.python_path)
    os.chdir(policy.bot_dir)


def _enter_root(request: dict, policy: Policy) -> None:
    """Add the bot's code (a copy, from :data:`CODE_FD`, which is then closed) and private /tmp to the root
    the shell is in (:func:`bots.sandbox.pivot_into`)."""
    try:
        copy_code(CODE_FD, policy.bot_dir)
    finally:
        os.close(CODE_FD)
    _mark("bot.copy_code")
    tmp_mb = int(request["limits"]["tmp_mb"])
    if tmp_mb != DEFAULT_TMP_MB:
        mount_tmp(policy, tmp_mb, remount=True)
    _mark("bot.tmp")


def _set_rlimits(request: dict, base_vm: int, policy: Policy) -> None:
    limits = request["limits"]
    memory = limits["memory_mb"] * 1024 * 1024

    def cap(which: int, value: int, hard: int | None = None) -> None:
        resource.setrlimit(which, (value, value if hard is None else hard))

    # The address-space limit counts what the zygote already mapped; the cgroup, where present, caps
    # the memory actually used.
    cap(resource.RLIMIT_AS, base_vm + memory)
    cap(resource.RLIMIT_CPU, limits["cpu_seconds"], limits["cpu_seconds"] + 1)
    cap(resource.RLIMIT_NPROC, limits["max_processes"])
    cap(resource.RLIMIT_FSIZE, limits["file_mb"] * 1024 * 1024)
    cap(resource.RLIMIT_NOFILE, limits["max_open_files"])
    cap(resource.RLIMIT_CORE, 0)
    cap(resource.RLIMIT_MEMLOCK, 0)
    cap(resource.RLIMIT_MSGQUEUE, 0)
    cap(resource.RLIMIT_STACK, policy.stack_mb * 1024 * 1024)


def _verify(policy: Policy, host_bot_dir: str, uid: int) -> None:
    """Refuse to run the bot unless the confinement actually took hold (fail closed)."""
    effective, permitted = linux.capabilities()
    if effective or permitted:
        raise PermissionError(f"capabilities remain: {effective:#x}")
    if linux.prctl(linux.PR_GET_NO_NEW_PRIVS) != 1:
        raise PermissionError("no_new_privs is not set")
    if linux.prctl(linux.PR_GET_SECCOMP) != linux.SECCOMP_MODE_FILTER:
        raise PermissionError("the seccomp filter is not installed")
    try:
        # Allowed by the shell's half of the filter, refused by the bot's: proof that both are in.
        linux.prctl(linux.PR_SET_NO_NEW_PRIVS, 1)
    except PermissionError:
        pass
    else:
        raise PermissionError("the bot's half of the seccomp filter is not installed")
    if linux.parent_death_signal() != signal.SIGKILL or linux.prctl(linux.PR_GET_DUMPABLE) != 0:
        raise PermissionError("the parent-death signal or the dumpable flag is not set")
    if set(os.getresuid()) != {uid} or set(os.getresgid()) - {uid, policy.inner_id} or os.getgroups():
        raise PermissionError(f"running as uid {os.getresuid()} instead of {uid}")
    if os.path.exists("/proc/self") or (host_bot_dir != policy.bot_dir and os.path.exists(host_bot_dir)):
        raise PermissionError("the host's file tree is still visible")
    try:
        probe = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    except OSError:
        return  # refused by the seccomp filter
    with probe:
        # An empty network namespace has no route, not even to the loopback.
        if probe.connect_ex(("127.0.0.1", 9)) != errno.ENETUNREACH:
            raise PermissionError("the network namespace has a usable loopback")
