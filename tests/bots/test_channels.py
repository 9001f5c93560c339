"""No channel between the bots of one match: two copies of a bot that tries every kernel object they
could share (locks, inotify, dnotify, futexes on shared mappings, page-cache residency, abstract sockets,
SysV and POSIX IPC, /dev/shm, /tmp, signals) find none, through the real sandbox."""

from __future__ import annotations

import platform
from pathlib import Path

import pytest

from bots.referee import BotSpec, Limits, play_match

# The colluder calls futex, mincore, inotify and SysV IPC by their x86-64 numbers.
pytestmark = pytest.mark.skipif(platform.machine() != "x86_64", reason="the colluder uses x86-64 numbers")
COLLUDER = (Path(__file__).parent / "hostile" / "channels.py").read_bytes()
# What the looking seat reports on, each once; the seccomp filter must refuse the first ones outright.
REFUSED_BY_THE_FILTER = ("flock", "record-lock", "ofd-lock", "inotify", "dnotify", "mincore",
                         "futex-private-wait", "futex-shared-mapping")
HIDDEN_BY_NAMESPACES = ("abstract-socket", "dev-shm", "tmp", "signals")
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
