"""Checks for root and capabilities, then tries unshare, mount, setuid, chroot and ptrace."""
import ctypes
import ctypes.util
import os

libc = ctypes.CDLL(ctypes.util.find_library("c"), use_errno=True)


class Header(ctypes.Structure):
    _fields_ = [("version", ctypes.c_uint32), ("pid", ctypes.c_int)]


class Data(ctypes.Structure):
    _fields_ = [("effective", ctypes.c_uint32), ("permitted", ctypes.c_uint32), ("inheritable", ctypes.c_uint32)]


attacked = False


def act(observation, legal_actions):
    global attacked
    if attacked:
        return legal_actions[0]
    attacked = True
    if os.getuid() == 0 or os.geteuid() == 0:
        print("ESCAPED running as root", flush=True)
    header, data = Header(0x20080522, 0), (Data * 2)()
    libc.syscall(125, ctypes.byref(header), ctypes.byref(data))
    if any(d.effective or d.permitted for d in data):
        print("ESCAPED capabilities", [hex(d.effective) for d in data], flush=True)
    bound = [cap for cap in range(41) if libc.prctl(23, cap, 0, 0, 0) == 1]  # PR_CAPBSET_READ
    if bound:
        print("ESCAPED bounding set", bound, flush=True)
    if libc.prctl(39, 0, 0, 0, 0) != 1:  # PR_GET_NO_NEW_PRIVS
        print("ESCAPED no_new_privs is off", flush=True)
    attempts = {
        "unshare user": lambda: libc.unshare(0x10000000),
        "unshare mount": lambda: libc.unshare(0x00020000),
        "unshare net": lambda: libc.unshare(0x40000000),
        "mount tmpfs": lambda: libc.mount(b"tmpfs", b"/tmp", b"tmpfs", 0, None),
        "remount / rw": lambda: libc.mount(None, b"/", None, 32 | 4096, None),
        "setuid 0": lambda: libc.setuid(0),
        "setgid 0": lambda: libc.setgid(0),
        "chroot": lambda: libc.chroot(b"/tmp"),
        "ptrace attach 1": lambda: libc.ptrace(16, 1, None, None),
        "sethostname": lambda: libc.sethostname(b"pwned", 5),
    }
    for name, attempt in attempts.items():
        if attempt() == 0:
            print("ESCAPED", name, flush=True)
        else:
            print("refused", name, os.strerror(ctypes.get_errno()), flush=True)
    try:
        os.setuid(0)
        print("ESCAPED os.setuid(0)", flush=True)
    except OSError as exc:
        print("refused os.setuid", exc, flush=True)
    return legal_actions[0]
