"""A pair of bots in two matches played at once on one machine: one signals through the kernel's figures
for the whole machine, the other watches them. The test prepends ``ROLE = "send"`` or ``ROLE = "watch"``.

- ``send``: on every move, takes or gives back 96 MiB of shared anonymous memory (``sysinfo`` and
  ``/proc/meminfo`` count it machine-wide) and keeps it so for 150 ms;
- ``watch``: on every move, samples for 150 ms what ``sysinfo`` says of the machine's shared memory
  (and ``/proc/meminfo``, where it exists), and reports ``SEEN sysinfo`` once the swing it has seen is
  that of the other match, ``refused sysinfo`` if the call is refused, ``hidden meminfo`` if there is no
  ``/proc/meminfo`` to read.
"""
import ctypes
import errno
import mmap
import time

ROLE = globals().get("ROLE", "watch")
MIB = 1024 * 1024
HELD_MIB = 96
SPELL_S = 0.15
libc = ctypes.CDLL(None, use_errno=True)


class SysInfo(ctypes.Structure):
    _fields_ = [("uptime", ctypes.c_long), ("loads", ctypes.c_ulong * 3), ("totalram", ctypes.c_ulong),
                ("freeram", ctypes.c_ulong), ("sharedram", ctypes.c_ulong), ("bufferram", ctypes.c_ulong),
                ("totalswap", ctypes.c_ulong), ("freeswap", ctypes.c_ulong), ("procs", ctypes.c_ushort),
                ("pad", ctypes.c_ushort), ("totalhigh", ctypes.c_ulong), ("freehigh", ctypes.c_ulong),
                ("mem_unit", ctypes.c_uint), ("_f", ctypes.c_char * 8)]


held = []
seen = {}
said = set()


def say(kind, channel, detail=""):
    if (kind, channel) not in said:
        said.add((kind, channel))
        print(f"{kind} {channel} {detail}".rstrip(), flush=True)


def toggle():
    if held:
        held.pop().close()
        return
    memory = mmap.mmap(-1, HELD_MIB * MIB, flags=mmap.MAP_SHARED | mmap.MAP_ANONYMOUS)
    for offset in range(0, HELD_MIB * MIB, mmap.PAGESIZE):
        memory[offset] = 1
    held.append(memory)


def shared_ram():
    info = SysInfo()
    if libc.sysinfo(ctypes.byref(info)) < 0:
        say("refused", "sysinfo", errno.errorcode.get(ctypes.get_errno(), "?"))
        return None
    return info.sharedram * max(info.mem_unit, 1)


def meminfo_shared():
    try:
        with open("/proc/meminfo") as handle:
            line = next(line for line in handle if line.startswith("Shmem:"))
    except FileNotFoundError:
        say("hidden", "meminfo")
        return None
    except OSError as exc:
        say("refused", "meminfo", errno.errorcode.get(exc.errno, "?"))
        return None
    return int(line.split()[1]) * 1024


def watch():
    until = time.monotonic() + SPELL_S
    while time.monotonic() < until:
        for channel, figure in (("sysinfo", shared_ram()), ("meminfo", meminfo_shared())):
            if figure is None:
                continue
            low, high = seen.get(f"{channel}-low"), seen.get(f"{channel}-high")
            seen[f"{channel}-low"] = figure if low is None else min(low, figure)
            seen[f"{channel}-high"] = figure if high is None else max(high, figure)
            swing = (seen[f"{channel}-high"] - seen[f"{channel}-low"]) / MIB
            if swing >= HELD_MIB / 2:
                say("SEEN", channel, f"shared memory swung {swing:.0f} MiB")
        time.sleep(0.005)


def act(observation, legal_actions):
    if ROLE == "send":
        toggle()
        time.sleep(SPELL_S)
    else:
        watch()
    return legal_actions[0]
