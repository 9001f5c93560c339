"""The few Linux system calls the sandbox needs that Python's ``os`` module does not offer, via ctypes.

Only libc is required to load; the seccomp filter needs libseccomp (:func:`load_seccomp` returns None where
it is missing, and the sandbox then refuses to start).
Every wrapper raises ``OSError`` with the errno and the name of the call, so that the sandbox can report
exactly which capability is missing.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os

CLONE_NEWNS = 0x00020000
CLONE_NEWCGROUP = 0x02000000
CLONE_NEWUTS = 0x04000000
CLONE_NEWIPC = 0x08000000
CLONE_NEWUSER = 0x10000000
CLONE_NEWPID = 0x20000000
CLONE_NEWNET = 0x40000000
CLONE_NEWTIME = 0x00000080

MS_RDONLY = 1
MS_NOSUID = 2
MS_NODEV = 4
MS_NOEXEC = 8
MS_NOATIME = 1024
MS_NODIRATIME = 2048
MS_REMOUNT = 32
MS_BIND = 4096
MS_REC = 16384
MS_PRIVATE = 1 << 18
MS_RELATIME = 1 << 21
MNT_DETACH = 2

PR_SET_PDEATHSIG = 1
PR_GET_PDEATHSIG = 2
PR_GET_DUMPABLE = 3
PR_SET_DUMPABLE = 4
PR_GET_SECCOMP = 21
PR_CAPBSET_DROP = 24
PR_SET_NO_NEW_PRIVS = 38
PR_GET_NO_NEW_PRIVS = 39
PR_CAP_AMBIENT = 47
PR_CAP_AMBIENT_CLEAR_ALL = 4
PR_SET_SECUREBITS = 28
PR_SET_CHILD_SUBREAPER = 36

SYS_PIVOT_ROOT = 155
SYS_CAPGET = 125
SYS_CAPSET = 126
_LINUX_CAPABILITY_VERSION_3 = 0x20080522
# Upper bound on capability numbers; CAP_LAST_CAP is 40 on current kernels.
CAP_LAST_POSSIBLE = 63

_libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6", use_errno=True)
_libc.mount.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_ulong, ctypes.c_char_p]
_libc.umount2.argtypes = [ctypes.c_char_p, ctypes.c_int]
_libc.unshare.argtypes = [ctypes.c_int]
_libc.setns.argtypes = [ctypes.c_int, ctypes.c_int]
_libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong, ctypes.c_ulong]
_libc.sethostname.argtypes = [ctypes.c_char_p, ctypes.c_size_t]
_libc.syscall.restype = ctypes.c_long
_libc.mmap.restype = ctypes.c_void_p
_libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
_libc.mlock.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


def _check(result: int, what: str) -> int:
    if result < 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")
    return result


def _b(value: str | None) -> bytes | None:
    return None if value is None else os.fsencode(value)


def unshare(flags: int) -> None:
    _check(_libc.unshare(flags), f"unshare({flags:#x})")


def setns(fd: int, nstype: int) -> None:
    _check(_libc.setns(fd, nstype), f"setns({nstype:#x})")


def mount(source: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    _check(_libc.mount(_b(source), _b(target), _b(fstype), flags, _b(data)),
           f"mount {source or fstype or ''} on {target}")


def umount2(target: str, flags: int) -> None:
    _check(_libc.umount2(_b(target), flags), f"umount {target}")


def pivot_root(new_root: str, put_old: str) -> None:
    _check(_libc.syscall(SYS_PIVOT_ROOT, _b(new_root), _b(put_old)), "pivot_root")


def prctl(option: int, arg2: int = 0, arg3: int = 0, arg4: int = 0, arg5: int = 0) -> int:
    return _check(_libc.prctl(option, arg2, arg3, arg4, arg5), f"prctl({option})")


def parent_death_signal() -> int:
    """The signal this process gets when its parent dies (0 for none)."""
    signal_number = ctypes.c_int(-1)
    _check(_libc.prctl(PR_GET_PDEATHSIG, ctypes.addressof(signal_number), 0, 0, 0), "prctl(PR_GET_PDEATHSIG)")
    return signal_number.value


_PROT_READ, _MAP_SHARED = 1, 1
_MAP_FAILED = ctypes.c_void_p(-1).value


def lock_in_memory(fd: int, offset: int, length: int) -> None:
    """Keep the pages of bytes ``offset`` to ``offset + length`` of the open file ``fd`` in the page cache
    for as long as this process lives: a read-only shared mapping of them, locked (``mlock``), so that
    the kernel never evicts them. ``offset`` must be a multiple of the page size; needs CAP_IPC_LOCK or
    a large enough RLIMIT_MEMLOCK. The mapping is never unmapped (children inherit it, unlocked)."""
    address = _libc.mmap(None, length, _PROT_READ, _MAP_SHARED, fd, offset)
    if address in (None, _MAP_FAILED):
        err = ctypes.get_errno()
        raise OSError(err, f"mmap to lock: {os.strerror(err)}")
    _check(_libc.mlock(address, length), "mlock")


def sethostname(name: str) -> None:
    raw = name.encode()
    _check(_libc.sethostname(raw, len(raw)), "sethostname")


class _CapHeader(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class _CapData(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32),
                ("inheritable", ctypes.c_uint32)]


def drop_bounding_set() -> None:
    """Empty the capability bounding set (needs CAP_SETPCAP, so before any uid change)."""
    for cap in range(CAP_LAST_POSSIBLE + 1):
        try:
            prctl(PR_CAPBSET_DROP, cap)
        except OSError as exc:
            if exc.errno != 22:  # EINVAL: beyond the kernel's last capability
                raise
            break


def drop_all_capabilities() -> None:
    """Empty the ambient, effective, permitted and inheritable sets of this process."""
    prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL)
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(_libc.syscall(SYS_CAPSET, ctypes.byref(header), ctypes.byref(data)), "capset")


CAP_SETGID = 6
CAP_SETUID = 7
CAP_SYS_ADMIN = 21


def privileged() -> bool:
    """Whether this process may build bots' sandboxes as root does: root with the capabilities to mount
    and to change uid. (Root in a container without them takes the ordinary user's path.)"""
    if os.geteuid() != 0:
        return False
    effective, _ = capabilities()
    needed = (1 << CAP_SYS_ADMIN) | (1 << CAP_SETUID) | (1 << CAP_SETGID)
    return effective & needed == needed


def capabilities() -> tuple[int, int]:
    """(effective, permitted) capability masks of this process."""
    header = _CapHeader(_LINUX_CAPABILITY_VERSION_3, 0)
    data = (_CapData * 2)()
    _check(_libc.syscall(SYS_CAPGET, ctypes.byref(header), ctypes.byref(data)), "capget")
    effective = data[0].effective | (data[1].effective << 32)
    permitted = data[0].permitted | (data[1].permitted << 32)
    return effective, permitted


# seccomp through libseccomp: deny by default with EPERM, allow what the policy lists.

SCMP_ACT_KILL_PROCESS = 0x80000000
SCMP_ACT_ALLOW = 0x7FFF0000
SCMP_CMP_MASKED_EQ = 7
SCMP_FLTATR_ACT_BADARCH = 2
SCMP_FLTATR_CTL_OPTIMIZE = 8
#: ``SCMP_FLTATR_CTL_OPTIMIZE``'s binary tree of syscall numbers (libseccomp 2.5 and later).
_OPTIMIZE_BINARY_TREE = 2
EPERM = 1


def SCMP_ACT_ERRNO(errno: int) -> int:
    return 0x00050000 | (errno & 0xFFFF)


class ScmpArgCmp(ctypes.Structure):
    _fields_ = [("arg", ctypes.c_uint), ("op", ctypes.c_int), ("datum_a", ctypes.c_uint64),
                ("datum_b", ctypes.c_uint64)]


def load_seccomp(name: str = "seccomp"):
    """The libseccomp library (``name`` as for ``ctypes.util.find_library``, or a path), or None if it
    cannot be loaded."""
    found = name if "/" in name else ctypes.util.find_library(name)
    if not found:
        return None
    try:
        lib = ctypes.CDLL(found, use_errno=True)
        lib.seccomp_init.restype = ctypes.c_void_p
    except (OSError, AttributeError):
        return None
    lib.seccomp_init.argtypes = [ctypes.c_uint32]
    lib.seccomp_attr_set.argtypes = [ctypes.c_void_p, ctypes.c_int, ctypes.c_uint32]
    lib.seccomp_syscall_resolve_name.argtypes = [ctypes.c_char_p]
    lib.seccomp_rule_add_array.argtypes = [ctypes.c_void_p, ctypes.c_uint32, ctypes.c_int, ctypes.c_uint,
                                           ctypes.POINTER(ScmpArgCmp)]
    lib.seccomp_export_bpf.argtypes = [ctypes.c_void_p, ctypes.c_int]
    lib.seccomp_release.argtypes = [ctypes.c_void_p]
    return lib


def compile_seccomp(lib, rules, *, refuse: bool = False) -> bytes:
    """The BPF program of an allowlist filter for this machine's architecture.

    ``rules`` are ``(name, when, errno)`` triples (see :class:`bots.sandbox.policy.Syscall`): the call is
    allowed when every ``(argument, mask, value)`` of ``when`` holds, or refused with ``errno`` if that
    is set; every call no rule matches fails with EPERM, so a bot gets an error it can read. With
    ``refuse`` the filter is the reverse, a denylist: a call a rule matches fails with the rule's errno
    (EPERM if none), every other call is allowed (only ever stacked on an allowlist). Any other
    ABI (i386 through ``int 0x80``, x32 numbers with bit 0x40000000) kills the whole process: the filter
    knows only the native one, and a foreign number would mean another call. Compiled once by the
    zygote; :func:`load_seccomp_program` installs it."""
    ctx = lib.seccomp_init(SCMP_ACT_ALLOW if refuse else SCMP_ACT_ERRNO(EPERM))
    if not ctx:
        raise OSError(0, "seccomp_init failed")
    try:
        _check_seccomp(lib.seccomp_attr_set(ctx, SCMP_FLTATR_ACT_BADARCH, SCMP_ACT_KILL_PROCESS),
                       "bad-architecture action")
        # The same rules laid out as a binary search on the syscall number rather than a list: the
        # kernel runs the filter once for every syscall number when it is installed (to cache the calls
        # whose answer never varies), which is most of a bot's start spent in seccomp; a search is
        # shorter for each. An older libseccomp refuses the attribute and keeps the list, as good a filter.
        lib.seccomp_attr_set(ctx, SCMP_FLTATR_CTL_OPTIMIZE, _OPTIMIZE_BINARY_TREE)
        for name, when, errno in rules:
            number = lib.seccomp_syscall_resolve_name(name.encode())
            if number < 0:
                continue  # not a syscall of this architecture
            comparisons = [ScmpArgCmp(argument, SCMP_CMP_MASKED_EQ, mask, value) for argument, mask, value in when]
            array = (ScmpArgCmp * max(len(comparisons), 1))(*comparisons)
            if refuse:
                action = SCMP_ACT_ERRNO(EPERM if errno is None else errno)
            else:
                action = SCMP_ACT_ALLOW if errno is None else SCMP_ACT_ERRNO(errno)
            _check_seccomp(lib.seccomp_rule_add_array(ctx, action, number, len(comparisons), array),
                           f"rule {name}")
        read_end, write_end = os.pipe()
        try:
            _check_seccomp(lib.seccomp_export_bpf(ctx, write_end), "export")
            os.close(write_end)
            write_end = -1
            chunks = []
            while chunk := os.read(read_end, 65536):
                chunks.append(chunk)
        finally:
            os.close(read_end)
            if write_end >= 0:
                os.close(write_end)
        return b"".join(chunks)
    finally:
        lib.seccomp_release(ctx)


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


PR_SET_SECCOMP = 22
SECCOMP_MODE_FILTER = 2


def load_seccomp_program(program: bytes) -> None:
    """Install a compiled filter on this process (no_new_privs must be set first)."""
    buffer = ctypes.create_string_buffer(program, len(program))
    fprog = _SockFprog(len(program) // 8, ctypes.addressof(buffer))
    _check(_libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.addressof(fprog), 0, 0), "seccomp filter")


def _check_seccomp(result: int, what: str) -> None:
    # libseccomp returns -errno instead of setting errno.
    if result < 0:
        raise OSError(-result, f"seccomp {what}: {os.strerror(-result)}")
