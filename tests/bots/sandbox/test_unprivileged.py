"""The sandbox as an ordinary user (a developer's laptop): the same guarantees through a user namespace.

The test re-runs a match in a child process that ``unshare --user`` has turned into uid 1000 without any
capability in the host's namespaces, so the sandbox takes its unprivileged path (no cgroups, every
namespace inside a user namespace of its own). Hostile bots there still fail to escape.

A bot that clears its parent-death signal must not outlive its match here either: the host kills the
first process of its pid namespace (the shell's child), not only the outer shell the cell forked.

The fork bomb is left out on purpose: ``unshare --user`` run by root keeps root as the real user outside,
and the kernel never applies RLIMIT_NPROC to root, so here (unlike on a real user's machine) nothing would
bound it.
"""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

from sandbox_helpers import run_as_ordinary_user
from test_lifetime import immortal, new_token

HERE = Path(__file__).parent.parent
PROJECT_ROOT = HERE.parents[1]

SCRIPT = textwrap.dedent("""
    import json, os, sys
    sys.path[:0] = [{root!r}, {here!r}, {here!r} + "/sandbox"]
    import engines
    from conftest import RaceGame
    engines.register(RaceGame())
    from bots.referee import BotSpec, Limits, play_match
    from bots.sandbox.zygote import ZygoteSandbox

    from test_lifetime import processes_named, wait_for

    sandbox = ZygoteSandbox({cache!r}).start()
    results = {{"uid": os.geteuid(), "describe": sandbox.describe()}}
    for name, code in {bots!r}.items():
        result = play_match("race", [BotSpec(name, code.encode()), BotSpec("victim", b"def act(o, l): return l[0]")],
                            seed=3, limits=Limits(move_ms=500, bank_ms=200, memory_mb=128), sandbox=sandbox)
        results[name] = [result.seats[0].outcome, result.seats[0].reason, result.seats[0].log]
    # Looked for before the sandbox closes: its cells going would hide a bot that outlived its match.
    wait_for(lambda: not processes_named({token!r}), 2)
    results["survivors"] = processes_named({token!r})
    sandbox.close()
    print(json.dumps(results))
""")


def test_hostile_bots_fail_as_an_ordinary_user(tmp_path):
    bots = {name: (HERE / "hostile" / f"{name}.py").read_text()
            for name in ("privileges", "killer", "memory_hog", "sleeper")}
    bots["network"] = "PORT = 6379\nUDP_PORT = 6379\n" + (HERE / "hostile" / "network.py").read_text()
    token = new_token()
    bots["immortal"] = immortal(token).decode()
    bots["channels"] = (HERE / "hostile" / "channels.py").read_text()
    script = SCRIPT.format(root=str(PROJECT_ROOT), here=str(HERE), cache=str(tmp_path / "cache"), bots=bots,
                           token=token)
    results = run_as_ordinary_user(script, cwd=tmp_path, timeout=120)
    assert results["uid"] == 1000
    assert "no cgroups" in results["describe"]
    assert all("ESCAPED" not in results[name][2] for name in bots)
    assert results["privileges"][0] == "ok" and results["privileges"][2].count("refused") == 11
    assert results["network"][0] == "ok" and results["network"][2].count("refused") == 8
    assert results["killer"][0] == "ok" and "killed" not in results["killer"][2]
    assert results["memory_hog"][0] == "memory"
    assert results["sleeper"][0] == "timeout"
    # A bot that clears its parent-death signal and leaves a grandchild behind is gone with its match.
    assert results["survivors"] == []
    assert results["immortal"][0] == "timeout" and "refused parent-death signal" in results["immortal"][2]
    # The colluder, played against an honest bot here, is refused every lock, watch and futex.
    assert "SEEN" not in results["channels"][2]
    assert all(f"refused {channel}" in results["channels"][2] for channel in ("flock", "record-lock", "ofd-lock"))


THINKER_SCRIPT = textwrap.dedent("""
    import json, os, sys
    sys.path[:0] = [{root!r}, {here!r}, {here!r} + "/sandbox"]
    import engines
    from conftest import RaceGame
    engines.register(RaceGame())
    from bots.referee import BotSpec, Limits, play_match
    from bots.sandbox.zygote import ZygoteSandbox

    spinner = b"import time\\ndef act(o, l):\\n    end = time.monotonic() + 0.3\\n    while time.monotonic() < end:\\n        pass\\n    return l[0]\\n"
    sandbox = ZygoteSandbox({cache!r}).start()
    result = play_match("race", [BotSpec("thinker", {code!r}.encode()), BotSpec("spinner", spinner)], seed=1,
                        limits=Limits(move_ms=2000, bank_ms=0, memory_mb=128), sandbox=sandbox)
    leftovers = sandbox.leftovers()
    sandbox.close()
    print(json.dumps({{"describe": sandbox.describe(), "outcomes": [s.outcome for s in result.seats],
                      "log": result.seats[0].log, "leftovers": leftovers}}))
""")


def test_an_ordinary_users_bot_is_stopped_between_its_turns(tmp_path):
    """As an ordinary user there is no freezer: the namespace's first process is sent SIGSTOP, which
    stops the bot's threads but not the processes it forked (the sandbox's docstring says so)."""
    code = (HERE / "hostile" / "background_thinker.py").read_text()
    script = THINKER_SCRIPT.format(root=str(PROJECT_ROOT), here=str(HERE), cache=str(tmp_path / "cache"),
                                   code=code)
    results = run_as_ordinary_user(script, cwd=tmp_path, timeout=120)
    assert "paused off turn: sigstop" in results["describe"]
    assert results["outcomes"] == ["ok", "ok"]
    assert results["leftovers"] == []
    turns = {}
    for turn, phase, thread in re.findall(r"turn (\d+) (between|during) thread=(\d+)", results["log"]):
        turns.setdefault(int(turn), {})[phase] = int(thread)
    assert len(turns) == 6, results["log"]
    assert all(turn["during"] > 0 for turn in turns.values())
    between = sum(turn["between"] for turn in turns.values())
    during = sum(turn["during"] for turn in turns.values())
    assert between < 0.15 * during, turns
