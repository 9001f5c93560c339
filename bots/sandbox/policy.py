"""The sandbox policy as data: what a bot may see, use and spend. Everything not listed is denied.

:class:`Limits` (from :mod:`bots.limits`) are the per-match budgets a caller chooses (settings, per game,
per tournament).
:class:`Policy` is the machine's fixed confinement: the folders mounted read-only into every bot's root
(the Python runtime and the allowed packages, resolved once from the running interpreter), the size of
the private writable ``/tmp``, the namespaces, the syscalls refused by the seccomp filter and the uid range
bots run under. :func:`default_policy` builds it; nothing else in the package invents paths or limits.
"""

from __future__ import annotations

import importlib.util
import sys
import sysconfig
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bots.limits import Limits  # noqa: F401 - the budgets live apart from the confinement; re-exported

#: Third-party packages a bot may import. Everything else of the project's virtualenv stays invisible.
#: (The SDK itself parses the referee's messages with orjson.)
ALLOWED_PACKAGES: tuple[str, ...] = ("numpy", "orjson")
#: Where the allowed packages appear inside a bot's root.
PACKAGES_DIR = "/opt/packages"
#: Where a bot's own code appears inside its root.
BOT_DIR = "/bot"


@dataclass(frozen=True)
class Mount:
    """A host path shown read-only inside every bot's root, at ``target`` or else at the same path."""

    path: str
    #: Missing optional paths (``/lib64`` on some systems) are skipped; missing required ones fail closed.
    required: bool = True
    target: str | None = None

    @property
    def inside(self) -> str:
        return self.target or self.path


# Syscalls that no bot needs and that widen the kernel's attack surface or reach outside the sandbox.
# The namespaces already deny their effect; the filter turns them into EPERM before the kernel looks.
DENIED_SYSCALLS: tuple[str, ...] = (
    "ptrace", "process_vm_readv", "process_vm_writev", "kcmp", "pidfd_getfd",
    "mount", "umount2", "pivot_root", "chroot", "move_mount", "open_tree", "fsopen", "fsmount",
    "fsconfig", "fspick", "mount_setattr", "unshare", "setns", "clone3",
    "bpf", "perf_event_open", "userfaultfd", "keyctl", "add_key", "request_key",
    "init_module", "finit_module", "delete_module", "kexec_load", "kexec_file_load",
    "reboot", "swapon", "swapoff", "acct", "quotactl", "syslog", "settimeofday", "clock_settime",
    "adjtimex", "clock_adjtime", "sethostname", "setdomainname", "iopl", "ioperm",
    "open_by_handle_at", "name_to_handle_at", "lookup_dcookie", "vhangup", "personality",
    "io_uring_setup", "io_uring_enter", "io_uring_register", "fanotify_init",
)

# Socket families a bot may create: none reach outside (the network namespace is empty anyway); unix
# sockets are allowed because Python's multiprocessing uses them inside the bot's own tree.
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
    denied_syscalls: tuple[str, ...] = DENIED_SYSCALLS
    allowed_socket_families: tuple[int, ...] = ALLOWED_SOCKET_FAMILIES
    #: (host folder, folder inside) pairs: modules the zygote loaded from the first are re-pointed at the
    #: second, so that their lazy submodule imports work from the bot's root.
    relocations: tuple[tuple[str, str], ...] = ()
    #: Modules the zygote imports before forking, so that bots using them start at the cost of a fork.
    preload: tuple[str, ...] = ("json", "random", "math", "collections", "itertools", "numpy", "orjson")
    #: Environment given to the bot: empty, deny by default.
    environment: tuple[tuple[str, str], ...] = field(default=())


def _package_dirs(name: str) -> list[str]:
    spec = importlib.util.find_spec(name)
    if spec is None or not spec.submodule_search_locations:
        return []
    dirs = [str(Path(location).resolve()) for location in spec.submodule_search_locations]
    # Wheels keep their bundled shared libraries next to the package (numpy.libs for OpenBLAS).
    for location in list(dirs):
        libs = Path(location).parent / f"{name}.libs"
        if libs.is_dir():
            dirs.append(str(libs.resolve()))
    return dirs


@lru_cache(maxsize=1)
def default_policy() -> Policy:
    """The policy for the running interpreter: its standard library, libc and the allowed packages."""
    base = Path(sys.base_prefix).resolve()
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    mounts = [Mount(str(base / "bin")), Mount(str(base / "lib"))]
    # Shared libraries the interpreter and numpy link against. On merged-/usr systems /lib and /lib64
    # are symlinks into /usr, reproduced as symlinks inside the bot's root.
    for path in ("/usr/lib", "/usr/lib64", "/lib", "/lib64", "/usr/local/lib"):
        mounts.append(Mount(path, required=path == "/usr/lib"))
    # Allowed packages appear under one neutral folder, so that the bot learns nothing of where the
    # project's virtualenv lives.
    relocations = []
    for package in ALLOWED_PACKAGES:
        for location in _package_dirs(package):
            mounts.append(Mount(location, target=f"{PACKAGES_DIR}/{Path(location).name}"))
            relocation = (str(Path(location).parent), PACKAGES_DIR)
            if relocation not in relocations:
                relocations.append(relocation)
    python_path = [str(stdlib), str(stdlib / "lib-dynload"), PACKAGES_DIR]
    executable = base / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    return Policy(
        mounts=tuple(_dedupe(mounts)),
        python_path=tuple(python_path),
        relocations=tuple(relocations),
        python_executable=str(executable if executable.exists() else Path(sys.executable).resolve()),
    )


def _dedupe(mounts: list[Mount]) -> list[Mount]:
    seen: set[str] = set()
    unique = []
    for mount in mounts:
        if mount.path not in seen:
            seen.add(mount.path)
            unique.append(mount)
    return unique


