"""A bot runs only on its own turn: the seats that are not on move are paused, with all their processes.

The hostile ``background_thinker`` spins a thread and a forked child from import on; it plays against an
opponent that spins 300 ms per move, so a bot that kept running between its turns would advance its
counters there about as much as during its own 300 ms turns. Paused, it advances them only in the
moments between its answer and its pause, and its resume and its next ``act``.
"""

from __future__ import annotations

import json
import os
import re
import select
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from sandbox_helpers import FIRST_BOT, bot_source

from bots.referee import BotSpec, Limits, play_match
from bots.sandbox import cgroups
from bots.sandbox.zygote import ZygoteSandbox, _read_line

HOSTILE = Path(__file__).parent.parent / "hostile"
SPINNER = bot_source("""
    import time

    def act(observation, legal_actions):
        end = time.monotonic() + 0.3
        while time.monotonic() < end:
            pass
        return legal_actions[0]
""")
LIMITS = Limits(move_ms=2000, bank_ms=0, start_ms=5000, memory_mb=128)
_START = b'{"type":"start","game":"race","seat":0,"players":2,"options":{}}\n'
_ACT = b'{"type":"act","observation":{},"legal_actions":[1,2],"time_left_ms":1000}\n'


@pytest.fixture(scope="module")
def sandbox(own_sandbox):
    """This module's own sandbox: its tests look at its free cells and spawn bots in it directly."""
    return own_sandbox


def thinker_turns(log: str) -> list[dict]:
    """Per turn of the background thinker: how far its thread and child counted between and during."""
    turns: dict[int, dict] = {}
    for turn, phase, thread, child in re.findall(r"turn (\d+) (between|during) thread=(\d+) child=(\d+)", log):
        turns.setdefault(int(turn), {})[phase] = (int(thread), int(child))
    return [turns[turn] for turn in sorted(turns)]


def free_cells(box: ZygoteSandbox) -> set[int]:
    box.wait_idle()
    with box._lock:
        return {cell.number for cell in box._free}


def test_a_bot_gets_no_cpu_between_its_turns(sandbox, race):
    cells = free_cells(sandbox)
    code = (HOSTILE / "background_thinker.py").read_bytes()
    result = play_match(race, [BotSpec("thinker", code), BotSpec("spinner", SPINNER)], seed=1, limits=LIMITS,
                        sandbox=sandbox)
    thinker, spinner = result.seats
    assert (thinker.outcome, spinner.outcome) == ("ok", "ok"), (thinker.reason, spinner.reason)
    turns = thinker_turns(thinker.log)
    assert len(turns) == 6, thinker.log
    # Its helpers do run during its own turn...
    assert all(turn["during"][0] > 0 and turn["during"][1] > 0 for turn in turns), turns
    during = [sum(turn["during"][i] for turn in turns) for i in (0, 1)]
    between = [sum(turn["between"][i] for turn in turns) for i in (0, 1)]
    # ...and barely between its turns, which last as long: under 45 ms of spinning per turn on average,
    # around its pause and resume (the referee has to get a core from the bot's spinners to pause it, and
    # the thread may keep the interpreter's lock for its 5 ms switch interval after the resume).
    assert between[0] < 0.15 * during[0], turns
    assert between[1] < 0.15 * during[1], turns
    # Killed while paused, the bot left nothing behind and its cell serves the next bot.
    assert sandbox.leftovers() == []
    assert free_cells(sandbox) == cells


def test_a_bot_paused_while_reading_loses_nothing(sandbox):
    bot = sandbox.spawn(FIRST_BOT, LIMITS)
    try:
        os.set_blocking(bot.to_bot, True)
        os.write(bot.to_bot, _START)
        assert b'"ready"' in _read_line(bot.from_bot, 10)
        # Paused while blocked reading an empty pipe, then given a message: it answers only once resumed.
        bot.pause()
        time.sleep(0.05)
        os.write(bot.to_bot, _ACT)
        assert select.select([bot.from_bot], [], [], 0.2)[0] == []
        bot.resume()
        assert _read_line(bot.from_bot, 5) == b'{"type":"action","action":1}'
        # Paused and resumed around a wait with nothing written meanwhile: the read goes on unharmed.
        bot.pause()
        bot.pause()
        bot.resume()
        bot.resume()
        os.write(bot.to_bot, _ACT)
        assert _read_line(bot.from_bot, 5) == b'{"type":"action","action":1}'
    finally:
        bot.close()
    assert sandbox.wait_idle(2.0)
    assert sandbox.leftovers() == []


def test_killing_a_paused_bot_frees_its_cell_at_once(sandbox):
    cells = free_cells(sandbox)
    bot = sandbox.spawn((HOSTILE / "background_thinker.py").read_bytes(), LIMITS)
    os.set_blocking(bot.to_bot, True)
    os.write(bot.to_bot, _START)
    assert b'"ready"' in _read_line(bot.from_bot, 10)
    bot.pause()
    time.sleep(0.05)
    began = time.monotonic()
    bot.close()
    # A frozen process does not act on SIGKILL: unless the kill thaws it, the reaper would give up on the
    # cell after its timeout and discard it.
    assert sandbox.wait_idle(1.0)
    assert time.monotonic() - began < 1.0
    assert sandbox.leftovers() == []
    assert free_cells(sandbox) == cells


def test_a_frozen_pin_lives_as_long_as_the_sandbox(tmp_path):
    """On cgroup v1 an empty group stays frozen, so that freezing a bot patches no kernel text."""
    box = ZygoteSandbox(tmp_path / "cache").start()
    cgroups = box._cgroups
    if cgroups is None or "freezer" not in cgroups.parents:
        box.close()
        pytest.skip("no cgroup v1 freezer here")
    pin = cgroups.parents["freezer"] / "freezer-pin"
    assert box.pause_mechanism == "freezer"
    assert (pin / "freezer.state").read_text().strip() == "FROZEN"
    box.close()
    assert not pin.exists()
    assert not pin.parent.exists()


def process_state(pid: int) -> str:
    """The one-letter state of ``pid`` (``T`` when stopped)."""
    stat = Path(f"/proc/{pid}/stat").read_text()
    return stat.rsplit(")", 1)[1].split()[0]


def test_the_unsafe_mode_stops_the_bots_process_group():
    from bots.sandbox.unsafe import UnsafeSandbox

    bot = UnsafeSandbox().spawn(FIRST_BOT, LIMITS)
    try:
        os.set_blocking(bot.to_bot, True)
        os.write(bot.to_bot, _START)
        assert b'"ready"' in _read_line(bot.from_bot, 10)
        pid = bot._popen.pid
        bot.pause()
        deadline = time.monotonic() + 2
        while process_state(pid) != "T" and time.monotonic() < deadline:
            time.sleep(0.01)
        assert process_state(pid) == "T"
        os.write(bot.to_bot, _ACT)
        assert select.select([bot.from_bot], [], [], 0.2)[0] == []
        bot.resume()
        assert _read_line(bot.from_bot, 5) == b'{"type":"action","action":1}'
        assert process_state(pid) != "T"
        bot.pause()
    finally:
        bot.close()
    assert bot._popen.returncode is not None


HOST_SCRIPT = textwrap.dedent("""
    import json, os, signal, sys
    sys.path.insert(0, {root!r})
    from bots.referee import Limits
    from bots.sandbox.zygote import ZygoteSandbox, _read_line

    sandbox = ZygoteSandbox({cache!r}).start()
    bot = sandbox.spawn({code!r}, Limits())
    os.set_blocking(bot.to_bot, True)
    os.write(bot.to_bot, {start!r})
    assert b'"ready"' in _read_line(bot.from_bot, 10)
    bot.pause()
    print(json.dumps({{"groups": [str(d) for d in bot.cell.cgroup.dirs], "frozen": bot.cell.cgroup.frozen}}),
          flush=True)
    # The host alone, or its whole process group (as a supervisor or a terminal kills a worker).
    if {group!r}:
        os.killpg(0, signal.SIGKILL)
    os.kill(os.getpid(), signal.SIGKILL)
""")


@pytest.mark.parametrize("group", [False, True], ids=["host", "host-process-group"])
def test_a_bot_left_paused_by_a_host_that_died_does_not_linger(tmp_path, group):
    code = (HOSTILE / "background_thinker.py").read_bytes()
    script = HOST_SCRIPT.format(root=str(Path(__file__).resolve().parents[3]), cache=str(tmp_path / "cache"),
                                code=code, start=_START, group=group)
    # Into files: the sandbox's processes inherit the host's output, and a pipe would stay open with them.
    with open(tmp_path / "out", "w") as out, open(tmp_path / "err", "w") as err:
        subprocess.run([sys.executable, "-c", script], stdout=out, stderr=err, timeout=60, check=False,
                       start_new_session=True)
    output, errors = (tmp_path / "out").read_text(), (tmp_path / "err").read_text()
    if "no usable cgroups" in errors:
        pytest.skip(f"no cgroups here: {errors[-300:]}")
    assert output.strip(), errors[-2000:]
    report = json.loads(output.strip().splitlines()[-1])
    assert report["frozen"]
    groups = [Path(group) for group in report["groups"]]
    try:
        deadline = time.monotonic() + 5
        left = None
        while time.monotonic() < deadline:
            left = [pid for group in groups for pid in (group / "cgroup.procs").read_text().split()]
            if not left:
                break
            time.sleep(0.05)
        assert left == [], "processes of a dead host's frozen bot are still there"
    finally:
        for base in {group.parent.parent for group in groups}:
            cgroups._remove_stale(base)
    assert not any(group.exists() for group in groups)


def test_the_cgroup_v2_freezer_stops_a_group_and_kill_thaws_it(tmp_path):
    """The v2 path (``cgroup.freeze``), on whatever unified hierarchy this machine mounts."""
    unified = cgroups._mounts().get("")
    if os.geteuid() != 0 or unified is None:
        pytest.skip("no writable cgroup v2 hierarchy here")
    directory = unified / cgroups._own_paths().get("", "/").lstrip("/") / f"botladder-test-{os.getpid()}"
    try:
        directory.mkdir()
    except OSError as exc:
        pytest.skip(f"cgroup v2 not writable here: {exc}")
    group = cgroups.BotCgroup([directory], None, 2, directory)
    # A harmless process of the test's own, blocked reading a pipe that it is then given a line on.
    reader = subprocess.Popen([sys.executable, "-c", "import sys; print(sys.stdin.readline().strip())"],
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    sleeper = None
    try:
        (directory / "cgroup.procs").write_text(str(reader.pid))
        group.freeze()
        deadline = time.monotonic() + 2
        while "frozen 1" not in (directory / "cgroup.events").read_text() and time.monotonic() < deadline:
            time.sleep(0.01)
        assert "frozen 1" in (directory / "cgroup.events").read_text()
        reader.stdin.write("kept\n")
        reader.stdin.flush()
        with pytest.raises(subprocess.TimeoutExpired):
            reader.wait(timeout=0.2)
        group.thaw()
        assert reader.stdout.readline().strip() == "kept"
        assert reader.wait(timeout=5) == 0
        # Frozen again with a process in it: removing the group kills and thaws it.
        sleeper = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
        (directory / "cgroup.procs").write_text(str(sleeper.pid))
        group.freeze()
        group.kill_and_remove()
        assert sleeper.wait(timeout=5) == -9
        assert not directory.exists()
    finally:
        for process in (reader, sleeper):
            if process is not None and process.poll() is None:
                process.kill()
                process.wait()
        if directory.exists():
            cgroups.BotCgroup([directory], None, 2).kill_and_remove()
