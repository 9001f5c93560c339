"""Per-bot control groups: a memory cap that counts what the bot really uses, a bound on its processes,
one CPU core at most, a freezer that stops every process of the bot between its turns, and a reliable way
to find every process it left behind.

cgroup v1 (separate ``memory``, ``pids``, ``cpu`` and ``freezer`` hierarchies) and v2 (the unified
hierarchy with the controllers delegated to us, and its built-in ``cgroup.freeze``) are both supported.
Groups are created under the worker's own group in a folder named after the worker
(``botladder-owned-<pid>-<random>``), so that the limits of the machine or container above still apply.

*Whose groups these are.* Workers on one machine share the groups their folders sit in, and may each see
a pid namespace of their own (containers), where a pid names nobody or somebody else. So ownership is
not a pid: the worker holds an exclusive ``flock`` on each of its folders for as long as it lives (a
descriptor closed on exec, so none of the programs it starts holds it). The kernel keeps such a lock on
the folder itself, the same for every namespace that reaches it, and lets go of it only when the last
descriptor of the owner is closed, its death included. A sandbox starting removes the groups whose lock
it can take (their owner is provably gone), thawing and killing what is left in them; it never touches a
folder whose lock is held. Folders of the older naming (``botladder-<pid>-<random>``, owned by a pid) are
left alone: nothing proves their owner gone. A worker removes its own groups when its sandbox closes, on
every ordinary stop (:func:`remove_worker_groups`).
Where neither is writable (an ordinary user without delegation) :func:`detect` returns None and the
sandbox relies on rlimits and the pid namespace alone.

*The freezer.* Freezing a bot's group (:meth:`BotCgroup.freeze`) is one write to a descriptor kept open:
the kernel tells every task of the group to stop, and each stops at its next return to user space, within
microseconds. A task blocked in a system call (a bot waiting on its stdin) stops there and its call
restarts untouched once thawed, so nothing written to it meanwhile is lost. In v1 a frozen task does not
act on SIGKILL until it is thawed: whatever kills a bot thaws its group after sending the signal, and
groups are thawed before they are emptied or removed. On v1 (kernels from 6.1) the first group frozen on
the machine and the last one thawed also switch a static key, which patches kernel text on every CPU;
a worker therefore keeps one empty group of its own frozen for its whole life
(``freezer-pin``), and freezing a bot then costs a few microseconds.
"""

from __future__ import annotations

import fcntl
import itertools
import logging
import os
import signal
import time
from pathlib import Path

from bots.sandbox.policy import Limits

logger = logging.getLogger("bots.sandbox")

_ROOT = Path("/sys/fs/cgroup")
_CPU_PERIOD_US = 100_000
# An empty group kept frozen while the worker lives (see the module docstring).
_FREEZER_PIN = "freezer-pin"
# The worker's folder on each hierarchy, locked by its owner (see the module docstring). The word after
# "botladder-" is not a number, so that sandboxes of the older code, which took it for the owner's pid,
# leave these folders alone.
PARENT_PREFIX = "botladder-owned-"
# How long a starting worker waits for a stale clean-up that took its new folder for a dead one's.
_CLAIM_TIMEOUT_S = 2.0
_counter = itertools.count(1)
# This process's worker groups, until closed (for :func:`remove_worker_groups`).
_live: list[Cgroups] = []


def _oom_kill_count(raw: bytes) -> int:
    """The ``oom_kill`` count of a memory.events (v2) or memory.oom_control (v1) text."""
    for line in raw.decode().splitlines():
        key, _, value = line.partition(" ")
        if key == "oom_kill":
            return int(value)
    return 0


def _own_paths() -> dict[str, str]:
    """Controller (or ``""`` for v2) -> this process's group path, from /proc/self/cgroup."""
    paths = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        _, controllers, path = line.split(":", 2)
        for controller in controllers.split(",") if controllers else [""]:
            paths[controller] = path
    return paths


def _mounts() -> dict[str, Path]:
    """Controller (or ``""`` for v2) -> mount point, from /proc/self/mountinfo."""
    found: dict[str, Path] = {}
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        left, _, right = line.partition(" - ")
        fstype, _, super_options = right.split(" ", 2)
        mount_point = Path(left.split()[4])
        if fstype == "cgroup2":
            found.setdefault("", mount_point)
        elif fstype == "cgroup":
            for option in super_options.split(","):
                if option in ("memory", "pids", "cpu", "freezer"):
                    found.setdefault(option, mount_point)
    return found


class BotCgroup:
    """The groups of one bot process tree."""

    def __init__(self, dirs: list[Path], memory_dir: Path | None, version: int,
                 freezer_dir: Path | None = None) -> None:
        self.dirs = dirs
        self.memory_dir = memory_dir
        self.version = version
        #: The group whose freezer stops the bot (None where the machine has no freezer).
        self.freezer_dir = freezer_dir
        #: Whether the group was last asked to freeze (only this object freezes it).
        self.frozen = False
        self._freezer_fd = -1
        self._oom = False
        self._oom_fd = -1
        # The memory events' last text read and its count of OOM kills (see oom_kills).
        self._oom_raw: bytes | None = None
        self._oom_kills = 0
        # What the groups were last set to: only this object writes their limits, so a cell that hosts
        # bot after bot with the same limits need not rewrite them (each write costs the kernel a lot).
        self._applied: tuple | None = None

    def apply(self, limits: Limits, extra_processes: int = 0, *, headroom_mb: int) -> None:
        """Set the memory, process and CPU caps of ``limits`` (plus ``extra_processes`` of ours, and
        ``headroom_mb`` of memory for the kernel's own bookkeeping: ``Policy.kernel_headroom_mb``)."""
        wanted = (limits.memory_mb, limits.tmp_mb, limits.max_processes + extra_processes, headroom_mb)
        if wanted == self._applied:
            return
        # Forgotten first: a write that fails half-way must be redone in full next time.
        self._applied = None
        memory_bytes = (limits.memory_mb + limits.tmp_mb + headroom_mb) * 1024 * 1024
        for directory in self.dirs:
            if self.version == 2:
                _write(directory / "memory.max", str(memory_bytes))
                _write(directory / "memory.swap.max", "0", optional=True)
                _write(directory / "pids.max", str(limits.max_processes + extra_processes))
                _write(directory / "cpu.max", f"{_CPU_PERIOD_US} {_CPU_PERIOD_US}", optional=True)
            elif (directory / "memory.limit_in_bytes").exists():
                # memsw must never be below the plain limit, so it is lifted first and set last.
                _write(directory / "memory.memsw.limit_in_bytes", "-1", optional=True)
                _write(directory / "memory.limit_in_bytes", str(memory_bytes))
                _write(directory / "memory.memsw.limit_in_bytes", str(memory_bytes), optional=True)
            elif (directory / "pids.max").exists():
                _write(directory / "pids.max", str(limits.max_processes + extra_processes))
            elif (directory / "cpu.cfs_quota_us").exists():
                _write(directory / "cpu.cfs_period_us", str(_CPU_PERIOD_US))
                _write(directory / "cpu.cfs_quota_us", str(_CPU_PERIOD_US))
        self._applied = wanted

    def freeze(self) -> None:
        """Stop every process in the group until :meth:`thaw`; OSError if the freezer refuses."""
        # Believed frozen from before the write: a failure then leaves a thaw to be tried, never skipped.
        self.frozen = True
        os.write(self._freezer(), b"FROZEN" if self.version == 1 else b"1")

    def thaw(self) -> None:
        """Let the group's processes run again (and act on a SIGKILL sent while frozen); safe to repeat."""
        os.write(self._freezer(), b"THAWED" if self.version == 1 else b"0")
        self.frozen = False

    def frozen_on_disk(self) -> bool:
        """Whether the kernel holds the group frozen (or freezing), read from its files; for checks."""
        if self.freezer_dir is None:
            return False
        try:
            if self.version == 1:
                return (self.freezer_dir / "freezer.state").read_text().strip() != "THAWED"
            return (self.freezer_dir / "cgroup.freeze").read_text().strip() != "0"
        except OSError:
            return False

    def _freezer(self) -> int:
        if self._freezer_fd < 0:
            if self.freezer_dir is None:
                raise OSError("this bot's cgroups have no freezer")
            name = "freezer.state" if self.version == 1 else "cgroup.freeze"
            self._freezer_fd = os.open(self.freezer_dir / name, os.O_WRONLY | os.O_CLOEXEC)
        return self._freezer_fd

    @property
    def procs_files(self) -> list[str]:
        return [str(d / "cgroup.procs") for d in self.dirs]

    def oom_kills(self) -> int:
        """How many processes the kernel has killed in this group for exceeding the memory cap.

        Read after every decision, so the file stays open and is re-read in place, and its text is parsed
        only when it differs from the last text read (nearly always it is the same).
        """
        if self.memory_dir is None:
            return 0
        try:
            if self._oom_fd < 0:
                name = "memory.oom_control" if self.version == 1 else "memory.events"
                self._oom_fd = os.open(self.memory_dir / name, os.O_RDONLY | os.O_CLOEXEC)
            raw = os.pread(self._oom_fd, 4096, 0)
        except OSError:
            return 0
        if raw != self._oom_raw:
            self._oom_raw, self._oom_kills = raw, _oom_kill_count(raw)
        return self._oom_kills

    def pids(self) -> set[int]:
        found: set[int] = set()
        for directory in self.dirs:
            try:
                found.update(int(pid) for pid in (directory / "cgroup.procs").read_text().split())
            except OSError:
                pass
        return found

    def bot_pids(self) -> set[int]:
        """Members not running as root: as root the sandbox's own helpers are uid 0 and bots never are."""
        found = set()
        for pid in self.pids():
            try:
                with open(f"/proc/{pid}/status") as status:
                    for line in status:
                        if line.startswith("Uid:"):
                            if int(line.split()[1]) != 0:
                                found.add(pid)
                            break
            except OSError:
                pass
        return found

    def wait_until_no_bot(self, forker: int, timeout_s: float = 2.0) -> bool:
        """Wait until no bot process is left, SIGKILLing stragglers after a short grace.

        False if that does not happen in time or if ``forker`` (the cell) itself is gone. Polls with a
        growing pause: a dying pid namespace usually empties within a millisecond or two.
        """
        deadline = time.monotonic() + timeout_s
        grace = time.monotonic() + 0.2
        pause = 0.0005
        if self.frozen:
            # A frozen bot would never die: a killer that failed to thaw it is made good here.
            try:
                self.thaw()
            except OSError:
                return False
        while True:
            bots = self.bot_pids()
            if not bots:
                return forker in self.pids()
            now = time.monotonic()
            if now > deadline:
                return False
            if now > grace:
                for pid in bots:
                    self._kill_member(pid)
            time.sleep(pause)
            pause = min(pause * 2, 0.05)

    def _kill_member(self, pid: int) -> None:
        """SIGKILL ``pid`` only if it is still in this group: a pidfd pins it, so a recycled pid is never hit."""
        try:
            pidfd = os.pidfd_open(pid)
        except OSError:
            return
        try:
            if pid in self.pids():
                signal.pidfd_send_signal(pidfd, signal.SIGKILL)
        except ProcessLookupError:
            pass
        finally:
            os.close(pidfd)

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of this bot for exceeding the memory cap."""
        if self._oom or self.memory_dir is None:
            return self._oom
        name = "memory.oom_control" if self.version == 1 else "memory.events"
        try:
            for line in (self.memory_dir / name).read_text().splitlines():
                key, _, value = line.partition(" ")
                if key == "oom_kill" and int(value) > 0:
                    self._oom = True
        except OSError:
            pass
        return self._oom

    def kill_and_remove(self, timeout_s: float = 2.0) -> None:
        """SIGKILL whatever is left in the groups, then remove them; safe to repeat."""
        self.oom_killed()
        for fd in (self._oom_fd, self._freezer_fd):
            if fd >= 0:
                os.close(fd)
        self._oom_fd = self._freezer_fd = -1
        deadline = time.monotonic() + timeout_s
        for directory in self.dirs:
            kill_file = directory / "cgroup.kill"
            if self.version == 2 and kill_file.exists():
                try:
                    kill_file.write_text("1")
                except OSError:
                    pass
        remaining = list(self.dirs)
        while remaining and time.monotonic() < deadline:
            for directory in list(remaining):
                try:
                    pids = (directory / "cgroup.procs").read_text().split()
                except FileNotFoundError:
                    remaining.remove(directory)
                    continue
                for pid in pids:
                    self._kill_member(int(pid))
                if pids:
                    # Frozen tasks act on the SIGKILL only once thawed.
                    _thaw(directory)
                else:
                    try:
                        directory.rmdir()
                        remaining.remove(directory)
                    except OSError:
                        pass
            if remaining:
                time.sleep(0.002)
        if remaining:
            logger.error("bot cgroups could not be removed: %s", ", ".join(map(str, remaining)))


class Cgroups:
    """The worker's parent groups, made and locked by :meth:`claim` (one per hierarchy); :meth:`create`
    makes one :class:`BotCgroup` per bot in them. The groups are this process's while it holds their
    locks, which :meth:`close` lets go of once it has removed them."""

    def __init__(self, version: int) -> None:
        self.parents: dict[str, Path] = {}
        self.version = version
        self._locks: list[int] = []
        self._pid = os.getpid()
        _live.append(self)

    def claim(self, controller: str, parent: Path) -> None:
        """Make ``parent`` this worker's group for ``controller`` (``""`` for v2), locked (:func:`_claim`)."""
        self._locks.append(_claim(parent))
        self.parents[controller] = parent

    def create(self) -> BotCgroup:
        """Empty groups for one bot; :meth:`BotCgroup.apply` sets their limits once they are known."""
        name = f"bot-{next(_counter)}"
        dirs = []
        memory_dir = freezer_dir = None
        try:
            for controller, parent in self.parents.items():
                directory = parent / name
                directory.mkdir()
                dirs.append(directory)
                if controller in ("memory", ""):
                    memory_dir = directory
                if controller == "freezer" or (controller == "" and (directory / "cgroup.freeze").exists()):
                    freezer_dir = directory
        except OSError:
            BotCgroup(dirs, memory_dir, self.version).kill_and_remove()
            raise
        return BotCgroup(dirs, memory_dir, self.version, freezer_dir)

    @property
    def can_freeze(self) -> bool:
        """Whether the groups :meth:`create` makes have a freezer."""
        return "freezer" in self.parents or (self.version == 2 and (self.parents[""] / "cgroup.freeze").exists())

    def pin_freezer(self) -> None:
        """Keep an empty group frozen while this worker lives, so that freezing a bot is cheap (v1)."""
        if "freezer" not in self.parents:
            return
        pin = self.parents["freezer"] / _FREEZER_PIN
        try:
            pin.mkdir(exist_ok=True)
            (pin / "freezer.state").write_text("FROZEN")
        except OSError as exc:
            logger.warning("could not pin the cgroup freezer (freezing each bot costs more): %s", exc)

    def close(self) -> None:
        """Kill what is left in the groups, remove them (the freezer pin thawed first) and let go of their
        locks; safe to repeat. Takes no lock of ours, so a signal handler may call it, whatever the
        interrupted code held. In a forked child it does nothing: the groups are its parent's."""
        if os.getpid() != self._pid:
            return
        for parent in self.parents.values():
            _remove_tree(parent, self.version)
        while self._locks:
            # One at a time off the list: a signal handler closing too never closes a descriptor twice.
            os.close(self._locks.pop())
        if self in _live:
            _live.remove(self)

    def describe(self) -> str:
        return f"cgroup v{self.version} ({', '.join(c or 'unified' for c in self.parents)})"


def remove_worker_groups() -> None:
    """Remove every worker group this process made and still holds (see :meth:`Cgroups.close`): for a
    process about to stop, even from a signal handler. The sandboxes' other processes need no such help:
    they die with their host."""
    for cgroups in list(_live):
        cgroups.close()


def _child_groups(parent: Path) -> list[Path]:
    """The bots' groups under a worker's group, and its freezer pin."""
    return [*parent.glob("bot-*"), *parent.glob(_FREEZER_PIN)]


def _remove_tree(parent: Path, version: int, timeout_s: float = 2.0) -> bool:
    """Thaw, empty and remove a worker's groups, then its folder; whether it is gone.

    Every group is thawed first: a frozen task acts on no SIGKILL (v1), and the tasks of another pid
    namespace, which ``cgroup.procs`` does not show us, can then at least die of the one their
    namespace's end sent them. Retried until ``timeout_s``, for a group that a cell's start was making
    meanwhile.
    """
    deadline = time.monotonic() + timeout_s
    while True:
        for child in _child_groups(parent):
            _thaw(child)
            BotCgroup([child], None, version).kill_and_remove(timeout_s=max(0.1, deadline - time.monotonic()))
        try:
            parent.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError as exc:
            if time.monotonic() > deadline:
                logger.error("cgroup %s could not be removed: %s", parent, exc)
                return False
        time.sleep(0.01)


def _claim(parent: Path) -> int:
    """Create ``parent`` and take its lock; returns the descriptor that holds it (OSError if it cannot).

    A sandbox cleaning up may find the folder between its creation and the lock, take it for a dead
    worker's and remove it (it is empty then): the lock is then taken on a folder that is gone, or not at
    all while that sandbox holds it, so the folder is made again.
    """
    deadline = time.monotonic() + _CLAIM_TIMEOUT_S
    while time.monotonic() < deadline:
        try:
            parent.mkdir()
        except FileExistsError:
            pass  # ours from a previous round, still there
        try:
            fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
        except FileNotFoundError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            if os.stat(parent).st_ino == os.fstat(fd).st_ino:
                return fd
        except (BlockingIOError, FileNotFoundError):
            pass
        except BaseException:
            os.close(fd)
            raise
        os.close(fd)
        time.sleep(0.005)
    raise OSError(f"{parent} is held by another process")


def _abandoned(parent: Path) -> int | None:
    """A descriptor holding ``parent``'s lock if nobody else held it (its owner is gone), else None."""
    try:
        fd = os.open(parent, os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except OSError:
        os.close(fd)
        return None
    return fd


def _thaw(directory: Path) -> None:
    """Thaw a group found on disk (its owner may be gone), whichever freezer it has."""
    for name, value in (("freezer.state", "THAWED"), ("cgroup.freeze", "0")):
        if (directory / name).exists():
            _write(directory / name, value, optional=True)


def _write(path: Path, value: str, optional: bool = False) -> None:
    try:
        path.write_text(value)
    except OSError:
        if not optional:
            raise


def _remove_stale(base: Path) -> None:
    """Remove the groups of workers that are gone: those whose lock nobody holds (see the module
    docstring). The lock is held while they are removed, so two sandboxes never remove one together."""
    version = 2 if (base / "cgroup.controllers").exists() else 1
    for parent in base.glob(PARENT_PREFIX + "*"):
        fd = _abandoned(parent)
        if fd is None:
            continue
        try:
            _remove_tree(parent, version, timeout_s=0.5)
        finally:
            os.close(fd)


def detect(tag: str) -> Cgroups | None:
    """Create this worker's parent groups (named after ``tag``, which starts with our pid) and take their
    locks; None where cgroups are not usable. Groups left behind by dead workers are removed on the way."""
    if os.geteuid() != 0:
        return None
    try:
        mounts, own = _mounts(), _own_paths()
    except OSError:
        return None
    name = PARENT_PREFIX + tag
    if "memory" in mounts and "pids" in mounts:
        # Filled as each parent is claimed, so that a failure half-way removes what was made.
        cgroups = Cgroups(1)
        for controller in ("memory", "pids", "cpu", "freezer"):
            if controller in mounts:
                base = mounts[controller] / own.get(controller, "/").lstrip("/")
                try:
                    _remove_stale(base)
                    cgroups.claim(controller, base / name)
                except OSError as exc:
                    logger.warning("cgroup v1 %s not writable: %s", controller, exc)
                    if controller == "freezer":
                        continue  # bots are then paused by signals (see bots.sandbox)
                    cgroups.close()
                    return None
        cgroups.pin_freezer()
        return cgroups
    if "" in mounts:
        base = mounts[""] / own.get("", "/").lstrip("/")
        cgroups = Cgroups(2)
        try:
            _remove_stale(base)
            available = (base / "cgroup.controllers").read_text().split()
            if not {"memory", "pids"} <= set(available):
                cgroups.close()
                return None
            cgroups.claim("", base / name)
            wanted = [c for c in ("memory", "pids", "cpu") if c in available]
            (base / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in wanted))
            (base / name / "cgroup.subtree_control").write_text(" ".join(f"+{c}" for c in wanted))
        except OSError as exc:
            logger.warning("cgroup v2 not usable: %s", exc)
            cgroups.close()
            return None
        return cgroups
    return None
