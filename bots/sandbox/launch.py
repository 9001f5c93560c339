"""Confine a process and turn it into one bot, in two halves: a *shell* made ahead of need, then the bot.

A cell (see :mod:`bots.sandbox.zygote`) keeps one shell ready. :func:`fork_shell` and
:func:`become_shell` do everything that does not depend on the bot:

1. as root, the cell forks the shell straight into a new pid namespace, whose pid 1 it is (when it
   dies, every process the bot started dies); the shell enters new mount, ipc, uts and cgroup
   namespaces and the read-only runtime root the zygote copied into memory (:func:`build_memory_root`)
   is already there. As an ordinary user the shell makes all of them inside a new user namespace that
   maps only that user's uid, builds the runtime root from the host's files (:func:`build_template`),
   and forks the pid namespace's first process itself (the parent only waits, and takes the
   child with it when it dies, through the child's parent-death signal);
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
import stat
import sys
import time
import traceback
from dataclasses import dataclass

from bots.limits import Limits
from bots.sandbox import linux
from bots.sandbox.policy import CONTROL_MESSAGE_BYTES, Mount, Policy
from bots.sandbox.runtime_files import symlink_chain

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
        _mount_code_folder(setup["root_mount_point"] + policy.bot_dir, policy)
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
        _pivot_into(setup["root_mount_point"])
        _mark("shell.pivot_root")
        step.name = "mount the bot's /tmp"
        _mount_tmp(policy, DEFAULT_TMP_MB)
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
        _copy_tree(folder, scratch)
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


def _mount_flags_of(path: str) -> int:
    """The atime and safety flags ``path`` is mounted with: a bind remount must repeat the locked ones."""
    flags = os.statvfs(path).f_flag
    result = 0
    for st_flag, ms_flag in ((os.ST_NOSUID, linux.MS_NOSUID), (os.ST_NODEV, linux.MS_NODEV),
                             (os.ST_NOEXEC, linux.MS_NOEXEC), (os.ST_NOATIME, linux.MS_NOATIME),
                             (os.ST_NODIRATIME, linux.MS_NODIRATIME), (os.ST_RELATIME, linux.MS_RELATIME)):
        if flags & st_flag:
            result |= ms_flag
    return result


def _bind_read_only(source: str, target: str, extra: int = linux.MS_NOSUID | linux.MS_NODEV) -> None:
    linux.mount(source, target, None, linux.MS_BIND | linux.MS_REC)
    linux.mount(None, target, None,
                linux.MS_BIND | linux.MS_REMOUNT | linux.MS_RDONLY | extra | _mount_flags_of(target))


def _map_ids(proc_self: int, inner: int, uid: int, gid: int) -> None:
    for name, text in (("setgroups", "deny"), ("uid_map", f"{inner} {uid} 1"), ("gid_map", f"{inner} {gid} 1")):
        fd = os.open(name, os.O_WRONLY, dir_fd=proc_self)
        try:
            os.write(fd, text.encode())
        finally:
            os.close(fd)


def runtime_mounts(mode: str, runtime_dir: str, policy: Policy) -> list[tuple[str, str, str]]:
    """(kind, source, target) for every mount shared by all bots, in the order to make them: kind is
    "symlink" (source is the link's text), "dir" or "file" (a bind mount of source), or "empty" (an
    empty read-only folder over target, inside an earlier "dir"). Missing required paths fail closed.

    Every target lies in a real folder of the host, so that building the root never goes through a
    symlink made in it (whose text names a host path while the root is built): :func:`default_policy`
    lists its paths that way, and a path of any other policy that does not is resolved here, with the
    symlinks leading to it reproduced. As an ordinary user this runs for every bot, so the policy's own
    paths cost one ``stat`` each.
    """
    planned = list(policy.mounts)
    if mode == "fresh":
        planned.append(Mount(runtime_dir, target="/sdk"))
    planned.extend(Mount(device) for device in policy.devices)
    mounts: list[tuple[str, str, str]] = []
    targets: set[str] = set()
    known: dict[str, str | None] = {}
    real_folders: dict[str, bool] = {}

    def add(kind: str, source: str, target: str) -> None:
        if target not in targets:
            targets.add(target)
            mounts.append((kind, source, target))

    for mount in planned:
        if mount.link is not None:
            add("symlink", mount.link, mount.path)
            continue
        source, links = mount.path, []
        if mount.target is not None:
            source = os.path.realpath(source)
        else:
            folder = os.path.dirname(source)
            if folder not in real_folders:
                real_folders[folder] = os.path.realpath(folder) == folder
            if not real_folders[folder]:
                links, source = symlink_chain(source, known)
        try:
            is_dir = stat.S_ISDIR(os.stat(source).st_mode)
        except FileNotFoundError:
            if mount.required:
                raise FileNotFoundError(f"required runtime path {mount.path} is missing") from None
            continue
        for where, text in links:
            add("symlink", text, where)
        add("empty" if mount.empty else "dir" if is_dir else "file", source, mount.target or source)
    return mounts


def build_template(new_root: str, mounts: list[tuple[str, str, str]], policy: Policy) -> None:
    """Mount, in the current (private) mount namespace, a read-only root at ``new_root`` holding the
    runtime mounts and empty mount points for the bot's code and its /tmp. Bots entering it add only
    those two mounts of their own (:func:`_enter_root`), so a cell builds it once for all its bots.

    Every target is a real path (see :func:`runtime_mounts`), so nothing here goes through a symlink
    made in the root, whose text means a host path while the root is being built."""
    linux.mount("tmpfs", new_root, "tmpfs", linux.MS_NOSUID | linux.MS_NODEV, "size=1m,mode=755")
    folders = {new_root}
    for kind, source, path in mounts:
        target = new_root + path
        if kind == "empty":
            linux.mount("tmpfs", target, "tmpfs",
                        linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC,
                        "size=4k,nr_inodes=1,mode=755")
            continue
        folder = os.path.dirname(target)
        if folder not in folders:
            os.makedirs(folder, exist_ok=True)
            folders.add(folder)
        if kind == "symlink":
            os.symlink(source, target)
            continue
        if kind == "dir":
            os.makedirs(target, exist_ok=True)
            folders.add(target)
        else:
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644))
        extra = linux.MS_NOSUID | (linux.MS_NOEXEC if path in policy.devices else linux.MS_NODEV)
        _bind_read_only(source, target, extra)
    os.makedirs(new_root + policy.bot_dir, exist_ok=True)
    os.makedirs(new_root + policy.tmp_dir, exist_ok=True)
    linux.mount(None, new_root, None, linux.MS_REMOUNT | linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV,
                "size=1m,mode=755")


@dataclass(frozen=True)
class MemoryRoot:
    """What :func:`build_memory_root` made: ``files`` copied (``bytes``, taking ``memory_bytes`` in whole
    pages), ``bound`` large files bound from the host with their ``bound_bytes`` locked in memory (real
    paths in ``bound_paths``), in ``seconds``."""

    files: int
    bytes: int
    memory_bytes: int
    bound: int
    bound_bytes: int
    seconds: float
    bound_paths: tuple[str, ...] = ()


def build_memory_root(new_root: str, mounts: list[tuple[str, str, str]], policy: Policy) -> MemoryRoot:
    """Build the runtime root every bot enters so that nothing in it is read from the machine's caches:
    a ramfs at ``new_root`` holding a copy of the runtime's files (the policy's
    :attr:`~bots.sandbox.policy.Policy.unserved_suffixes` left out), its symlinks, an empty folder for
    each ``empty`` mount, empty mount points for the bot's code and its /tmp, and, bound from the host,
    the device nodes and the files of :attr:`~bots.sandbox.policy.Policy.memory_bind_bytes` or more,
    whose pages this process locks in memory for as long as it lives; then read-only. As root the zygote
    makes it once, in its own mount namespace, and every cell and bot inherits it.

    Why: the host's files are cached by the machine's page cache (and their names by its dentry cache),
    which every process shares, so a bot that times a read learns whether anyone read that file lately,
    another bot of its match included. A ramfs file is only ever in memory (never evicted, nor swapped),
    a ramfs folder caches no failed lookup, and a bound file's pages are locked and its name is the
    mount's: a read or a lookup costs the same whoever did it before. (The few large files, mostly
    shared libraries the zygote maps anyway, are locked rather than copied, so that the machine holds
    their pages once for all its sandboxes.) Copies are root's, lose their set-id and write bits for
    others, and keep their times, so that the standard library's bytecode stays valid for its sources.
    """
    began = time.perf_counter()
    mask = os.umask(0o022)
    try:
        linux.mount("ramfs", new_root, "ramfs", linux.MS_NOSUID | linux.MS_NODEV, "mode=755")
        root = _MemoryRootBuilder(new_root, {new_root + path for kind, _, path in mounts if kind == "empty"},
                                  policy.devices, policy.unserved_suffixes, policy.memory_bind_bytes)
        for kind, source, path in mounts:
            root.add(kind, source, path)
        for folder in (policy.bot_dir, policy.tmp_dir):
            os.makedirs(new_root + folder, exist_ok=True)
        # Read-only for everyone from now on (the mount itself: a ramfs superblock cannot be).
        linux.mount(None, new_root, None,
                    linux.MS_REMOUNT | linux.MS_BIND | linux.MS_RDONLY | linux.MS_NOSUID | linux.MS_NODEV)
    finally:
        os.umask(mask)
    return MemoryRoot(root.files, root.bytes, root.memory, len(root.bound), root.bound_bytes,
                      time.perf_counter() - began, tuple(root.bound))


class _MemoryRootBuilder:
    """The steps of :func:`build_memory_root`, with their counts: copies into the ramfs at ``new_root``, except the folders of ``hidden`` (left empty), the files named
    with one of ``unserved`` endings (left out), ``devices`` and files of ``bind_bytes`` or more (bound
    from the host, and the files locked in memory)."""

    def __init__(self, new_root: str, hidden: set[str], devices: tuple[str, ...], unserved: tuple[str, ...],
                 bind_bytes: float) -> None:
        self.new_root, self.hidden, self.devices = new_root, hidden, devices
        self.unserved, self.bind_bytes = unserved, bind_bytes
        self.files = self.bytes = self.memory = self.bound_bytes = 0
        self.bound: dict[str, None] = {}

    def add(self, kind: str, source: str, path: str) -> None:
        target = self.new_root + path
        if kind == "empty":
            os.makedirs(target, exist_ok=True)
            return
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if kind == "symlink":
            os.symlink(source, target)
        elif path in self.devices:
            # A device node is the kernel's, not a file's bytes: bound from the host, as ever.
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644))
            _bind_read_only(source, target, linux.MS_NOSUID | linux.MS_NOEXEC)
        elif kind == "dir":
            os.makedirs(target, exist_ok=True)
            os.chmod(target, stat.S_IMODE(os.stat(source).st_mode) & 0o755)
            self.tree(source, target)
        else:
            self.file(source, target)

    def tree(self, source: str, target: str) -> None:
        with os.scandir(source) as entries:
            for entry in entries:
                place = f"{target}/{entry.name}"
                if entry.is_symlink():
                    os.symlink(os.readlink(entry.path), place)
                elif entry.is_dir(follow_symlinks=False):
                    if place in self.hidden:
                        os.mkdir(place, 0o755)
                    else:
                        # The umask is 022: the mode given is the mode made.
                        os.mkdir(place, stat.S_IMODE(entry.stat(follow_symlinks=False).st_mode) & 0o755)
                        self.tree(entry.path, place)
                elif entry.is_file(follow_symlinks=False) and not entry.name.endswith(self.unserved):
                    self.file(entry.path, place)

    def file(self, source: str, target: str) -> None:
        fd = os.open(source, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC)
        try:
            status = os.fstat(fd)
            size = status.st_size
            if size >= self.bind_bytes:
                os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o644))
                _bind_read_only(source, target, linux.MS_NOSUID | linux.MS_NODEV)
                linux.lock_in_memory(fd, 0, size)
                self.bound.setdefault(os.path.realpath(source))
                self.bound_bytes += size
                return
            # The umask is 022: the mode given is the mode made.
            copy = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW | os.O_CLOEXEC,
                           stat.S_IMODE(status.st_mode) & 0o755)
            try:
                done = 0
                while done < size and (sent := os.sendfile(copy, fd, done, size - done)):
                    done += sent
                os.utime(copy, ns=(status.st_atime_ns, status.st_mtime_ns))
            finally:
                os.close(copy)
        finally:
            os.close(fd)
        self.files += 1
        self.bytes += size
        self.memory += -(-size // _PAGE) * _PAGE


_PAGE = os.sysconf("SC_PAGE_SIZE")


_CODE_FLAGS = linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC


def _mount_code_folder(target: str, policy: Policy) -> None:
    """Mount the empty tmpfs that will hold the bot's code (:func:`_copy_code`), ahead of need."""
    linux.mount("tmpfs", target, "tmpfs", _CODE_FLAGS, f"size={policy.code_folder_mb}m,mode=755")


def _copy_code(source: int, target: str) -> None:
    """Show the bot's code, the folder open at descriptor ``source``, at ``target`` (the tmpfs of
    :func:`_mount_code_folder`) as a copy, read-only.

    Two seats running the same upload share its folder of the host's code cache (and so do a bot and
    the next one to run that upload): bound from there, what one read or looked up in it, the other
    could time (the machine's page and dentry caches). A copy of its own is only ever in memory, and
    counts towards the bot's memory (it is written from the bot's cgroups)."""
    mask = os.umask(0o022)
    try:
        _copy_tree(source, target)
    finally:
        os.umask(mask)
    linux.mount(None, target, None, linux.MS_REMOUNT | linux.MS_BIND | linux.MS_RDONLY | _CODE_FLAGS)


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


def _pivot_into(new_root: str) -> None:
    """Make the template root this process's root and detach the host's tree (done by the shell while it
    waits: nothing of the host is visible to it from then on but what the host sends)."""
    os.chdir(new_root)
    linux.pivot_root(".", ".")
    linux.umount2(".", linux.MNT_DETACH)
    os.chdir("/")


def _copy_tree(folder: int, target: str) -> None:
    """Copy what the folder open at ``folder`` holds into the folder ``target``: files (modes kept, less
    any write bit for others; times not: the code cache's bytecode is checked by hash), folders and
    symlinks as symlinks (never followed: everything is opened relative to its folder's descriptor, with
    O_NOFOLLOW). The umask must be 022."""
    with os.scandir(folder) as entries:
        listed = list(entries)
    for entry in listed:
        place = f"{target}/{entry.name}"
        if entry.is_symlink():
            os.symlink(os.readlink(entry.name, dir_fd=folder), place)
        elif entry.is_dir(follow_symlinks=False):
            os.mkdir(place, stat.S_IMODE(entry.stat(follow_symlinks=False).st_mode) & 0o755)
            inner = os.open(entry.name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
            try:
                _copy_tree(inner, place)
            finally:
                os.close(inner)
        elif entry.is_file(follow_symlinks=False):
            fd = os.open(entry.name, os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC, dir_fd=folder)
            try:
                size = os.fstat(fd).st_size
                copy = os.open(place, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                               stat.S_IMODE(os.fstat(fd).st_mode) & 0o755)
                try:
                    done = 0
                    while done < size and (sent := os.sendfile(copy, fd, done, size - done)):
                        done += sent
                finally:
                    os.close(copy)
            finally:
                os.close(fd)


def _enter_root(request: dict, policy: Policy) -> None:
    """Add the bot's code (a copy, from :data:`CODE_FD`, which is then closed) and private /tmp to the root
    the shell is in (:func:`_pivot_into`)."""
    try:
        _copy_code(CODE_FD, policy.bot_dir)
    finally:
        os.close(CODE_FD)
    _mark("bot.copy_code")
    tmp_mb = int(request["limits"]["tmp_mb"])
    if tmp_mb != DEFAULT_TMP_MB:
        _mount_tmp(policy, tmp_mb, remount=True)
    _mark("bot.tmp")


#: The size of the /tmp a shell mounts ahead of its bot (:func:`_mount_tmp`): the default limit, which
#: most bots get; one that asks for another size has it resized at its start.
DEFAULT_TMP_MB = Limits().tmp_mb
_TMP_FLAGS = linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC


def _mount_tmp(policy: Policy, size_mb: int, *, remount: bool = False) -> None:
    """Mount the bot's private, empty /tmp of ``size_mb`` MiB (its pages count towards the bot's memory,
    written from its cgroups), or resize the one mounted (it is still empty then)."""
    if remount:
        linux.mount(None, policy.tmp_dir, None, linux.MS_REMOUNT | _TMP_FLAGS, f"size={size_mb}m")
    else:
        linux.mount("tmpfs", policy.tmp_dir, "tmpfs", _TMP_FLAGS, f"size={size_mb}m,mode=1777")


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
