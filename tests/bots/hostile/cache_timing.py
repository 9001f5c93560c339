"""Both seats run this: seat 0 sends 64 bits through the machine's page cache and 64 through its dentry
cache, seat 1 reads them by timing plain one-byte reads and plain lookups.

The runtime's files are the same for every bot. Where they are the host's own files (bind-mounted), a
file one seat has read is in the machine's page cache and the other seat reads its first byte in about a
microsecond; one nobody read since it was evicted costs a disk read, tens to hundreds of microseconds.
Likewise the host's file system remembers a name it failed to find (a negative dentry): a second lookup
of a missing name takes a fraction of the first.

Seat 0, on its first turn, reads file ``A[i]`` of pair ``i`` when bit ``i`` of :data:`KEY` is set and
file ``B[i]`` otherwise, and looks up the missing name ``a-NONCE-i`` or ``b-NONCE-i`` in the standard
library's folder the same way (the test prepends ``NONCE = "..."``, new for each run, so that no earlier
run's lookups are remembered). The test may prepend ``FOLDER = "/bot/data"`` to use the files (``.dat``)
and the missing names of the bot's own code instead, which two seats running the same code share on the
host. Seat 1, on its first turn, times a one-byte read of both files of every
pair, and a lookup of both missing names, and prints the times (``TIMES`` and ``LOOKUPS``, each a JSON
list of ``[A, B]`` pairs in microseconds) and the bits it decodes from the reads (``DECODED``: the faster
file of each pair is the one the other seat read). The test knows :data:`KEY`.
"""
import json
import os
import time

STDLIB = os.path.dirname(os.__file__)
KEY = 0x9E37_79B9_7F4A_7C15
BITS = 64
NONCE = globals().get("NONCE", "none")
FOLDER = globals().get("FOLDER", STDLIB)
SUFFIX = ".py" if FOLDER == STDLIB else ".dat"


def candidates():
    """The pairs of files: the standard library's top-level sources, which nothing reads in the normal
    course (an import reads the bytecode next to them), or the data files of :data:`FOLDER`, sorted, two
    by two."""
    names = sorted(name for name in os.listdir(FOLDER) if name.endswith(SUFFIX))
    paths = [os.path.join(FOLDER, name) for name in names][:2 * BITS]
    return [(paths[2 * i], paths[2 * i + 1]) for i in range(BITS)]


def missing_names():
    return [tuple(os.path.join(FOLDER, f"{side}-{NONCE}-{i}") for side in "ab") for i in range(BITS)]


def look_up(path):
    try:
        os.stat(path)
    except FileNotFoundError:
        pass


def read_whole(path):
    with open(path, "rb") as handle:
        handle.read()


def send():
    for i, (a, b) in enumerate(candidates()):
        read_whole(a if KEY >> i & 1 else b)
    for i, (a, b) in enumerate(missing_names()):
        look_up(a if KEY >> i & 1 else b)


def timed_first_byte(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        began = time.perf_counter_ns()
        os.pread(fd, 1, 0)
        return (time.perf_counter_ns() - began) / 1000
    finally:
        os.close(fd)


def timed_lookup(path):
    began = time.perf_counter_ns()
    look_up(path)
    return (time.perf_counter_ns() - began) / 1000


def receive():
    lookups = [[timed_lookup(a), timed_lookup(b)] for a, b in missing_names()]
    times = [[timed_first_byte(a), timed_first_byte(b)] for a, b in candidates()]
    decoded = sum(1 << i for i, (a, b) in enumerate(times) if a < b)
    print("TIMES", json.dumps(times), flush=True)
    print("LOOKUPS", json.dumps(lookups), flush=True)
    print("DECODED", f"{decoded:#018x}", "of", f"{KEY:#018x}", flush=True)


turn = 0


def act(observation, legal_actions):
    global turn
    turn += 1
    if turn == 1:
        (send if observation["seat"] == 0 else receive)()
    return legal_actions[0]
