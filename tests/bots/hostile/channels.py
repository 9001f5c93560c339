"""Both seats run this: each tries every kernel object two bots could share to see the other.

Seat 0 leaves marks, seat 1 looks for them, in turns (a seat that is not on move may be frozen, so
nothing here needs both to run at once):

- seat 0, turn 1: holds a flock, a record lock and an OFD lock on a stdlib file; binds an abstract Unix
  socket; creates SysV semaphores, shared memory and a message queue, a POSIX message queue and files in
  /dev/shm and /tmp;
- seat 1, turn 1: looks for all of those; sets an inotify watch and a dnotify on stdlib files, drops a
  seldom-read stdlib file from the page cache and notes its pages' residency (mincore), and leaves a
  thread waiting on a shared futex of a read-only mapping of a stdlib file (private and shared mapping);
- seat 0, turn 2: reads the watched files and wakes the futexes (and sees whether anyone waited);
- seat 1, turn 2: looks at its watches, the residency and its waiters.

And through the machine as a whole (the kernel's own figures, which both seats, and the bots of every
other match on the machine, read alike):

- seat 1, turn 1: notes ``sysinfo``'s shared memory and the free blocks and inodes ``statfs`` gives of
  its own code's and the standard library's file systems, and looks for the machine-wide files of
  ``/proc`` and ``/sys`` (meminfo, loadavg, pressure, ...);
- seat 0, turn 2: holds 64 MiB of shared anonymous memory (which ``sysinfo`` counts machine-wide);
- seat 1, turn 2: reads ``sysinfo`` again.

Every channel is reported on one line: ``SEEN <channel>`` when the other seat showed through it,
``hidden <channel>`` when it was tried and showed nothing, ``refused <channel>`` when the kernel refused the
attempt. The test asserts no ``SEEN``.
"""
import ctypes
import errno
import fcntl
import mmap
import os
import signal
import socket
import struct
import sys
import threading
import time

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
libc.mq_open.restype = ctypes.c_int
libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_void_p]

STDLIB = os.path.dirname(os.__file__)
LOCKED = os.path.join(STDLIB, "os.py")
WATCHED = os.path.join(STDLIB, "antigravity.py")
COLD = os.path.join(STDLIB, "_pydecimal.py")
FUTEX_FILE = os.path.join(STDLIB, "this.py")
KEY = 0x0B07_1ADD
ABSTRACT = b"\0botladder-channels"
F_OFD_GETLK, F_OFD_SETLK = 36, 37
SYS_FUTEX, SYS_MINCORE, SYS_INOTIFY_INIT1, SYS_INOTIFY_ADD_WATCH = 202, 27, 294, 254
FUTEX_WAIT, FUTEX_WAKE = 0, 1
SEMGET, SHMGET, MSGGET = 64, 29, 68
IPC_CREAT = 0o1000
PAGE = mmap.PAGESIZE

MIB = 1024 * 1024
HELD_MIB = 64
# The kernel's machine-wide counters, as /proc and /sys show them (LXCFS and gVisor replace exactly these).
MACHINE_WIDE_FILES = (
    "/proc/meminfo", "/proc/stat", "/proc/vmstat", "/proc/loadavg", "/proc/pressure/cpu",
    "/proc/pressure/memory", "/proc/pressure/io", "/proc/buddyinfo", "/proc/zoneinfo", "/proc/slabinfo",
    "/proc/uptime", "/proc/interrupts", "/proc/softirqs", "/proc/diskstats", "/proc/schedstat",
    "/proc/swaps", "/proc/sys/fs/file-nr", "/proc/sys/fs/inode-nr", "/proc/sys/kernel/random/entropy_avail",
    "/proc/self/mountinfo", "/proc/net/dev", "/sys/fs/cgroup", "/sys/devices/system/node/node0/meminfo",
    "/sys/devices/system/cpu/online", "/sys/kernel/mm", "/sys/block",
)


class SysInfo(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3), ("totalram", ctypes.c_ulong),
                ("freeram", ctypes.c_ulong), ("sharedram", ctypes.c_ulong), ("bufferram", ctypes.c_ulong),
                ("totalswap", ctypes.c_ulong), ("freeswap", ctypes.c_ulong), ("procs", ctypes.c_ushort),
                ("pad", ctypes.c_ushort), ("totalhigh", ctypes.c_ulong), ("freehigh", ctypes.c_ulong),
                ("mem_unit", ctypes.c_uint), ("_f", ctypes.c_char * 8)]


turn = 0
kept = []  # everything that must outlive a turn: descriptors, sockets, mappings, threads
state = {}


def report(kind, channel, detail=""):
    print(kind, channel, detail, flush=True)


def errno_name(number):
    return errno.errorcode.get(number, str(number))


def lock_struct(kind):
    return struct.pack("hhqqi4x", kind, os.SEEK_SET, 0, 0, 0)


# Seat 0, turn 1: leave marks.

def mark_locks():
    fd = os.open(LOCKED, os.O_RDONLY)
    kept.append(fd)
    for channel, call in (("flock", lambda: fcntl.flock(fd, fcntl.LOCK_SH | fcntl.LOCK_NB)),
                          ("record-lock", lambda: fcntl.fcntl(fd, fcntl.F_SETLK, lock_struct(fcntl.F_RDLCK)))):
        try:
            call()
            report("marked", channel)
        except OSError as exc:
            report("refused", channel, errno_name(exc.errno))
    ofd = os.open(LOCKED, os.O_RDONLY)
    kept.append(ofd)
    try:
        fcntl.fcntl(ofd, F_OFD_SETLK, lock_struct(fcntl.F_RDLCK))
        report("marked", "ofd-lock")
    except OSError as exc:
        report("refused", "ofd-lock", errno_name(exc.errno))


def mark_ipc():
    try:
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(ABSTRACT)
        listener.listen()
        kept.append(listener)
    except OSError as exc:
        report("refused", "abstract-socket", errno_name(exc.errno))
    for channel, number, args in (("sysv-sem", SEMGET, (KEY, 1, IPC_CREAT | 0o666)),
                                  ("sysv-shm", SHMGET, (KEY, 4096, IPC_CREAT | 0o666)),
                                  ("sysv-msg", MSGGET, (KEY, IPC_CREAT | 0o666))):
        if libc.syscall(number, *args) < 0:
            report("refused", channel, errno_name(ctypes.get_errno()))
    if libc.mq_open(b"/botladder-channels", os.O_CREAT | os.O_RDWR, 0o666, None) < 0:
        report("refused", "posix-mqueue", errno_name(ctypes.get_errno()))
    for channel, path in (("dev-shm", "/dev/shm/botladder-channels"), ("tmp", "/tmp/botladder-channels")):
        try:
            with open(path, "w") as handle:
                handle.write(str(os.getpid()))
        except OSError as exc:
            report("refused", channel, errno_name(exc.errno))


# Seat 1, turn 1: look for them, then set the watches for turn 2.

def probe_locks():
    fd = os.open(LOCKED, os.O_RDONLY)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        report("hidden", "flock")
    except BlockingIOError:
        report("SEEN", "flock")
    except OSError as exc:
        report("refused", "flock", errno_name(exc.errno))
    for channel, command in (("record-lock", fcntl.F_GETLK), ("ofd-lock", F_OFD_GETLK)):
        try:
            answer = fcntl.fcntl(fd, command, lock_struct(fcntl.F_WRLCK))
            holder = struct.unpack("hhqqi4x", answer)[0]
            report("SEEN" if holder != fcntl.F_UNLCK else "hidden", channel)
        except OSError as exc:
            report("refused", channel, errno_name(exc.errno))
    os.close(fd)


def probe_ipc():
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        probe.connect(ABSTRACT)
        report("SEEN", "abstract-socket")
    except OSError as exc:
        report("hidden", "abstract-socket", errno_name(exc.errno))
    finally:
        probe.close()
    for channel, number, args in (("sysv-sem", SEMGET, (KEY, 0, 0)), ("sysv-shm", SHMGET, (KEY, 0, 0)),
                                  ("sysv-msg", MSGGET, (KEY, 0))):
        if libc.syscall(number, *args) >= 0:
            report("SEEN", channel)
        else:
            code = ctypes.get_errno()
            report("hidden" if code == errno.ENOENT else "refused", channel, errno_name(code))
    if libc.mq_open(b"/botladder-channels", os.O_RDWR, 0, None) >= 0:
        report("SEEN", "posix-mqueue")
    else:
        code = ctypes.get_errno()
        report("hidden" if code == errno.ENOENT else "refused", "posix-mqueue", errno_name(code))
    for channel, path in (("dev-shm", "/dev/shm/botladder-channels"), ("tmp", "/tmp/botladder-channels")):
        report("SEEN" if os.path.exists(path) else "hidden", channel)
    seen = [pid for pid in range(1, 4096) if pid != os.getpid() and _alive(pid)]
    report("SEEN" if seen else "hidden", "signals", seen[:5])


def _alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except OSError:
        return True  # exists, but may not be signalled
    return True


def watch():
    try:
        fd = libc.syscall(SYS_INOTIFY_INIT1, os.O_NONBLOCK)
        if fd < 0 or libc.syscall(SYS_INOTIFY_ADD_WATCH, int(fd), os.fsencode(WATCHED), 0x1 | 0x20) < 0:
            raise OSError(ctypes.get_errno(), "inotify")
        state["inotify"] = fd
    except OSError as exc:
        report("refused", "inotify", errno_name(exc.errno))
    state["dnotify"] = []
    signal.signal(signal.SIGRTMIN, lambda number, frame: state["dnotify"].append(number))
    try:
        folder = os.open(STDLIB, os.O_RDONLY | os.O_DIRECTORY)
        kept.append(folder)
        fcntl.fcntl(folder, fcntl.F_SETSIG, signal.SIGRTMIN)
        fcntl.fcntl(folder, fcntl.F_NOTIFY, fcntl.DN_ACCESS | fcntl.DN_MULTISHOT)
        state["dnotify_set"] = True
    except OSError as exc:
        report("refused", "dnotify", errno_name(exc.errno))
    watch_residency()
    for kind in ("private", "shared"):
        address = map_futex_file(kind)
        if address is None:
            continue
        waiter = threading.Thread(target=wait_on_futex, args=(kind, address), daemon=True)
        waiter.start()
        kept.append(waiter)


def map_futex_file(kind):
    fd = os.open(FUTEX_FILE, os.O_RDONLY)
    flags = mmap.MAP_PRIVATE if kind == "private" else mmap.MAP_SHARED
    address = libc.mmap(None, PAGE, mmap.PROT_READ, flags, fd, 0)
    code = ctypes.get_errno()
    os.close(fd)
    if address in (None, ctypes.c_void_p(-1).value):
        report("refused", f"futex-{kind}-mapping", f"mmap: {errno_name(code)}")
        return None
    return address


def wait_on_futex(kind, address):
    value = ctypes.c_uint32.from_address(address).value
    timeout = struct.pack("qq", 20, 0)
    result = libc.syscall(SYS_FUTEX, ctypes.c_void_p(address), FUTEX_WAIT, value, timeout, None, 0)
    code = ctypes.get_errno()
    state[f"futex-{kind}"] = "woken" if result == 0 else errno_name(code)


def watch_residency():
    fd = os.open(COLD, os.O_RDONLY)
    size = os.fstat(fd).st_size
    try:
        os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
    except OSError as exc:
        report("refused", "fadvise", errno_name(exc.errno))
    address = libc.mmap(None, size, mmap.PROT_READ, mmap.MAP_PRIVATE, fd, 0)
    os.close(fd)
    pages = (size + PAGE - 1) // PAGE
    vector = (ctypes.c_ubyte * pages)()
    if libc.syscall(SYS_MINCORE, ctypes.c_void_p(address), ctypes.c_size_t(size), vector) < 0:
        report("refused", "mincore", errno_name(ctypes.get_errno()))
        return
    state["residency"] = (address, size, vector, [byte & 1 for byte in vector])


def shared_ram():
    """sysinfo's shared memory of the whole machine, in bytes; None if the call is refused."""
    info = SysInfo()
    if libc.sysinfo(ctypes.byref(info)) < 0:
        report("refused", "sysinfo", errno_name(ctypes.get_errno()))
        return None
    return info.sharedram * max(info.mem_unit, 1)


def probe_machine():
    state["shared-ram"] = shared_ram()
    for channel, path in (("statfs-code", "/bot"), ("statfs-stdlib", STDLIB)):
        try:
            figures = os.statvfs(path)
            report("SEEN", channel, f"{figures.f_bfree} free blocks, {figures.f_ffree} free inodes")
        except OSError as exc:
            report("refused", channel, errno_name(exc.errno))
    readable = [path for path in MACHINE_WIDE_FILES if os.path.exists(path)]
    report("SEEN" if readable else "hidden", "machine-files", readable)


# Seat 0, turn 2: touch what seat 1 watches.

def touch():
    with open(WATCHED, "rb") as handle:
        handle.read()
    with open(COLD, "rb") as handle:
        handle.read()
    for kind in ("private", "shared"):
        address = map_futex_file(kind)
        if address is None:
            continue
        woken = libc.syscall(SYS_FUTEX, ctypes.c_void_p(address), FUTEX_WAKE, 1, None, None, 0)
        if woken < 0:
            report("refused", f"futex-{kind}-wake", errno_name(ctypes.get_errno()))
        else:
            report("SEEN" if woken > 0 else "hidden", f"futex-{kind}-wake", f"woke {woken}")


def hold_shared_memory():
    held = mmap.mmap(-1, HELD_MIB * MIB, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
    for offset in range(0, HELD_MIB * MIB, PAGE):
        held[offset] = 1
    kept.append(held)


# Seat 1, turn 2: look at the watches.

def look():
    if "inotify" in state:
        try:
            events = os.read(state["inotify"], 4096)
        except BlockingIOError:
            events = b""
        report("SEEN" if events else "hidden", "inotify")
    if state.get("dnotify_set"):
        report("SEEN" if state["dnotify"] else "hidden", "dnotify")
    if "residency" in state:
        address, size, vector, before = state["residency"]
        libc.syscall(SYS_MINCORE, ctypes.c_void_p(address), ctypes.c_size_t(size), vector)
        after = [byte & 1 for byte in vector]
        report("SEEN" if sum(after) > sum(before) else "hidden", "mincore", f"{sum(before)} -> {sum(after)}")
    time.sleep(0.05)
    for kind in ("private", "shared"):
        outcome = state.get(f"futex-{kind}")
        if outcome is None:
            continue
        if outcome == "woken":
            report("SEEN", f"futex-{kind}-wait")
        else:
            report("refused" if outcome in ("EAGAIN", "EPERM") else "hidden", f"futex-{kind}-wait", outcome)
    before, after = state.get("shared-ram"), shared_ram()
    if before is not None and after is not None:
        grown = (after - before) / MIB
        report("SEEN" if grown >= HELD_MIB * 3 / 4 else "hidden", "sysinfo", f"shared memory grew {grown:.0f} MiB")


def act(observation, legal_actions):
    global turn
    turn += 1
    seat = observation["seat"]
    steps = {(0, 1): (mark_locks, mark_ipc), (1, 1): (probe_locks, probe_ipc, watch, probe_machine),
             (0, 2): (touch, hold_shared_memory), (1, 2): (look,)}
    for step in steps.get((seat, turn), ()):
        try:
            step()
        except Exception as exc:  # noqa: BLE001 - one failed probe must not hide the others
            print("error in", step.__name__, type(exc).__name__, exc, file=sys.stderr, flush=True)
    return legal_actions[0]
