"""The zygote process: the side of the warm sandbox (:mod:`bots.sandbox.zygote`) that runs apart from the
host, started by it as ``python -I`` with an empty environment.

It imports the SDK and the allowed packages once, enters namespaces of its own, copies the runtime every
bot enters into memory (as root), and makes one *cell* per bot slot: a forker in that slot's cgroups,
which prepares a shell ahead of each bot (:func:`bots.sandbox.launch.become_shell`) and hands its pidfd to
the host. Everything here answers the host's messages (:func:`send_message`, JSON with file
descriptors); nothing here decides a limit: the host's :class:`~bots.sandbox.policy.Policy` travels with
the requests.
"""

from __future__ import annotations

import dataclasses
import gc
import json
import os
import resource
import signal
import socket
import stat

from bots.sandbox import launch, linux, root_filesystem
from bots.sandbox.policy import (
    CONTROL_MESSAGE_BYTES,
    Mount,
    Policy,
    Syscall,
    default_policy,
    stacked_seccomp_rules,
)


def _die_with_parent(parent: int, signum: int = signal.SIGKILL) -> None:
    """Be sent ``signum`` when ``parent`` dies; if it died already (the race with setting the signal),
    act as if it had come at once."""
    linux.prctl(linux.PR_SET_PDEATHSIG, signum)
    if os.getppid() != parent:
        signal.raise_signal(signum)
        os._exit(0)


def serve_forever(sock_fd: int, host_pid: int) -> None:
    """The zygote's main loop: fork *cells* on request.

    A ``cell`` request carries one end of a socket pair whose other end the host keeps: the zygote forks
    a cell on it (a small forker that joins the given cgroups once and then forks bots on the host's
    requests, so that every bot is born inside its cgroups: moving a process between cgroups makes the
    kernel wait for an RCU grace period, tens of milliseconds) and answers with a pidfd of the cell. From
    then on the host and the cell talk directly; the zygote is not on a bot's start path.
    """

    sock = socket.socket(fileno=sock_fd)
    freezers: list[str] = []

    def host_gone(signum, frame) -> None:
        # A bot the host left frozen would stay so, its cell frozen beside it (frozen tasks act on no
        # SIGKILL), until the next sandbox on the machine removes the dead worker's groups: thawed first,
        # the cells die of their own parent-death signal when the zygote exits, and their bots with them.
        _thaw_all(freezers)
        os._exit(0)

    signal.signal(signal.SIGTERM, host_gone)
    _die_with_parent(host_pid, signal.SIGTERM)
    # A process group of its own (its cells and their bots join it): a SIGKILL sent to the host's group
    # (a supervisor stopping a worker, a terminal's kill) must not reach the zygote or the cells directly,
    # or a cell frozen with its bot would never act on it. They die through the parent-death signals
    # instead, the zygote thawing them first.
    os.setpgid(0, 0)
    policy = default_policy()
    libraries: dict[str, object] = {}
    filters: dict[tuple, launch.SeccompPrograms | None] = {}

    def seccomp_for(policy: Policy) -> launch.SeccompPrograms | None:
        """The compiled filter of ``policy`` in its two halves, or None where its library cannot be
        loaded; ``ValueError`` if it cannot be split (:func:`stacked_seccomp_rules`)."""
        shell_rules, bot_rules = (tuple((rule.name, rule.when, rule.errno) for rule in rules)
                                  for rules in stacked_seccomp_rules(policy))
        key = (shell_rules, bot_rules, policy.seccomp_library)
        if key not in filters:
            if policy.seccomp_library not in libraries:
                libraries[policy.seccomp_library] = linux.load_seccomp(policy.seccomp_library)
            lib = libraries[policy.seccomp_library]
            filters[key] = None if lib is None else launch.SeccompPrograms(
                shell=linux.compile_seccomp(lib, shell_rules), bot=linux.compile_seccomp(lib, bot_rules, refuse=True))
        return filters[key]

    try:
        seccomp_error = None if seccomp_for(policy) is not None else launch.NO_SECCOMP
    except (OSError, ValueError) as exc:
        seccomp_error = f"the seccomp filter cannot be compiled: {exc}"
    confined = []
    if linux.privileged():
        # A mount namespace of its own too: the runtime root it copies into memory (the ``runtime``
        # request) lives there, for its cells and their bots, and goes with the last of them.
        linux.unshare(linux.CLONE_NEWNET | linux.CLONE_NEWIPC | linux.CLONE_NEWUTS | linux.CLONE_NEWNS)
        linux.mount(None, "/", None, linux.MS_REC | linux.MS_PRIVATE)
        linux.sethostname("zygote")
        confined = ["net", "ipc", "uts", "mnt"]
    for name in policy.preload:
        try:
            __import__(name)
        except ImportError:
            pass
    import bots.sdk  # noqa: F401 - loaded now so that a bot's start costs no import of it

    # Bots see the allowed packages at their neutral folder; point what is loaded there once, here.
    launch.relocate_modules(policy.relocations)
    launch.note_internal_modules()

    os.environ.clear()
    # Keep the collector away from everything loaded so far: forked bots then share those pages instead
    # of copying them when a collection walks them.
    gc.collect()
    gc.freeze()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # children are reaped by the kernel
    send_message(sock, {"type": "hello", "pid": os.getpid(), "seccomp": seccomp_error is None,
                 "seccomp_error": seccomp_error, "namespaces": confined})
    zygote_pid = os.getpid()
    runtime_key = None
    while True:
        try:
            message, fds, _, _ = socket.recv_fds(sock, CONTROL_MESSAGE_BYTES, 1)
        except ConnectionResetError:
            break
        if not message:
            break
        request = json.loads(message)
        if request["type"] == "runtime" and not fds:
            if runtime_key is None or runtime_key == _runtime_key(request):
                runtime_key, reply = _prepare_runtime(request, policy)
            else:
                reply = {"type": "error", "message": "the runtime root is already prepared for another policy"}
            send_message(sock, reply)
            continue
        if request["type"] != "cell" or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            send_message(sock, {"type": "error", "message": "expected a cell request with its channel"})
            continue
        # Those of cells removed since are dropped, so that a long-lived zygote's list stays short.
        freezers = [path for path in freezers if os.path.exists(path)] + _freezer_files(request["cgroup_procs"])
        pid = os.fork()
        if pid == 0:
            sock.close()
            signal.signal(signal.SIGTERM, signal.SIG_DFL)
            _die_with_parent(zygote_pid)
            _run_cell(socket.socket(fileno=fds[0]), request, policy, seccomp_for, launch, runtime_key)
        os.close(fds[0])
        pidfd = os.pidfd_open(pid)
        try:
            send_message(sock, {"type": "cell_ready", "pid": pid}, [pidfd])
        finally:
            os.close(pidfd)
    # The host closed its end: it is gone (or going).
    host_gone(signal.SIGTERM, None)


def _runtime_key(request: dict) -> str:
    """What a runtime root depends on, from a ``runtime`` or ``cell`` request."""
    return json.dumps([request[name] for name in ("mode", "runtime_dir", "root_mount_point", "policy")],
                      sort_keys=True)


def _prepare_runtime(request: dict, current: Policy) -> tuple[str | None, dict]:
    """Answer a ``runtime`` request: as root, copy the runtime every bot enters into memory
    (:func:`bots.sandbox.root_filesystem.build_memory_root`) in the zygote's own mount namespace, where its
    cells find it, and lock in memory the pages of every file the zygote has mapped (the interpreter, its
    libraries and extension modules, which every bot forked from it runs from). As an ordinary user
    nothing is copied: each bot's root binds the host's files (:func:`bots.sandbox.launch.become_shell`).

    Returns the root's key (None if it could not be made) and the reply: ``runtime_ready`` with what
    it cost, or ``error``."""
    if not linux.privileged():
        return _runtime_key(request), {"type": "runtime_ready", "in_memory": False}
    step = "copy the runtime into memory"
    try:
        policy = _policy_from(request["policy"], current)
        mounts = root_filesystem.runtime_mounts(request["mode"], request["runtime_dir"], policy)
        root = root_filesystem.build_memory_root(request["root_mount_point"], mounts, policy)
        step = "lock the zygote's mapped files in memory (needs CAP_IPC_LOCK)"
        locked = _lock_mapped_files(set(root.bound_paths))
    except OSError as exc:
        return None, {"type": "error", "message": f"sandbox setup failed at '{step}': {exc}"}
    figures = dataclasses.asdict(root)
    del figures["bound_paths"]
    return _runtime_key(request), {"type": "runtime_ready", "in_memory": True, **figures, "locked_bytes": locked}


def _lock_mapped_files(locked_already: set[str]) -> int:
    """Lock in the page cache every page of a file this process maps (as far as its mappings reach),
    except the files of ``locked_already`` (locked whole), and return how many bytes that is.

    Every bot is forked from the zygote and runs its interpreter, libraries and extension modules from
    the zygote's mappings of the host's files, whose pages a bot brings into the machine's page cache
    the first time it runs code there: the next bot to run it would find it faster, a timing channel.
    Locked, those pages never leave, so running any of it costs the same for every bot. (The pages of the
    host's files are shared: every zygote on the machine locks the same ones.)"""
    try:
        # CAP_IPC_LOCK ignores the limit; without it, CAP_SYS_RESOURCE may lift it.
        resource.setrlimit(resource.RLIMIT_MEMLOCK, (resource.RLIM_INFINITY, resource.RLIM_INFINITY))
    except (OSError, ValueError):
        pass
    spans: dict[str, list[int]] = {}
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split(maxsplit=5)
            if len(fields) < 6 or not fields[5].startswith("/") or fields[5].rstrip().endswith("(deleted)"):
                continue
            start, end = (int(value, 16) for value in fields[0].split("-"))
            offset = int(fields[2], 16)
            span = spans.setdefault(fields[5].rstrip("\n"), [offset, offset + end - start])
            span[0], span[1] = min(span[0], offset), max(span[1], offset + end - start)
    page = os.sysconf("SC_PAGE_SIZE")
    locked = 0
    for path, (first, last) in spans.items():
        if path in locked_already:
            continue
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
        try:
            status = os.fstat(fd)
            if not stat.S_ISREG(status.st_mode):
                continue
            # A mapping may reach past the end of its file (a segment's zero-filled tail): those pages
            # have no bytes to lock.
            last = min(last, -(-status.st_size // page) * page)
            if last > first:
                linux.lock_in_memory(fd, first, last - first)
                locked += last - first
        finally:
            os.close(fd)
    return locked


def _freezer_files(procs_files: list[str]) -> list[str]:
    """The freezer control files of a cell's groups (v1 ``freezer.state``, v2 ``cgroup.freeze``)."""
    found = []
    for procs in procs_files:
        for name in ("freezer.state", "cgroup.freeze"):
            path = os.path.join(os.path.dirname(procs), name)
            if os.path.exists(path):
                found.append(path)
    return found


def _thaw_all(freezer_files: list[str]) -> None:
    for path in freezer_files:
        try:
            with open(path, "w") as control:
                control.write("THAWED" if path.endswith("freezer.state") else "0")
        except OSError:
            pass  # a cell removed since


def _run_cell(channel: socket.socket, setup: dict, policy: Policy, seccomp_for, launch,
              runtime_key: str | None) -> None:
    """A cell: join the cgroups once and, as root, check that the read-only runtime root its bots enter is
    the one the zygote has prepared in memory for this policy (``runtime_key``, see
    :func:`_prepare_runtime`); then make shells (a bot's namespaces, made ahead of need) for the host.
    Never returns.

    Each shell is handed to the host as soon as it exists, as a ``shell`` message carrying the shell's
    channel and a pidfd of it: the host then sends the bot's request to the shell itself, so that no
    other process has to wake up when a bot starts. The cell makes its first shell at once and each
    further one on the host's ``prepare``; it answers ``error`` instead if it cannot, and ends when the
    host closes the channel."""

    failure = None
    template_ready = False
    try:
        # Orphans of dead bots come back to the cell, whose ignored SIGCHLD reaps them at once; left to
        # the machine's init they would linger as zombies still counted against the cell's pids limit.
        linux.prctl(linux.PR_SET_CHILD_SUBREAPER, 1)
        policy = _policy_from(setup["policy"], policy)
        seccomp_programs = seccomp_for(policy)
        if seccomp_programs is None:
            failure = f"sandbox setup failed at 'install the seccomp filter': {launch.NO_SECCOMP}"
        launch.join_cgroups(setup["cgroup_procs"])
        pid_namespace = None
        if linux.privileged():
            pid_namespace = os.open("/proc/self/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
            if runtime_key != _runtime_key(setup):
                # Never a root of host files instead: fail closed.
                failure = failure or ("sandbox setup failed at 'enter the runtime root': the zygote has no "
                                      "runtime root in memory for this policy")
            # Its own empty network namespace: the zygote's is shared by every cell, and bots of one
            # match must not even find each other's abstract Unix sockets.
            linux.unshare(linux.CLONE_NEWNET)
            template_ready = True
            # Once for all its shells (they inherit it): emptying the bounding set limits only what a
            # later execve could grant, so the cell keeps the capabilities it works with.
            linux.drop_bounding_set()
    except (OSError, ValueError) as exc:
        failure = failure or f"sandbox setup failed at 'prepare the cell': {exc}"
    while True:
        if failure is not None:
            reply, fds = {"type": "error", "message": failure}, []
        else:
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            try:
                pid = launch.fork_shell(pid_namespace)
            except OSError as exc:
                failure = f"sandbox setup failed at 'fork the bot's process': {exc}"
                ours.close()
                theirs.close()
                continue
            if pid == 0:
                channel.close()
                ours.close()
                if pid_namespace is not None:
                    os.close(pid_namespace)
                launch.become_shell(theirs, setup, policy, seccomp_programs, template_ready,
                                    as_root=pid_namespace is not None)
            theirs.close()
            reply, fds = {"type": "shell", "pid": pid}, [ours.fileno(), os.pidfd_open(pid)]
        try:
            socket.send_fds(channel, [json.dumps(reply).encode()], fds)
        except OSError:
            os._exit(0)
        finally:
            if fds:
                ours.close()
                os.close(fds[1])
        # Sent once the cell's previous bot is gone, so that making the shell never competes with a
        # running bot for the CPU or the cell's limits.
        try:
            message = channel.recv(CONTROL_MESSAGE_BYTES)
        except OSError:
            os._exit(0)
        if not message:
            os._exit(0)


def _policy_from(data: dict, current: Policy) -> Policy:
    """The host's policy (it owns it; the zygote only applies it)."""
    data = dict(data, mounts=tuple(Mount(**mount) for mount in data["mounts"]))
    data = {key: tuple(value) if isinstance(value, list) else value for key, value in data.items()}
    data["environment"] = tuple(tuple(pair) for pair in data["environment"])
    data["relocations"] = tuple(tuple(pair) for pair in data["relocations"])
    data["syscalls"] = tuple(Syscall(rule["name"], tuple(tuple(check) for check in rule["when"]), rule["errno"])
                             for rule in data["syscalls"])
    candidate = Policy(**data)
    return current if candidate == current else candidate


def send_message(sock: socket.socket, message: dict, fds: list[int] | None = None) -> None:
    """One message of the sandbox's control channels: JSON, with file descriptors."""
    socket.send_fds(sock, [json.dumps(message).encode()], fds or [])
