"""Nothing of a bot outlives its match: not when it clears its parent-death signal and leaves a
grandchild in a session of its own, and not when the host process itself is killed mid-match.

The hostile bot names its processes with a token of the test's, so that the host can look for them in
``/proc`` whatever uid they run under. (The ordinary user's path during a match is in
``test_unprivileged.py``; a killed host is tried here in both paths.)
"""

from __future__ import annotations

import shutil
import signal
import subprocess
import sys
import textwrap
import threading
import time
import uuid
from pathlib import Path

import pytest
from sandbox_helpers import FIRST_BOT, live_processes, skip_without_isolation

from bots.referee import BotSpec, Limits, play_match
from bots.sandbox.zygote import ZygoteSandbox

HERE = Path(__file__).parent.parent
PROJECT_ROOT = HERE.parents[1]


def immortal(token: str) -> bytes:
    return (f"TOKEN = {token!r}\n" + (HERE / "hostile" / "immortal.py").read_text()).encode()


def processes_named(token: str, uids: set[int] = frozenset()) -> list[str]:
    """Live processes (not zombies) whose name is ``token`` or whose uid is one of ``uids``."""
    return live_processes(uids=set(uids), name=token)


def wait_for(condition, timeout_s: float) -> bool:
    deadline = time.monotonic() + timeout_s
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def new_token() -> str:
    return "imm" + uuid.uuid4().hex[:12]  # a process name holds 15 characters


def test_a_bot_that_clears_its_parent_death_signal_dies_with_its_match(sandbox, race):
    token = new_token()
    result = play_match(race, [BotSpec("immortal", immortal(token)), BotSpec("other", FIRST_BOT)], seed=1,
                        limits=Limits(move_ms=600, bank_ms=200), sandbox=sandbox)
    seat = result.seats[0]
    assert seat.outcome == "timeout"
    assert "refused parent-death signal" in seat.log and "grandchild started" in seat.log
    assert result.seats[1].outcome == "ok"
    # Looked for by name and by the host uids the sandbox gave its bots.
    assert wait_for(lambda: not processes_named(token, sandbox.uids_used), 2), \
        processes_named(token, sandbox.uids_used)
    assert sandbox.leftovers() == []


def test_a_sandbox_outlives_the_thread_that_started_it(tmp_path, race):
    """The zygote dies with its parent *thread*: a sandbox started from a short-lived thread must go on."""
    started = []
    starter = threading.Thread(target=lambda: started.append(ZygoteSandbox(tmp_path / "cache").start()))
    starter.start()
    starter.join()
    if not started:
        pytest.skip("the sandbox did not start (see the other sandbox tests)")
    box = started[0]
    try:
        time.sleep(0.2)
        assert box.alive()
        result = play_match(race, [BotSpec("a", FIRST_BOT), BotSpec("b", FIRST_BOT)], seed=1, sandbox=box)
        assert [seat.outcome for seat in result.seats] == ["ok", "ok"]
    finally:
        box.close()


HOST = textwrap.dedent("""
    import sys
    sys.path[:0] = [{root!r}, {here!r}, {here!r} + "/sandbox"]
    import engines
    from conftest import RaceGame
    engines.register(RaceGame())
    from bots.referee import BotSpec, Limits, play_match
    from bots.sandbox.zygote import ZygoteSandbox

    sandbox = ZygoteSandbox({cache!r}).start()
    print("started", flush=True)
    play_match("race", [BotSpec("immortal", {code!r}), BotSpec("other", b"def act(o, l): return l[0]")],
               seed=1, limits=Limits(move_ms=60000, bank_ms=60000, match_ms=120000), sandbox=sandbox)
""")


# As root, and as an ordinary user (``unshare --user`` executes the host itself, so the host is its pid).
AS_USER = ["unshare", "--user", "--map-user=1000", "--map-group=1000"]


@pytest.mark.parametrize("prefix", [[], AS_USER], ids=["root", "ordinary-user"])
def test_nothing_of_a_bot_survives_its_host_being_killed(tmp_path, prefix):
    if prefix and shutil.which("unshare") is None:
        pytest.skip("util-linux unshare is not installed")
    token = new_token()
    script = HOST.format(root=str(PROJECT_ROOT), here=str(HERE), cache=str(tmp_path / "cache"),
                         code=immortal(token))
    host = subprocess.Popen([*prefix, sys.executable, "-c", script], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        # The bot and its grandchild: the grandchild is the one that left the bot's session.
        if not wait_for(lambda: len(processes_named(token)) >= 2 or host.poll() is not None, 60):
            pytest.fail("the hostile bot never started")
        if host.poll() is not None:
            skip_without_isolation(host.stderr.read()[-500:])
        time.sleep(0.2)
        host.send_signal(signal.SIGKILL)
        host.wait()
        assert wait_for(lambda: not processes_named(token), 5), processes_named(token)
    finally:
        if host.poll() is None:
            host.kill()
            host.wait()
