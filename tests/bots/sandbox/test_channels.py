"""No channel between the bots of one match: two copies of a bot that tries every kernel object they
could share (locks, inotify, dnotify, futexes on shared mappings, page-cache residency, abstract sockets,
SysV and POSIX IPC, /dev/shm, /tmp, signals) and every figure the kernel keeps for the whole machine
(``sysinfo``, ``statfs`` of the file systems they read, the counters of ``/proc`` and ``/sys``) find none,
through the real sandbox."""

from __future__ import annotations

import io
import json
import os
import platform
import random
import statistics
import sysconfig
import threading
import uuid
import zipfile
from pathlib import Path

import pytest

from bots.referee import BotSpec, Limits, play_match

# The colluder calls futex, mincore, inotify and SysV IPC by their x86-64 numbers.
pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="the colluder uses x86-64 numbers")
COLLUDER = (Path(__file__).parent.parent / "hostile" / "channels.py").read_bytes()
# What the looking seat reports on, each once; the seccomp filter must refuse the first ones outright.
REFUSED_BY_THE_FILTER = ("flock", "record-lock", "ofd-lock", "inotify", "dnotify", "mincore",
                         "futex-private-wait", "futex-shared-mapping", "sysinfo", "statfs-code", "statfs-stdlib")
HIDDEN_BY_NAMESPACES = ("abstract-socket", "dev-shm", "tmp", "signals", "machine-files")
REFUSED_IPC = ("sysv-sem", "sysv-shm", "sysv-msg", "posix-mqueue")


def test_two_copies_of_a_colluder_find_no_channel(sandbox, race):
    result = play_match(race, [BotSpec("marks", COLLUDER), BotSpec("looks", COLLUDER)], seed=1,
                        limits=Limits(move_ms=3000, bank_ms=3000), sandbox=sandbox)
    marks, looks = result.seats
    assert [marks.outcome, looks.outcome] == ["ok", "ok"], (marks.reason, looks.reason)
    assert "SEEN" not in marks.log and "SEEN" not in looks.log, (marks.log, looks.log)
    assert "error in" not in marks.log + looks.log
    reported = {line.split()[1]: line.split()[0] for line in looks.log.splitlines()}
    for channel in REFUSED_BY_THE_FILTER + REFUSED_IPC:
        assert reported.get(channel) == "refused", (channel, looks.log)
    for channel in HIDDEN_BY_NAMESPACES:
        assert reported.get(channel) == "hidden", (channel, looks.log)
    # The marking seat could neither lock nor wake a futex of a file both can open.
    assert {line.split()[1]: line.split()[0] for line in marks.log.splitlines()}.get("futex-private-wake") \
        == "refused"
    assert sandbox.leftovers() == []


MACHINE_WIDE = (Path(__file__).parent.parent / "hostile" / "machine_wide.py").read_text()
FILLER = b"def act(observation, legal_actions):\n    return legal_actions[0]\n"


def test_two_matches_at_once_see_nothing_of_each_other_through_the_machine(sandbox, race):
    """One match's bot swings the machine's shared memory by 96 MiB, move after move; a bot of another
    match played at the same time, on the same machine, watches ``sysinfo`` and ``/proc/meminfo``."""
    sender = BotSpec("sends", f"ROLE = 'send'\n{MACHINE_WIDE}".encode())
    watcher = BotSpec("watches", f"ROLE = 'watch'\n{MACHINE_WIDE}".encode())
    limits = Limits(move_ms=3000, bank_ms=3000)
    results = {}

    def play(name, bots):
        results[name] = play_match(race, bots, seed=2, options={"target": 24}, limits=limits, sandbox=sandbox)

    matches = [threading.Thread(target=play, args=("sending", [sender, BotSpec("filler", FILLER)])),
               threading.Thread(target=play, args=("watching", [BotSpec("filler", FILLER), watcher]))]
    for match in matches:
        match.start()
    for match in matches:
        match.join()
    watching = results["watching"].seats[1]
    assert [seat.outcome for name in ("sending", "watching") for seat in results[name].seats] == ["ok"] * 4, \
        {name: [(seat.outcome, seat.reason) for seat in result.seats] for name, result in results.items()}
    assert "SEEN" not in watching.log, watching.log
    assert "refused sysinfo EPERM" in watching.log.splitlines(), watching.log
    assert "hidden meminfo" in watching.log.splitlines(), watching.log
    assert sandbox.leftovers() == []


CACHE_TIMING = (Path(__file__).parent.parent / "hostile" / "cache_timing.py").read_text()
# The 64 bits the sending seat of ``cache_timing.py`` sends, and the files it reads them through (the
# standard library's top-level sources, two by two), computed here as the bot computes them.
CACHE_TIMING_KEY, CACHE_TIMING_BITS = 0x9E37_79B9_7F4A_7C15, 64
# A read of a file from memory costs a microsecond or two; one the page cache has to fetch from the disk
# costs tens to hundreds. The margin is far above the first and far below the second.
COLD_MARGIN_US = 20.0
# A lookup of a missing name costs a few microseconds, and a file system that remembers the failure
# (a negative dentry) answers the next one several microseconds faster.
REMEMBERED_MARGIN_US = 2.0


def _cache_timing_pairs() -> list[tuple[str, str]]:
    stdlib = Path(sysconfig.get_paths()["stdlib"]).resolve()
    paths = sorted(str(path) for path in stdlib.glob("*.py"))[:2 * CACHE_TIMING_BITS]
    return [(paths[2 * i], paths[2 * i + 1]) for i in range(CACHE_TIMING_BITS)]


def _evict_from_the_page_cache(paths) -> None:
    """Drop the host's cached pages of ``paths``, so that a read by a bot of the host's own files costs a
    disk read, unless another bot has read them since."""
    for path in paths:
        fd = os.open(path, os.O_RDONLY)
        try:
            os.fsync(fd)  # pages just written stay cached until they are clean
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)


def _unread_minus_read(log: str, label: str) -> list[float]:
    """From the timing seat's ``label`` line: how much longer the file (or name) the other seat did not
    touch took than the one it touched, pair by pair, in microseconds."""
    line = next(line for line in log.splitlines() if line.startswith(f"{label} "))
    timed = json.loads(line.split(" ", 1)[1])
    assert len(timed) == CACHE_TIMING_BITS
    return [pair[1] - pair[0] if CACHE_TIMING_KEY >> i & 1 else pair[0] - pair[1] for i, pair in enumerate(timed)]


def test_timed_reads_and_lookups_in_the_runtime_tell_a_bot_nothing_of_what_the_other_did(sandbox, race):
    """Seat 0 reads one file of each of 64 pairs of the standard library's files, and looks up one missing
    name of each of 64 pairs; seat 1 times a one-byte read of both files and a lookup of both names.
    Served from memory, the touched and the untouched cost the same: the difference is no larger than
    the noise, whichever seat did what before."""
    pairs = _cache_timing_pairs()
    _evict_from_the_page_cache(path for pair in pairs for path in pair)
    code = f"NONCE = {uuid.uuid4().hex!r}\n{CACHE_TIMING}".encode()
    result = play_match(race, [BotSpec("sends", code), BotSpec("times", code)], seed=3,
                        limits=Limits(move_ms=3000, bank_ms=3000), sandbox=sandbox)
    sends, times = result.seats
    assert [sends.outcome, times.outcome] == ["ok", "ok"], (sends.reason, times.reason)
    reads, lookups = _unread_minus_read(times.log, "TIMES"), _unread_minus_read(times.log, "LOOKUPS")
    assert statistics.median(reads) < COLD_MARGIN_US / 4, (reads, times.log)
    # A read now and then is slowed by something else on the machine (an interrupt, another process):
    # a few, never most, and as often for a read file as for an unread one.
    assert sum(difference > COLD_MARGIN_US for difference in reads) <= CACHE_TIMING_BITS // 8, reads
    assert statistics.median(lookups) < REMEMBERED_MARGIN_US, (lookups, times.log)
    assert sandbox.leftovers() == []


def _same_code_with_data(nonce: str) -> bytes:
    """A zip of ``cache_timing.py`` timing its own 128 data files, new for each run (``nonce``)."""
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", f"NONCE = {nonce!r}\nFOLDER = '/bot/data'\n{CACHE_TIMING}")
        for index in range(2 * CACHE_TIMING_BITS):
            archive.writestr(f"data/{index:04}.dat", random.Random(index).randbytes(8192))
    return buffer.getvalue()


def test_two_seats_running_the_same_code_time_nothing_of_each_other_in_it(sandbox, race):
    """The same upload at both seats (a copy of a public bot, or one author's two accounts) is one folder
    of the host's code cache: served from the host, what one seat read or looked up there, the other
    would time. Each seat's code is a copy in memory of its own."""
    nonce = uuid.uuid4().hex
    code = _same_code_with_data(nonce)
    folder = sandbox.cache.path_for(code)
    _evict_from_the_page_cache(sorted(str(path) for path in (folder / "data").iterdir()))
    result = play_match(race, [BotSpec("sends", code), BotSpec("times", code)], seed=3,
                        limits=Limits(move_ms=3000, bank_ms=3000), sandbox=sandbox)
    sends, times = result.seats
    assert [sends.outcome, times.outcome] == ["ok", "ok"], (sends.reason, times.reason)
    reads, lookups = _unread_minus_read(times.log, "TIMES"), _unread_minus_read(times.log, "LOOKUPS")
    assert statistics.median(reads) < COLD_MARGIN_US / 4, (reads, times.log)
    assert sum(difference > COLD_MARGIN_US for difference in reads) <= CACHE_TIMING_BITS // 8, reads
    assert statistics.median(lookups) < REMEMBERED_MARGIN_US, (lookups, times.log)
    assert sandbox.leftovers() == []
