"""The sandbox policy as data: what a bot may see, use and spend. Everything not listed is denied.

:class:`Limits` are the per-match budgets a caller chooses (settings, per game, per tournament).
:class:`Policy` is the machine's fixed confinement: the folders mounted read-only into every bot's root
(the Python runtime and the allowed packages, resolved once from the running interpreter), the size of
the private writable ``/tmp``, the namespaces, the syscalls refused by the seccomp filter and the uid range
bots run under. :func:`default_policy` builds it; nothing else in the package invents paths or limits.
"""

from __future__ import annotations

import importlib.util
import os
import sys
import sysconfig
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from bots.sandbox import runtime_files

#: Third-party packages a bot may import. Everything else of the project's virtualenv stays invisible.
#: (The SDK itself parses the referee's messages with orjson.)
ALLOWED_PACKAGES: tuple[str, ...] = ("numpy", "orjson")
#: Where the allowed packages appear inside a bot's root.
PACKAGES_DIR = "/opt/packages"
#: Where a bot's own code appears inside its root.
BOT_DIR = "/bot"


@dataclass(frozen=True)
class Limits:
    """What one seat may spend in one match.

    ``move_ms`` is the wall-clock allowance of every decision; time beyond it is taken from the match's
    ``bank_ms`` (a chess clock), and a decision that outlasts both forfeits with ``timeout``. ``match_ms``
    caps the seat's decisions together, so that a match ends in bounded time however many decisions the
    game asks for: a seat that has spent it forfeits with ``timeout`` too.
    """

    move_ms: int = 1000
    bank_ms: int = 20000
    #: Wall-clock time of all the seat's decisions in the match. Seats think in turn, so a full table of
    #: five takes up to 5 x (start_ms + match_ms) = 175 s, inside the default soft time limit (240 s).
    match_ms: int = 30000
    memory_mb: int = 256
    log_bytes: int = 65536
    #: CPU seconds for the whole process tree's life (a busy background thread cannot outrun it).
    cpu_seconds: int = 60
    #: Processes and threads the bot may have at once (its own interpreter included).
    max_processes: int = 16
    #: Size of the private writable /tmp.
    tmp_mb: int = 16
    #: Wall-clock allowance for importing the bot and answering ``start``.
    start_ms: int = 5000
    #: Largest single protocol message the referee accepts from a bot.
    max_message_bytes: int = 1024 * 1024
    #: Largest file the bot may write (RLIMIT_FSIZE), bounded in any case by ``tmp_mb``.
    file_mb: int = 16
    #: Open file descriptors.
    max_open_files: int = 64


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


def _hidden_package_folders(stdlib: Path) -> list[str]:
    """The folders of third-party packages inside the standard library's folder (its ``site-packages``).
    One that is a symlink needs no hiding: what it points to is not mounted."""
    return [str(stdlib / name) for name in _PACKAGE_FOLDERS
            if (stdlib / name).is_dir() and not (stdlib / name).is_symlink()]


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
    installed in it), the allowed packages, and the shared libraries all of these load; nothing else."""
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    dynload = str(Path(sysconfig.get_config_var("DESTSHARED") or stdlib / "lib-dynload").resolve())
    executable = _interpreter()
    mounts = [Mount(executable), Mount(str(stdlib))]
    mounts += [Mount(folder, required=False, empty=True) for folder in _hidden_package_folders(stdlib)]
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


