"""Calls what the seccomp allowlist refuses, and the ordinary calls next to them that it must allow.

Prints ``refused <name> <errno>`` or ``allowed <name>`` for each; nothing here may crash the bot."""
import ctypes
import fcntl
import mmap
import os

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long

# name: (syscall number, arguments); x86-64 numbers.
REFUSED = {
    "ptrace": (101, (0, 0, 0, 0)),  # PTRACE_TRACEME
    "process_vm_readv": (310, (1, 0, 0, 0, 0, 0)),
    "mount": (165, (0, 0, 0, 0, 0)),
    "unshare": (272, (0x10000000,)),
    "setns": (308, (0, 0)),
    "clone-newuser": (56, (0x10000000 | 17, 0, 0, 0, 0)),
    "clone3": (435, (0, 0)),
    "flock": (73, (0, 2)),
    "inotify_init1": (294, (0,)),
    "fanotify_init": (300, (0, 0)),
    "futex_waitv": (449, (0, 0, 0, 0, 0)),
    "futex-shared-wake": (202, (0, 1, 1, 0, 0, 0)),
    "mincore": (27, (0, 0, 0)),
    "shmget": (29, (0, 4096, 0o1000 | 0o600)),
    "semget": (64, (0, 1, 0o1000 | 0o600)),
    "msgget": (68, (0, 0o1000 | 0o600)),
    "mq_open": (240, (0, 0, 0, 0)),
    "keyctl": (250, (0, 0, 0, 0, 0)),
    "bpf": (321, (0, 0, 0)),
    "io_uring_setup": (425, (1, 0)),
    "userfaultfd": (323, (0,)),
    "setuid": (105, (0,)),
    # What the sandbox's shell does before the bot runs (its half of the filter allows it, the bot's
    # refuses it again): each of these would succeed, or fail otherwise than EPERM, without the filter.
    "setresuid": (117, (-1, -1, -1)),
    "setresgid": (119, (-1, -1, -1)),
    "setgroups": (116, (0, 0)),
    "capset": (126, (0, 0)),
    "prctl-no-new-privs": (157, (38, 1, 0, 0, 0)),
    "prctl-ambient-clear-all": (157, (47, 4, 0, 0, 0)),
    "prctl-pdeathsig": (157, (1, 0, 0, 0, 0)),
    "prctl-dumpable": (157, (4, 1, 0, 0, 0)),
    "prctl-ptracer": (157, (0x59616D61, 0xFFFFFFFFFFFFFFFF, 0, 0, 0)),
    "prctl-subreaper": (157, (36, 1, 0, 0, 0)),
    "prctl-mm": (157, (35, 1, 0, 0, 0)),
    "prctl-seccomp": (157, (22, 0, 0, 0, 0)),
    "prctl-securebits": (157, (28, 0, 0, 0, 0)),
    "prctl-ambient-raise": (157, (47, 2, 0, 0, 0)),
    "fcntl-setlk": (72, (0, 6, 0)),
    "fcntl-setlk-high-bits": (72, (0, 6 | 1 << 32, 0)),  # the kernel reads the command's low 32 bits
    "fcntl-ofd-setlk": (72, (0, 37, 0)),
    "fcntl-setlease": (72, (0, 1024, 0)),
    "fcntl-notify": (72, (0, 1026, 0)),
    "mmap-shared-file": (9, (0, 4096, 1, 1, 0, 0)),
}


def ordinary():
    fd = os.open("/bot/bot.py", os.O_RDONLY)
    fcntl.fcntl(fd, fcntl.F_SETFD, fcntl.FD_CLOEXEC)
    fcntl.fcntl(fd, fcntl.F_GETFL)
    os.close(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10))
    read_end, write_end = os.pipe()
    fcntl.fcntl(read_end, fcntl.F_GETPIPE_SZ)
    name = ctypes.create_string_buffer(16)
    libc.prctl(16, name, 0, 0, 0)  # PR_GET_NAME
    os.close(read_end)
    os.close(write_end)
    private = mmap.mmap(fd, 0, flags=mmap.MAP_PRIVATE, prot=mmap.PROT_READ)
    shared_anonymous = mmap.mmap(-1, 4096, flags=mmap.MAP_SHARED)
    private.close()
    shared_anonymous.close()
    os.close(fd)


done = False


def act(observation, legal_actions):
    global done
    if done:
        return legal_actions[0]
    done = True
    fd = os.open("/bot/bot.py", os.O_RDONLY)
    for name, (number, args) in REFUSED.items():
        if name.startswith(("fcntl", "flock")):
            args = (fd, *args[1:])
        if name == "mmap-shared-file":
            args = (0, 4096, 1, 1, fd, 0)
        result = libc.syscall(number, *args)
        code = ctypes.get_errno()
        print(f"refused {name} {os.strerror(code)}" if result < 0 else f"ALLOWED {name} {result}", flush=True)
    try:
        ordinary()
        print("allowed ordinary calls", flush=True)
    except OSError as exc:
        print("refused ordinary calls", exc, flush=True)
    os.close(fd)
    return legal_actions[0]
