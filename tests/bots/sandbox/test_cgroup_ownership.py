"""A sandbox's cgroups belong to the process that made them, whatever pid namespace looks at them.

Two sandboxes on one machine share the parent groups their ``botladder-*`` groups sit in; in containers
they may see different pid namespaces. Each sandbox removes the groups that dead workers left behind when
it starts: it must never take a live sandbox's groups for a dead one's, whichever namespace either lives
in, and must still remove what a dead one left.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest
from sandbox_helpers import FIRST_BOT, botladder_groups, descendants

from bots.referee import Limits
from bots.sandbox import cgroups
from bots.sandbox.zygote import ZygoteSandbox, _read_line

HERE = Path(__file__).parent.parent
PROJECT_ROOT = HERE.parents[1]
# A child in a pid namespace and a /proc of its own, killed if unshare itself is.
OWN_PID_NAMESPACE = ["unshare", "--pid", "--mount-proc", "--kill-child"]
_START = b'{"type":"start","game":"race","seat":0,"players":2,"options":{}}\n'
_ACT = b'{"type":"act","observation":{},"legal_actions":[1,2],"time_left_ms":1000}\n'

# A sandbox in a pid namespace of its own (pid 1 there): it starts (removing whatever groups it takes for
# a dead worker's), plays a match, reports, and on each line it is sent plays again and reports again.
OTHER_NAMESPACE = textwrap.dedent("""
    import json, os, sys
    sys.path[:0] = [{root!r}, {here!r}, {here!r} + "/sandbox"]
    import engines
    from conftest import RaceGame
    engines.register(RaceGame())
    from bots.referee import BotSpec, play_match
    from bots.sandbox.zygote import ZygoteSandbox

    box = ZygoteSandbox({cache!r}).start()
    parents = [str(parent) for parent in box._cgroups.parents.values()] if box._cgroups else []

    def report():
        result = play_match("race", [BotSpec("a", {code!r}), BotSpec("b", {code!r})], seed=1, sandbox=box)
        print(json.dumps({{"pid": os.getpid(), "parents": parents,
                          "outcomes": [seat.outcome for seat in result.seats],
                          "parents_exist": all(os.path.isdir(parent) for parent in parents),
                          "leftovers": box.leftovers()}}), flush=True)

    report()
    while sys.stdin.readline().strip() == "again":
        report()
    box.close()
""")


@pytest.fixture(scope="module")
def sandbox(own_sandbox):
    """This module's own sandbox: its tests look at the cgroups it made."""
    return own_sandbox


def ready_frozen_bot(box: ZygoteSandbox):
    """A bot of ``box`` that answered ``ready`` and is now frozen between its turns, as most are."""
    bot = box.spawn(FIRST_BOT, Limits())
    os.set_blocking(bot.to_bot, True)
    os.write(bot.to_bot, _START)
    assert b'"ready"' in _read_line(bot.from_bot, 10), bot.sandbox_failure()
    bot.pause()
    return bot


def groups_of(box: ZygoteSandbox) -> set[Path]:
    """The groups ``box`` holds: its bots' and cells' and its freezer pin, on every hierarchy."""
    return {child for parent in box._cgroups.parents.values() for child in parent.iterdir() if child.is_dir()}


def test_sandboxes_in_two_pid_namespaces_leave_each_other_alone(sandbox, race, tmp_path):
    if sandbox._cgroups is None:
        pytest.skip("no cgroups here: nothing to share")
    if shutil.which("unshare") is None:
        pytest.skip("util-linux unshare is not installed")
    bot = ready_frozen_bot(sandbox)
    ours = groups_of(sandbox)
    assert set(bot.cell.cgroup.dirs) <= ours
    script = OTHER_NAMESPACE.format(root=str(PROJECT_ROOT), here=str(HERE), cache=str(tmp_path / "cache"),
                                    code=FIRST_BOT)
    other = subprocess.Popen([*OWN_PID_NAMESPACE, sys.executable, "-c", script],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                             cwd=tmp_path)
    second = None
    try:
        first = json.loads(other.stdout.readline() or "null")
        assert first is not None, other.stderr.read()[-3000:] if other.poll() is not None else "no report"
        # Its pid means nothing here: our /proc does not show its namespace, nor its /proc ours.
        assert first["pid"] == 1
        assert first["outcomes"] == ["ok", "ok"] and first["parents_exist"] and first["leftovers"] == []
        # Our groups (the frozen bot's, the idle cells', the freezer pin) came through the other sandbox's
        # start untouched, and so did our frozen bot.
        assert groups_of(sandbox) == ours
        assert bot.cell.cgroup.frozen_on_disk()
        bot.resume()
        os.write(bot.to_bot, _ACT)
        assert _read_line(bot.from_bot, 5) == b'{"type":"action","action":1}'

        # A second sandbox of ours starts while the other one's groups are live: it leaves them alone.
        second = ZygoteSandbox(tmp_path / "cache-2").start()
        other.stdin.write("again\n")
        other.stdin.flush()
        again = json.loads(other.stdout.readline() or "null")
        assert again is not None, other.stderr.read()[-3000:] if other.poll() is not None else "no report"
        assert again["outcomes"] == ["ok", "ok"] and again["parents_exist"] and again["leftovers"] == []
        assert groups_of(sandbox) == ours

        other.stdin.close()
        assert other.wait(timeout=30) == 0, other.stderr.read()[-3000:]
        assert not any(Path(parent).exists() for parent in first["parents"])
    finally:
        bot.close()
        if other.poll() is None:
            other.kill()
            other.wait()
        if second is not None:
            second.close()
    assert sandbox.leftovers() == []


# A sandbox whose host then dies by SIGKILL with a bot left frozen: its groups are a dead worker's.
DYING_HOST = textwrap.dedent("""
    import json, os, signal, sys
    sys.path.insert(0, {root!r})
    from bots.referee import Limits
    from bots.sandbox.zygote import ZygoteSandbox, _read_line

    box = ZygoteSandbox({cache!r}).start()
    bot = box.spawn({code!r}, Limits())
    os.set_blocking(bot.to_bot, True)
    os.write(bot.to_bot, {start!r})
    assert b'"ready"' in _read_line(bot.from_bot, 10)
    bot.pause()
    print(json.dumps({{"parents": [str(parent) for parent in box._cgroups.parents.values()]}}), flush=True)
    os.kill(os.getpid(), signal.SIGKILL)
""")
# The first process of the namespace, which runs the host (init ignores a SIGKILL from its own namespace),
# says when it is dead, and exits: the kernel then kills whatever is left in the namespace, except what
# stays frozen.
INIT = "import subprocess, sys; subprocess.run(sys.argv[1:]); print('dead', flush=True)"


def test_the_groups_of_a_dead_sandbox_are_removed_by_the_next_one_to_start(tmp_path):
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        pytest.skip("cgroups need root here, and the host runs under util-linux unshare")
    script = DYING_HOST.format(root=str(PROJECT_ROOT), cache=str(tmp_path / "cache"), code=FIRST_BOT,
                               start=_START)
    # In a pid namespace of its own, so that its pid (2) is nothing to go by here either.
    with open(tmp_path / "err", "w") as err:
        dead = subprocess.Popen([*OWN_PID_NAMESPACE, sys.executable, "-c", INIT, sys.executable, "-c", script],
                                stdout=subprocess.PIPE, stderr=err, text=True)
    box, parents = None, []
    try:
        output = dead.stdout.readline()
        if "no usable cgroups" in (tmp_path / "err").read_text():
            pytest.skip("no cgroups here")
        assert output, (tmp_path / "err").read_text()[-3000:]
        parents = [Path(parent) for parent in json.loads(output)["parents"]]
        assert dead.stdout.readline().strip() == "dead"
        assert all(parent.is_dir() for parent in parents)
        box = ZygoteSandbox(tmp_path / "cache-2").start()
        assert not any(parent.exists() for parent in parents)
        # The frozen bot was thawed and killed with its group: nothing holds the dead namespace open.
        assert dead.wait(timeout=30) == 0
    finally:
        if box is not None:
            box.close()
        for parent in parents:
            force_remove(parent)
        dead.kill()
        dead.wait(timeout=30)


def force_remove(parent: Path) -> None:
    """Remove a worker's groups whoever owns them (a failed test's remains), thawing and killing first."""
    for child in [*parent.glob("bot-*"), parent / "freezer-pin"]:
        if child.is_dir():
            cgroups._thaw(child)
            cgroups.BotCgroup([child], None, 1).kill_and_remove(timeout_s=1)
    if parent.is_dir():
        parent.rmdir()


# About five seconds of Kingdomino: long enough to be stopped mid-match.
SLOW_BOT = b"import time\n\ndef act(observation, legal_actions):\n    time.sleep(0.1)\n    return legal_actions[0]\n"


@pytest.mark.parametrize("stop", ["end", signal.SIGINT, signal.SIGTERM], ids=["end", "sigint", "sigterm"])
def test_play_leaves_no_cgroup_behind(tmp_path, stop):
    """``manage.py play`` removes its sandbox's groups when it ends, is interrupted or terminated."""
    if os.geteuid() != 0:
        pytest.skip("the sandbox makes cgroups as root only")
    bot = tmp_path / "slow.py"
    bot.write_bytes(SLOW_BOT)
    with open(tmp_path / "err", "w") as err:
        play = subprocess.Popen([sys.executable, "manage.py", "play", "kingdomino", str(bot), str(bot)],
                                cwd=PROJECT_ROOT, stdout=subprocess.DEVNULL, stderr=err)
    try:
        groups: set[Path] = set()
        deadline = time.monotonic() + 60
        while not groups and play.poll() is None and time.monotonic() < deadline:
            groups = botladder_groups(descendants(play.pid))
            time.sleep(0.05)
        assert groups, (tmp_path / "err").read_text()[-3000:]
        if stop != "end":
            play.send_signal(stop)
        play.wait(timeout=60)
    finally:
        if play.poll() is None:
            play.kill()
            play.wait()
    assert play.returncode == (0 if stop == "end" else -stop), \
        (tmp_path / "err").read_text()[-3000:]
    assert [str(group) for group in groups if group.exists()] == []


def test_a_group_is_stale_only_once_nobody_holds_it(tmp_path):
    """The proof of ownership is a lock on the worker's parent group: a process of the test holds one for a
    group whose name names a pid that does not exist; the clean-up removes it only once that process is
    gone."""
    if os.geteuid() != 0:
        pytest.skip("cgroups need root here")
    mounts, own = cgroups._mounts(), cgroups._own_paths()
    controller = "pids" if "pids" in mounts else ""
    if controller not in mounts:
        pytest.skip("no pids or unified cgroup hierarchy here")
    base = mounts[controller] / own.get(controller, "/").lstrip("/")
    # The pid in the name is one no process has (above pid_max), so only the lock can keep it.
    parent = base / f"{cgroups.PARENT_PREFIX}{2**22 + 1}-{os.getpid()}test"
    holder = subprocess.Popen(
        [sys.executable, "-c", textwrap.dedent(f"""
            import sys
            sys.path.insert(0, {str(PROJECT_ROOT)!r})
            from pathlib import Path
            from bots.sandbox import cgroups
            lock = cgroups._claim(Path({str(parent)!r}))
            (Path({str(parent)!r}) / "bot-1").mkdir()
            print("held", flush=True)
            sys.stdin.readline()
        """)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        assert holder.stdout.readline().strip() == "held"
        cgroups._remove_stale(base)
        assert (parent / "bot-1").is_dir()
        holder.send_signal(signal.SIGKILL)
        holder.wait(timeout=10)
        cgroups._remove_stale(base)
        assert not parent.exists()
    finally:
        if holder.poll() is None:
            holder.kill()
            holder.wait()
        deadline = time.monotonic() + 2
        while parent.exists() and time.monotonic() < deadline:
            cgroups._remove_stale(base)
