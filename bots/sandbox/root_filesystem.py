"""The bot's view of files: the read-only runtime root every bot enters, and the code and /tmp each adds.

The root holds the runtime's files (the policy's mounts, :func:`runtime_mounts`): as root, a copy in memory
that the zygote makes once for all its bots (:func:`build_memory_root`); as an ordinary user, bind mounts of
the host's files that each shell makes (:func:`build_template`). A shell mounts the empty tmpfs of the
bot's code ahead of need (:func:`mount_code_folder`), enters the root (:func:`pivot_into`) and mounts the
bot's private /tmp (:func:`mount_tmp`); once its bot is known it copies the bot's code in
(:func:`copy_code`). The shell's life around these steps is :mod:`bots.sandbox.launch`'s.
"""

from __future__ import annotations

import os
import stat
import time
from dataclasses import dataclass

from bots.limits import Limits
from bots.sandbox import linux
from bots.sandbox.policy import Mount, Policy
from bots.sandbox.runtime_files import symlink_chain


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
    those two mounts of their own (:func:`copy_code`, :func:`mount_tmp`), so a cell builds it once for all
    its bots.

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


def mount_code_folder(target: str, policy: Policy) -> None:
    """Mount the empty tmpfs that will hold the bot's code (:func:`copy_code`), ahead of need."""
    linux.mount("tmpfs", target, "tmpfs", _CODE_FLAGS, f"size={policy.code_folder_mb}m,mode=755")


def copy_code(source: int, target: str) -> None:
    """Show the bot's code, the folder open at descriptor ``source``, at ``target`` (the tmpfs of
    :func:`mount_code_folder`) as a copy, read-only.

    Two seats running the same upload share its folder of the host's code cache (and so do a bot and
    the next one to run that upload): bound from there, what one read or looked up in it, the other
    could time (the machine's page and dentry caches). A copy of its own is only ever in memory, and
    counts towards the bot's memory (it is written from the bot's cgroups)."""
    mask = os.umask(0o022)
    try:
        copy_tree(source, target)
    finally:
        os.umask(mask)
    linux.mount(None, target, None, linux.MS_REMOUNT | linux.MS_BIND | linux.MS_RDONLY | _CODE_FLAGS)


def pivot_into(new_root: str) -> None:
    """Make the template root this process's root and detach the host's tree (done by the shell while it
    waits: nothing of the host is visible to it from then on but what the host sends)."""
    os.chdir(new_root)
    linux.pivot_root(".", ".")
    linux.umount2(".", linux.MNT_DETACH)
    os.chdir("/")


def copy_tree(folder: int, target: str) -> None:
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
                copy_tree(inner, place)
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


#: The size of the /tmp a shell mounts ahead of its bot (:func:`mount_tmp`): the default limit, which
#: most bots get; one that asks for another size has it resized at its start.
DEFAULT_TMP_MB = Limits().tmp_mb
_TMP_FLAGS = linux.MS_NOSUID | linux.MS_NODEV | linux.MS_NOEXEC


def mount_tmp(policy: Policy, size_mb: int, *, remount: bool = False) -> None:
    """Mount the bot's private, empty /tmp of ``size_mb`` MiB (its pages count towards the bot's memory,
    written from its cgroups), or resize the one mounted (it is still empty then)."""
    if remount:
        linux.mount(None, policy.tmp_dir, None, linux.MS_REMOUNT | _TMP_FLAGS, f"size={size_mb}m")
    else:
        linux.mount("tmpfs", policy.tmp_dir, "tmpfs", _TMP_FLAGS, f"size={size_mb}m,mode=1777")


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
