"""The seccomp allowlist: ordinary bots work under it, everything else fails with an errno, foreign ABIs
kill the bot, and a machine without libseccomp refuses to run bots.

Everything here runs through the real sandbox (root's path; the ordinary user's is in
``test_unprivileged.py``).
"""

from __future__ import annotations

import dataclasses
import platform
from pathlib import Path

import pytest
from sandbox_helpers import FIRST_BOT, skip_without_isolation

from bots.referee import BotSpec, Limits, play_match
from bots.sandbox import SandboxUnavailable
from bots.sandbox.policy import default_policy
from bots.sandbox.zygote import ZygoteSandbox

HERE = Path(__file__).parent.parent
LIMITS = Limits(move_ms=5000, bank_ms=5000, start_ms=10000, memory_mb=256)
REFUSED = ("ptrace", "process_vm_readv", "mount", "unshare", "setns", "clone-newuser", "flock",
           "inotify_init1", "fanotify_init", "futex_waitv", "mincore", "shmget", "semget", "msgget",
           "mq_open", "keyctl", "bpf", "io_uring_setup", "userfaultfd", "setuid", "setresuid", "setresgid", "setgroups", "capset",
           "prctl-no-new-privs", "prctl-ambient-clear-all", "prctl-pdeathsig",
           "prctl-dumpable", "prctl-ptracer", "prctl-subreaper", "prctl-mm", "prctl-seccomp",
           "prctl-securebits", "prctl-ambient-raise", "fcntl-setlk", "fcntl-setlk-high-bits", "fcntl-ofd-setlk",
           "fcntl-setlease", "fcntl-notify", "mmap-shared-file")


# The probe bots call syscalls by their x86-64 numbers; the filter itself resolves names per architecture.
x86_64_only = pytest.mark.skipif(platform.machine() != "x86_64", reason="the probes use x86-64 numbers")


@pytest.fixture(scope="module", params=["zygote", "fresh"])
def sandbox(request, tmp_path_factory):
    try:
        box = ZygoteSandbox(tmp_path_factory.mktemp("code-cache"), mode=request.param).start()
    except SandboxUnavailable as exc:
        skip_without_isolation(exc)
    yield box
    box.close()


def play(box, race, code: bytes):
    result = play_match(race, [BotSpec("probe", code), BotSpec("other", FIRST_BOT)], seed=5, limits=LIMITS,
                        sandbox=box)
    assert result.seats[1].outcome == "ok"
    assert box.leftovers() == []
    return result.seats[0]


def test_an_everyday_bot_works_under_the_allowlist(sandbox, race):
    seat = play(sandbox, race, (HERE / "honest" / "everyday.py").read_bytes())
    assert (seat.outcome, seat.reason) == ("ok", "")
    assert seat.log == "ok [0, 1, 4]\n"


@x86_64_only
def test_calls_off_the_allowlist_fail_with_an_errno(sandbox, race):
    seat = play(sandbox, race, (HERE / "hostile" / "syscalls.py").read_bytes())
    assert seat.outcome == "ok", seat.reason
    lines = seat.log.splitlines()
    assert [line for line in lines if line.startswith("refused ") and line.endswith("Operation not permitted")] \
        == [f"refused {name} Operation not permitted" for name in REFUSED]
    assert "refused clone3 Function not implemented" in lines  # so that glibc falls back to clone
    # A futex that is not process-private answers "try again", which glibc's waiters retry.
    assert "refused futex-shared-wake Resource temporarily unavailable" in lines
    assert "allowed ordinary calls" in lines
    assert "ALLOWED" not in seat.log


@x86_64_only
@pytest.mark.parametrize("abi", ["x32", "i386"])
def test_a_foreign_abi_kills_the_bot_before_any_result(sandbox, race, abi):
    code = f"ABI = {abi!r}\n" + (HERE / "hostile" / "foreign_abi.py").read_text()
    seat = play(sandbox, race, code.encode())
    assert seat.outcome == "crash"
    assert seat.log.startswith(f"calling getpid through {abi}")
    assert "RESULT" not in seat.log and "SURVIVED" not in seat.log


def test_a_machine_without_libseccomp_refuses_to_run_bots(tmp_path):
    policy = dataclasses.replace(default_policy(), seccomp_library=str(tmp_path / "libseccomp.so.2"))
    with pytest.raises(SandboxUnavailable) as caught:
        ZygoteSandbox(tmp_path / "cache", policy=policy).start()
    message = str(caught.value)
    assert "isolation cannot be set up on this machine" in message
    assert "libseccomp cannot be loaded" in message and "libseccomp2" in message
