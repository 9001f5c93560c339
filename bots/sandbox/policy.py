"""The sandbox policy as data: what a bot may see, use and spend. Everything not listed is denied.

:class:`Limits` (from :mod:`bots.limits`) are the per-match budgets a caller chooses (settings, per game,
per tournament).
:class:`Policy` is the machine's fixed confinement: the folders shown read-only in every bot's root
(the Python runtime and the allowed packages, resolved once from the running interpreter; as root a copy
of them in memory, see :func:`bots.sandbox.root_filesystem.build_memory_root`), the size of the private
writable ``/tmp``, the namespaces, the syscalls the seccomp filter allows and the uid range bots run under.
:func:`default_policy` builds it; nothing else in the package invents paths or limits.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import sysconfig
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bots.limits import Limits  # noqa: F401 - the budgets live apart from the confinement; re-exported
from bots.sandbox import runtime_files

#: Third-party packages a bot may import. Everything else of the project's virtualenv stays invisible.
#: (The SDK itself parses the referee's messages with orjson.)
ALLOWED_PACKAGES: tuple[str, ...] = ("numpy", "orjson")
#: Where the allowed packages appear inside a bot's root.
PACKAGES_DIR = "/opt/packages"
#: Where a bot's own code appears inside its root.
BOT_DIR = "/bot"
#: The largest message of the sandbox's own control channels (host, zygote, cells, shells), in bytes.
CONTROL_MESSAGE_BYTES = 65536


@dataclass(frozen=True)
class Mount:
    """A host path shown read-only inside every bot's root, at ``target`` or else at the same path.

    Two other kinds complete the picture: a ``link`` is a symlink with that text at ``path`` (the host's
    own, reproduced so that ``/lib/x86_64-linux-gnu/libz.so.1`` resolves inside as it does outside), and
    an ``empty`` mount shows an empty read-only folder at ``path``, hiding what an earlier mount of a
    folder above it shows there (the standard library's ``site-packages``).
    """

    path: str
    #: Missing optional paths are skipped; missing required ones fail closed.
    required: bool = True
    target: str | None = None
    link: str | None = None
    empty: bool = False

    @property
    def inside(self) -> str:
        return self.target or self.path


@dataclass(frozen=True)
class Syscall:
    """One rule of the seccomp allowlist: ``name`` is allowed when every comparison of ``when`` holds, or,
    when ``errno`` is set, refused with that errno instead of the default EPERM.

    A comparison ``(argument, mask, value)`` holds when ``argument & mask == value``; the mask must cover
    every bit the kernel reads of that argument that matters to the rule. Several rules of one name are
    alternatives; the rules of one name must not overlap (libseccomp would keep only one of them).
    Names unknown on the machine's architecture are skipped.
    """

    name: str
    when: tuple[tuple[int, int, int], ...] = ()
    errno: int | None = None


_ALL = 0xFFFF_FFFF_FFFF_FFFF
# The kernel reads an ``int`` argument (fcntl's and ioctl's command, prctl's option, madvise's advice, a
# socket's family) as its low 32 bits: the filter compares exactly those, so that no upper bits a caller
# leaves in the register can make an allowed value look refused, or the reverse.
_INT = 0xFFFF_FFFF
EAGAIN = 11
ENOSYS = 38


def _when(name: str, argument: int, values: tuple[int, ...]) -> tuple[Syscall, ...]:
    """Rules allowing ``name`` when its ``int`` argument number ``argument`` is one of ``values``."""
    return tuple(Syscall(name, ((argument, _INT, value),)) for value in values)


# Namespace flags (CLONE_NEWNS/CGROUP/UTS/IPC/USER/PID/NET/TIME) a bot may never pass to clone.
DENIED_CLONE_FLAGS = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 \
    | 0x40000000 | 0x00000080

# Calls a CPython bot with numpy and orjson makes (found by tracing the example bots and a bot using
# threads, numpy.linalg, tempfile, hashlib, os.urandom and fork through the sandbox, in both modes),
# and the harmless calls a bot may reasonably add. Deliberately absent, so refused with EPERM: every
# call that reaches another process or the kernel's administration (ptrace, process_vm_*, kcmp, mount
# and namespace calls, set*id, bpf, perf, keys, modules, io_uring, userfaultfd, ...), SysV IPC and
# POSIX message queues, and every call that lets two bots see the same kernel object: flock, inotify,
# fanotify, mincore (the page-cache residency of the shared runtime's files), fadvise and readahead
# (which evict or fill that page cache), futex_waitv and the newer futex_wake/futex_wait/futex_requeue.
# Absent too, every call that answers with a figure of the whole machine, which any process changes and
# any bot could read: sysinfo (free, shared and buffered memory, swap, load averages, the number of
# processes; glibc's sysconf(_SC_PHYS_PAGES) and qsort ask it, and get no answer) and statfs/fstatfs
# (the free blocks and inodes of the host's file systems, on which a bot's code lies). The same figures
# in /proc and /sys are out of reach because neither is mounted in a bot's root.
_PLAIN_SYSCALLS = (
    # files and descriptors
    "read", "write", "readv", "writev", "pread64", "pwrite64", "preadv", "pwritev", "preadv2", "pwritev2",
    "open", "openat", "creat", "close", "close_range", "lseek", "dup", "dup2", "dup3", "pipe", "pipe2",
    "stat", "fstat", "lstat", "newfstatat", "statx", "access", "faccessat",
    "faccessat2", "getdents", "getdents64", "getcwd", "chdir", "fchdir", "mkdir", "mkdirat", "rmdir",
    "unlink", "unlinkat", "rename", "renameat", "renameat2", "link", "linkat", "symlink", "symlinkat",
    "readlink", "readlinkat", "chmod", "fchmod", "fchmodat", "truncate", "ftruncate", "fallocate",
    "fsync", "fdatasync", "umask", "utime", "utimes", "utimensat", "futimesat", "mknod", "mknodat",
    "sendfile", "copy_file_range",
    # waiting on descriptors
    "select", "pselect6", "poll", "ppoll", "epoll_create", "epoll_create1", "epoll_ctl", "epoll_wait",
    "epoll_pwait", "epoll_pwait2", "eventfd", "eventfd2", "signalfd", "signalfd4", "timerfd_create",
    "timerfd_settime", "timerfd_gettime",
    # memory (mmap, madvise: by argument below; mremap only moves or resizes, so it cannot make a
    # private mapping shared)
    "munmap", "mprotect", "mremap", "brk", "msync",
    # signals, within the bot's own pid namespace
    "rt_sigaction", "rt_sigprocmask", "rt_sigreturn", "rt_sigpending", "rt_sigtimedwait", "rt_sigsuspend",
    "sigaltstack", "kill", "tkill", "tgkill", "pause", "alarm", "setitimer", "getitimer", "timer_create",
    "timer_settime", "timer_gettime", "timer_getoverrun", "timer_delete", "restart_syscall",
    # processes and threads (clone: by argument below)
    "fork", "vfork", "execve", "execveat", "exit", "exit_group", "wait4", "waitid", "set_tid_address",
    "set_robust_list", "rseq", "arch_prctl", "getpid", "getppid", "gettid", "getpgrp", "getpgid",
    "setpgid", "getsid", "setsid", "getuid", "geteuid", "getgid", "getegid", "getresuid", "getresgid",
    "getgroups", "capget",
    # time, randomness, scheduling, limits, the kernel's name
    "clock_gettime", "clock_getres", "clock_nanosleep", "nanosleep", "gettimeofday", "time", "times",
    "getrandom", "sched_yield", "sched_getaffinity", "sched_setaffinity", "sched_getparam",
    "sched_getscheduler", "sched_get_priority_max", "sched_get_priority_min", "sched_rr_get_interval",
    "getpriority", "setpriority", "getrlimit", "setrlimit", "prlimit64", "getrusage", "uname", "getcpu", "mbind", "get_mempolicy", "set_mempolicy",
    # Unix sockets inside the bot's own tree (socket and socketpair: by family below)
    "bind", "listen", "accept", "accept4", "connect", "sendto", "recvfrom", "sendmsg", "recvmsg",
    "sendmmsg", "recvmmsg", "shutdown", "getsockname", "getpeername", "setsockopt", "getsockopt",
)

# fcntl commands that touch only the descriptor itself. Absent: record locks (F_GETLK/F_SETLK/F_SETLKW),
# open-file-description locks (F_OFD_*), leases (F_SETLEASE/F_GETLEASE) and dnotify (F_NOTIFY), which
# all put a mark on an inode every bot can open.
_FCNTL_COMMANDS = (
    0,  # F_DUPFD
    1, 2,  # F_GETFD, F_SETFD
    3, 4,  # F_GETFL, F_SETFL
    1030,  # F_DUPFD_CLOEXEC
    1031, 1032,  # F_SETPIPE_SZ, F_GETPIPE_SZ
    1033, 1034,  # F_ADD_SEALS, F_GET_SEALS
    8, 9, 15, 16,  # F_SETOWN, F_GETOWN, F_SETOWN_EX, F_GETOWN_EX (signals stay inside the namespace)
    10, 11,  # F_SETSIG, F_GETSIG
    1035, 1036, 1037, 1038,  # F_GET_RW_HINT, F_SET_RW_HINT, F_GET_FILE_RW_HINT, F_SET_FILE_RW_HINT
)

# ioctl requests Python and numpy make on their own descriptors.
_IOCTL_REQUESTS = (
    0x5401,  # TCGETS (isatty)
    0x5413,  # TIOCGWINSZ
    0x541B,  # FIONREAD
    0x5421,  # FIONBIO
    0x5450, 0x5451,  # FIONCLEX, FIOCLEX
)

# madvise advice with an effect on the caller's own pages only. Absent: MADV_WILLNEED/COLD/PAGEOUT
# (which fill or evict the page cache of shared files), MADV_MERGEABLE (KSM merges identical pages
# across processes, a timing channel), MADV_REMOVE and MADV_HWPOISON.
_MADVISE_ADVICE = (0, 1, 2, 4, 8, 10, 11, 14, 15, 16, 17, 18, 19)

# prctl options that only read, or name the calling thread. Absent, among others: PR_SET_PDEATHSIG (a bot
# could outlive its match), PR_SET_DUMPABLE, PR_SET_PTRACER, PR_SET_CHILD_SUBREAPER, PR_SET_MM,
# PR_SET_SECCOMP, PR_SET_SECUREBITS, PR_SET_NO_NEW_PRIVS, PR_CAPBSET_DROP, PR_SET_KEEPCAPS.
_PRCTL_OPTIONS = (
    2,  # PR_GET_PDEATHSIG
    3,  # PR_GET_DUMPABLE
    7,  # PR_GET_KEEPCAPS
    15, 16,  # PR_SET_NAME, PR_GET_NAME
    21,  # PR_GET_SECCOMP
    23,  # PR_CAPBSET_READ
    27,  # PR_GET_SECUREBITS
    30,  # PR_GET_TIMERSLACK
    37,  # PR_GET_CHILD_SUBREAPER
    39,  # PR_GET_NO_NEW_PRIVS
    40,  # PR_GET_TID_ADDRESS
    42,  # PR_GET_THP_DISABLE
    0x53564D41,  # PR_SET_VMA (glibc names its anonymous mappings)
)
_PR_CAP_AMBIENT, _PR_CAP_AMBIENT_IS_SET = 47, 1

_MAP_SHARED_TYPE, _MAP_PRIVATE, _MAP_ANONYMOUS = 0x03, 0x02, 0x20
_FUTEX_PRIVATE_FLAG = 128

ALLOWED_SYSCALLS: tuple[Syscall, ...] = (
    *(Syscall(name) for name in _PLAIN_SYSCALLS),
    *_when("fcntl", 1, _FCNTL_COMMANDS),
    *_when("ioctl", 1, _IOCTL_REQUESTS),
    *_when("madvise", 2, _MADVISE_ADVICE),
    *_when("prctl", 0, _PRCTL_OPTIONS),
    Syscall("prctl", ((0, _INT, _PR_CAP_AMBIENT), (1, _ALL, _PR_CAP_AMBIENT_IS_SET))),
    # Mappings: private ones, and anonymous shared ones (which only the bot's own tree can reach); a
    # file-backed shared mapping of the runtime would be memory every bot sees.
    Syscall("mmap", ((3, _MAP_SHARED_TYPE, _MAP_PRIVATE),)),
    Syscall("mmap", ((3, _MAP_SHARED_TYPE | _MAP_ANONYMOUS, 0x01 | _MAP_ANONYMOUS),)),
    Syscall("mmap", ((3, _MAP_SHARED_TYPE | _MAP_ANONYMOUS, 0x03 | _MAP_ANONYMOUS),)),
    # The futex of a file-backed page (even a private, never written mapping of libc) is keyed by the
    # file's inode, the same for every bot: only process-private futexes are allowed. A shared one is
    # answered EAGAIN, which every glibc waiter takes for a spurious wake-up and retries (pthread_join
    # waits on a shared futex, so this keeps it working, by polling) instead of aborting.
    Syscall("futex", ((1, _FUTEX_PRIVATE_FLAG, _FUTEX_PRIVATE_FLAG),)),
    Syscall("futex", ((1, _FUTEX_PRIVATE_FLAG, 0),), errno=EAGAIN),
    # Threads and processes, never in new namespaces; clone3 passes its flags in memory the filter
    # cannot read, so it answers ENOSYS and glibc falls back to clone.
    Syscall("clone", ((0, DENIED_CLONE_FLAGS, 0),)),
    Syscall("clone3", errno=ENOSYS),
)

# What a bot's shell still does once its preparation is over and before the bot's code runs, and the
# allowlist refuses a bot: the read-only remount of the code and the mount of /tmp, the change to the
# bot's own host uid (as root), dropping its capabilities, and the prctl options that set no_new_privs,
# the dumpable flag, the parent-death signal and the last half of the filter. A bot's filter comes in two
# stacked halves (:func:`stacked_seccomp_rules`) so that the costly one is installed while the shell
# waits: the kernel's first filter of a process costs far more than a second, small one.
_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE, _PR_SET_SECCOMP, _PR_SET_NO_NEW_PRIVS = 1, 4, 22, 38
_PR_CAP_AMBIENT_CLEAR_ALL = 4
SHELL_SYSCALLS: tuple[Syscall, ...] = (
    Syscall("mount"),
    Syscall("setgroups"),
    Syscall("setresgid"),
    Syscall("setresuid"),
    Syscall("capset"),
    *_when("prctl", 0, (_PR_SET_PDEATHSIG, _PR_SET_DUMPABLE, _PR_SET_SECCOMP, _PR_SET_NO_NEW_PRIVS)),
    Syscall("prctl", ((0, _INT, _PR_CAP_AMBIENT), (1, _ALL, _PR_CAP_AMBIENT_CLEAR_ALL))),
)

# Socket families a bot may create: none reach outside (the network namespace is empty anyway); unix
# sockets are allowed because Python's multiprocessing uses them inside the bot's own tree (each cell,
# and as an ordinary user each bot, has a network namespace of its own, so abstract names are private).
ALLOWED_SOCKET_FAMILIES: tuple[int, ...] = (1,)  # AF_UNIX


@dataclass(frozen=True)
class Policy:
    """The confinement every bot process gets on this machine."""

    mounts: tuple[Mount, ...]
    #: Entries of ``sys.path`` inside the sandbox, after the bot's own folder.
    python_path: tuple[str, ...]
    #: The interpreter a fresh (non-zygote) sandbox executes.
    python_executable: str
    #: Device nodes bound into the bot's /dev.
    devices: tuple[str, ...] = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")
    #: Where the bot's code and its writable folder appear.
    bot_dir: str = BOT_DIR
    tmp_dir: str = "/tmp"
    #: The uid and gid a bot has inside its user namespace (mapped to a unique host uid when root).
    inner_id: int = 1000
    #: Host uids given to bots when the sandbox runs as root: one per bot process, never reused at once.
    host_uid_base: int = 2_100_000_000
    host_uid_span: int = 100_000_000
    #: The seccomp allowlist (everything else fails with EPERM) and the socket families it allows.
    syscalls: tuple[Syscall, ...] = ALLOWED_SYSCALLS
    allowed_socket_families: tuple[int, ...] = ALLOWED_SOCKET_FAMILIES
    #: The library that compiles the filter; a sandbox refuses to start where it cannot be loaded.
    seccomp_library: str = "seccomp"
    #: (host folder, folder inside) pairs: modules the zygote loaded from the first are re-pointed at the
    #: second, so that their lazy submodule imports work from the bot's root.
    relocations: tuple[tuple[str, str], ...] = ()
    #: Modules the zygote imports before forking, so that bots using them start at the cost of a fork.
    preload: tuple[str, ...] = ("json", "random", "math", "collections", "itertools", "numpy", "orjson")
    #: Environment given to the bot: empty, deny by default.
    environment: tuple[tuple[str, str], ...] = field(default=())
    #: Endings of file names the in-memory copy of the runtime leaves out: the bytecode an interpreter
    #: started with -O or -OO would read (a bot's interpreter reads the plain ``.pyc``; one started
    #: optimised compiles the sources instead). A third of the standard library's size.
    unserved_suffixes: tuple[str, ...] = (".opt-1.pyc", ".opt-2.pyc")
    #: As root, the runtime's files of this size or more are bound from the host with their pages locked
    #: in memory rather than copied into it: the shared libraries (numpy's OpenBLAS, libpython, ...),
    #: half the runtime's bytes in a dozen files, then held once for every sandbox on the machine.
    memory_bind_bytes: int = 1024 * 1024
    #: The stack a bot's main thread may grow to (RLIMIT_STACK), in MiB.
    stack_mb: int = 8
    #: The size of the tmpfs a bot's code is copied into, in MiB: the code cache unpacks at most 16 MiB
    #: of an upload and adds its bytecode.
    code_folder_mb: int = 64
    #: What a bot's memory cgroup allows above its memory and ``/tmp`` budgets, in MiB: the kernel's own
    #: bookkeeping for the bot's processes.
    kernel_headroom_mb: int = 32


def seccomp_rules(policy: Policy) -> tuple[Syscall, ...]:
    """Every rule of ``policy``'s seccomp filter: its allowlist and its socket families."""
    families = tuple(Syscall(name, ((0, _INT, family),))
                     for family in policy.allowed_socket_families for name in ("socket", "socketpair"))
    return policy.syscalls + families


def rules_overlap(first: Syscall, second: Syscall) -> bool:
    """Whether one call can match both rules: the same name, and no argument both test that the two
    require different bits of."""
    if first.name != second.name:
        return False
    masks = {argument: (mask, value) for argument, mask, value in first.when}
    for argument, mask, value in second.when:
        if argument in masks:
            other_mask, other_value = masks[argument]
            if (value ^ other_value) & mask & other_mask:
                return False
    return True


def stacked_seccomp_rules(policy: Policy) -> tuple[tuple[Syscall, ...], tuple[Syscall, ...]]:
    """A bot's filter as two stacked halves: the shell's (installed while the shell waits for its bot)
    allows what ``policy``'s filter allows and :data:`SHELL_SYSCALLS` too; the bot's (installed last,
    allowing everything else) refuses :data:`SHELL_SYSCALLS` again with EPERM. The kernel answers a
    call with the stricter of two filters' answers, so together they answer every call exactly as the
    policy's filter alone would, provided no call matches both a shell rule and a rule of the policy:
    ``ValueError`` if one can (a policy allowing one of the shell's calls to its bots)."""
    rules = seccomp_rules(policy)
    for shell_rule in SHELL_SYSCALLS:
        for rule in rules:
            if rules_overlap(shell_rule, rule):
                raise ValueError(f"the policy's rule {rule} overlaps the shell's {shell_rule}: the filter "
                                 "cannot be installed in two halves")
    return rules + SHELL_SYSCALLS, SHELL_SYSCALLS


def _package_dirs(name: str) -> list[str]:
    """The folder of the installed package ``name`` and, for a wheel, the folder of shared libraries
    bundled next to it (``numpy.libs`` for OpenBLAS); real paths."""
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return []
    dirs = [str(Path(location).resolve()) for location in spec.submodule_search_locations]
    for location in list(dirs):
        libs = Path(location).parent / f"{name}.libs"
        if libs.is_dir():
            dirs.append(str(libs.resolve()))
    return dirs


#: Folders of third-party packages that an interpreter's standard library folder may hold.
_PACKAGE_FOLDERS = ("site-packages", "dist-packages")
#: Folders of the standard library that no sandboxed bot can use, hidden like the packages' folders:
#: CPython's own test suite, IDLE and tkinter (there is no display), turtledemo, and ensurepip's bundled
#: wheels (there is nothing to install into). With the build's static library and makefiles (the
#: ``config-*`` folder, named by ``LIBPL``) they are nearly three quarters of its size (180 of 250 MB
#: for CPython 3.11), which every sandbox would otherwise copy into memory.
UNUSABLE_STDLIB_FOLDERS = ("test", "idlelib", "tkinter", "turtledemo", "ensurepip")


def _hidden_folders(stdlib: Path) -> list[str]:
    """The folders inside the standard library's folder that bots do not see: those of third-party
    packages (its ``site-packages``) and those no bot can use. One that is a symlink needs no hiding:
    what it points to is not mounted."""
    names = [*_PACKAGE_FOLDERS, *UNUSABLE_STDLIB_FOLDERS]
    build = Path(sysconfig.get_config_var("LIBPL") or "")
    if build.parent == stdlib:
        names.append(build.name)
    return [str(stdlib / name) for name in names if (stdlib / name).is_dir() and not (stdlib / name).is_symlink()]


def _interpreter() -> str:
    """The base interpreter's executable (never a virtualenv's link to it)."""
    executable = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    return str(executable if executable.exists() else Path(sys.executable).resolve())


def _within(path: str, folders: list[str]) -> bool:
    return any(path == folder or path.startswith(folder + "/") for folder in folders)


def _library_mounts(executable: str, dynload: str, package_dirs: list[str], whole: list[str]) -> list[Mount]:
    """One mount per shared library the interpreter, the standard extension modules and the allowed
    packages' extension modules load (see :mod:`bots.sandbox.runtime_files`), except those already inside
    a folder mounted whole (``whole``: real paths)."""
    objects = [executable, *runtime_files.shared_objects(dynload)]
    for folder in package_dirs:
        objects += runtime_files.shared_objects(folder)
    interpreter = runtime_files.read_elf(os.path.realpath(executable))
    closure = runtime_files.library_closure(objects, interpreter.interpreter if interpreter else None)
    return [Mount(library) for library in closure.libraries if not _within(os.path.realpath(library), whole)]


def _resolved(mounts: list[Mount]) -> list[Mount]:
    """The same mounts with every path shown in place replaced by the symlinks leading to it on the host
    (as ``link`` mounts) and its real path: each then lies in a real folder, so the root is built without
    ever going through a symlink, and nothing is resolved again for each bot."""
    known: dict[str, str | None] = {}
    resolved = []
    for mount in mounts:
        if mount.target is not None or mount.link is not None or not os.path.lexists(mount.path):
            resolved.append(mount)
            continue
        links, real = runtime_files.symlink_chain(mount.path, known)
        resolved += [Mount(where, required=mount.required, link=text) for where, text in links]
        resolved.append(Mount(real, required=mount.required, empty=mount.empty))
    return resolved


@lru_cache(maxsize=1)
def default_policy() -> Policy:
    """The policy for the running interpreter: the interpreter, its standard library (less the packages
    installed in it and the folders no bot can use), the allowed packages, and the shared libraries all
    of these load; nothing else."""
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    dynload = str(Path(sysconfig.get_config_var("DESTSHARED") or stdlib / "lib-dynload").resolve())
    executable = _interpreter()
    mounts = [Mount(executable), Mount(str(stdlib))]
    mounts += [Mount(folder, required=False, empty=True) for folder in _hidden_folders(stdlib)]
    whole = [str(stdlib)]
    if not _within(dynload, whole):
        mounts.append(Mount(dynload))
        whole.append(dynload)
    # Allowed packages appear under one neutral folder, so that the bot learns nothing of where the
    # project's virtualenv lives.
    package_mounts, package_dirs, relocations = [], [], []
    for package in ALLOWED_PACKAGES:
        for location in _package_dirs(package):
            package_dirs.append(location)
            package_mounts.append(Mount(location, target=f"{PACKAGES_DIR}/{Path(location).name}"))
            relocation = (str(Path(location).parent), PACKAGES_DIR)
            if relocation not in relocations:
                relocations.append(relocation)
    # A package's bundled libraries are found inside through its own RPATH ($ORIGIN/../numpy.libs),
    # which the relocation keeps.
    mounts += _library_mounts(executable, dynload, package_dirs, whole + package_dirs)
    mounts += package_mounts
    python_path = [str(stdlib), dynload, PACKAGES_DIR]
    return Policy(
        mounts=tuple(_dedupe(_resolved(mounts))),
        python_path=tuple(python_path),
        relocations=tuple(relocations),
        python_executable=executable,
    )


def _dedupe(mounts: list[Mount]) -> list[Mount]:
    """The first mount of each place inside."""
    seen: set[str] = set()
    unique = []
    for mount in mounts:
        if mount.inside not in seen:
            seen.add(mount.inside)
            unique.append(mount)
    return unique


