"""Hostile bots against the real sandbox: every escape fails, the outcome is right, the host is untouched.

Each bot in ``tests/bots/hostile/`` attacks one guarantee of docs/bots.md ("What the sandbox guarantees") and
prints ``ESCAPED`` for anything that works. It plays the ``race`` game against a well-behaved bot whose code
carries a marker, so that reading it would be noticed. After every match the host is checked: no process of a
bot uid is left, no cgroup is left, the watched files and listeners saw nothing. These bots only ever run
through the sandbox (never bare, never in unsafe mode): the fixture refuses to fall back.
"""

from __future__ import annotations

import socket
import time
import uuid
from pathlib import Path

import pytest
from sandbox_helpers import live_processes

from bots.referee import BotSpec, Limits, play_match
from bots.sandbox import SandboxUnavailable
from bots.sandbox.zygote import ZygoteSandbox

HOSTILE = Path(__file__).parent.parent / "hostile"
PROJECT_ROOT = Path(__file__).resolve().parents[3]
MARKER = f"other-bot-marker-{uuid.uuid4().hex}"
OPPONENT = (f"# {MARKER}\n"
            "def act(observation, legal_actions):\n"
            "    return legal_actions[0]\n").encode()
LIMITS = Limits(move_ms=400, bank_ms=200, start_ms=5000, memory_mb=128, log_bytes=16384)


def hostile(name: str, **constants) -> bytes:
    header = "".join(f"{key} = {value!r}\n" for key, value in constants.items())
    return (header + (HOSTILE / f"{name}.py").read_text()).encode()


def bot_uid_processes(box: ZygoteSandbox) -> list[str]:
    """Processes (not zombies) running under a uid this sandbox gave a bot, after a short grace for the
    kernel. (Other sandboxes on the machine may be running bots of their own meanwhile.)"""
    deadline = time.monotonic() + 2
    while True:
        found = live_processes(uids=box.uids_used)
        if not found or time.monotonic() > deadline:
            return found
        time.sleep(0.05)


def play(box, race, code: bytes, limits: Limits = LIMITS):
    result = play_match(race, [BotSpec("hostile", code), BotSpec("victim", OPPONENT)], seed=7, limits=limits,
                        sandbox=box)
    hostile_seat, victim = result.seats
    assert "ESCAPED" not in hostile_seat.log
    assert victim.outcome == "ok", victim.reason
    assert sum(result.actions) == 12  # the match always finishes
    assert bot_uid_processes(box) == []
    assert box.leftovers() == []
    return hostile_seat, result


def test_no_network_not_even_loopback(sandbox, race):
    with socket.socket() as listener, socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as udp:
        listener.bind(("0.0.0.0", 0))
        listener.listen()
        listener.setblocking(False)
        udp.bind(("0.0.0.0", 0))
        udp.setblocking(False)
        seat, _ = play(sandbox, race, hostile("network", PORT=listener.getsockname()[1],
                                              UDP_PORT=udp.getsockname()[1]))
        with pytest.raises(BlockingIOError):
            listener.accept()
        with pytest.raises(BlockingIOError):
            udp.recv(100)
    assert seat.outcome == "ok"
    assert seat.log.count("refused") == 8


def test_sees_no_settings_environment_processes_or_other_bot(sandbox, race, monkeypatch):
    monkeypatch.setenv("BOTLADDER_TEST_SECRET", "s3cret")
    project_files = [str(PROJECT_ROOT / "ladder" / "settings.py"), str(PROJECT_ROOT / "pyproject.toml"),
                     str(PROJECT_ROOT)]
    code = hostile("snoop", PROJECT_FILES=project_files, OTHER_BOT_MARKER=MARKER,
                   CACHE_ROOT=str(sandbox.cache.root))
    seat, _ = play(sandbox, race, code, Limits(move_ms=20000, bank_ms=0))
    assert seat.outcome == "ok"
    assert seat.log.count("refused") == len(project_files) + 5
    assert "visible top level: ['bot', 'dev', 'lib', 'lib64', " in seat.log or "visible top level:" in seat.log
    assert "'proc'" not in seat.log.split("visible top level:")[1]


def test_writes_nowhere_but_a_small_private_tmp(sandbox, race, tmp_path):
    target = tmp_path / "pwned"
    seat, _ = play(sandbox, race, hostile("writes", HOST_TARGET=str(target)))
    assert seat.outcome == "ok"
    assert not target.exists()
    assert seat.log.count("refused") == 5
    assert "tmp is capped" in seat.log
    assert list(sandbox.cache.root.glob("*/pwned")) == []


FILL_TMP = b"""
filled = None


def act(observation, legal_actions):
    global filled
    if filled is None:
        filled = 0
        try:
            with open("/tmp/fill", "wb", buffering=0) as handle:
                for _ in range(64):
                    handle.write(b"x" * (1 << 20))
                    filled += 1
        except OSError as exc:
            print("stopped:", exc.strerror, flush=True)
        print("filled", filled, "MiB", flush=True)
    return legal_actions[0]
"""


@pytest.mark.parametrize("tmp_mb", [Limits().tmp_mb, 4])
def test_tmp_holds_the_size_the_limits_give_it(sandbox, race, tmp_mb):
    # The default size is mounted ahead of the bot, another one is resized at its start: each holds
    # what it is given and no more.
    limits = Limits(move_ms=2000, bank_ms=2000, start_ms=5000, memory_mb=128, tmp_mb=tmp_mb, file_mb=64)
    seat, _ = play(sandbox, race, FILL_TMP, limits)
    assert seat.outcome == "ok", seat.reason
    assert "stopped: No space left on device" in seat.log
    assert f"filled {tmp_mb - 1} MiB" in seat.log or f"filled {tmp_mb} MiB" in seat.log, seat.log


def test_unprivileged_no_capabilities_no_namespaces_no_setuid(sandbox, race):
    seat, _ = play(sandbox, race, hostile("privileges"))
    assert seat.outcome == "ok"
    assert seat.log.count("refused") == 11


def test_fork_bomb_is_bounded_and_cleaned_up(sandbox, race):
    seat, _ = play(sandbox, race, hostile("fork_bomb"))
    assert seat.outcome in ("ok", "timeout")
    forked = [line for line in seat.log.splitlines() if line.startswith("forked")]
    assert not forked or int(forked[0].split()[1]) < LIMITS.max_processes


def test_detached_child_does_not_survive_the_match(sandbox, race):
    seat, _ = play(sandbox, race, hostile("detached_child"))
    assert seat.outcome == "ok"


def test_killing_every_visible_pid_hurts_nobody_else(sandbox, race):
    seat, _ = play(sandbox, race, hostile("killer"))
    assert seat.outcome == "ok"
    assert "parent pid 0 own pid 1" in seat.log
    assert "killed" not in seat.log
    # The zygote survived: the next bot still starts.
    seat, _ = play(sandbox, race, OPPONENT)
    assert seat.outcome == "ok"


@pytest.mark.parametrize("name", ["infinite_loop", "sleeper"])
def test_a_bot_that_never_answers_times_out(sandbox, race, name):
    started = time.monotonic()
    seat, _ = play(sandbox, race, hostile(name))
    assert seat.outcome == "timeout"
    assert seat.place == 2
    assert "no answer within 400 ms plus a bank of 200 ms" in seat.reason
    assert 550 <= seat.time_used_ms < 1500
    assert time.monotonic() - started < 5


@pytest.mark.parametrize("name", ["memory_hog", "memory_creep", "numpy_hog"])
def test_memory_cap(sandbox, race, name):
    seat, _ = play(sandbox, race, hostile(name))
    assert seat.outcome == "memory", seat.reason
    assert seat.place == 2


def test_memory_cap_covers_the_whole_process_tree(sandbox, race):
    if sandbox._cgroups is None:
        pytest.skip("without cgroups only each process's address space is capped")
    seat, _ = play(sandbox, race, hostile("memory_tree"), Limits(move_ms=8000, bank_ms=0, memory_mb=64))
    assert seat.outcome == "memory", seat.reason


def test_garbage_on_the_protocol_channel_is_bad_output(sandbox, race):
    seat, _ = play(sandbox, race, hostile("garbage"))
    assert seat.outcome == "bad_output"
    assert "not JSON" in seat.reason


def test_bots_of_one_match_cannot_find_each_other(sandbox, race):
    code = hostile("collude")
    result = play_match(race, [BotSpec("a", code), BotSpec("b", code)], seed=7, limits=LIMITS, sandbox=sandbox)
    for seat in result.seats:
        assert seat.outcome == "ok"
        assert "ESCAPED" not in seat.log
        assert "bound" in seat.log
    assert sandbox.leftovers() == []


def test_a_bot_cannot_pass_its_failure_off_as_the_sandboxs(sandbox, race):
    seat, _ = play(sandbox, race, hostile("forger"))
    assert seat.outcome == "bad_output"
    assert seat.place == 2


def test_illegal_action(sandbox, race):
    seat, result = play(sandbox, race, hostile("illegal"))
    assert seat.outcome == "illegal_action"
    assert '{"not":"an action"}' in seat.reason
    assert seat.place == 2
    assert result.actions[0] == 1  # the first legal action was taken in its place


def test_raising_at_import_is_a_crash_with_the_error(sandbox, race):
    seat, _ = play(sandbox, race, hostile("import_error"))
    assert seat.outcome == "crash"
    assert "boom at import" in seat.reason
    assert "Traceback" in seat.log


def test_fifty_megabytes_of_log_keep_head_and_tail(sandbox, race):
    seat, _ = play(sandbox, race, hostile("chatterbox"), Limits(move_ms=5000, bank_ms=5000, log_bytes=16384))
    assert seat.outcome == "ok"
    assert len(seat.log.encode()) < 16384 + 100
    assert seat.log.startswith("chatter")
    assert "END OF CHATTER" in seat.log
    assert "bytes of log dropped" in seat.log


def test_nul_characters_in_log_and_error_are_replaced_so_the_result_can_be_stored(sandbox, race):
    seat, _ = play(sandbox, race, hostile("nul_writer"))
    assert seat.outcome == "crash"
    assert "bad\ufffdbyte" in seat.reason
    assert "before\ufffdafter" in seat.log
    assert "\x00" not in seat.reason + seat.log


def test_bots_cannot_start_without_isolation_when_the_probe_fails(tmp_path):
    """Fail closed: a policy whose runtime folder is missing makes the sandbox refuse to start."""
    from dataclasses import replace

    from bots.sandbox.policy import Mount, default_policy

    broken = replace(default_policy(), mounts=default_policy().mounts + (Mount("/nonexistent/python"),))
    with pytest.raises(SandboxUnavailable, match="required runtime path /nonexistent/python is missing"):
        ZygoteSandbox(tmp_path, policy=broken).start()


def test_the_bot_runs_in_its_folder_with_the_policys_environment_and_import_path(sandbox, race):
    """The shell sets the interpreter's environment, import path and working directory, and makes the
    standard streams, while it waits: the bot finds them as the policy and the protocol say, whatever the
    zygote had."""
    from bots.sandbox.policy import default_policy

    code = (b"import os, sys\n"
            b"print('streams', repr(sys.stdin.read()), os.read(0, 10), sys.stdout.seekable(),\n"
            b"      sys.stdout.line_buffering, sys.stdout.encoding, sys.stderr.errors, sys.stdout.fileno(),\n"
            b"      sys.stderr.fileno(), os.get_inheritable(3))\n"
            b"print('cwd', os.getcwd(), 'env', dict(os.environ), 'path', sys.path, flush=True)\n"
            b"def act(observation, legal_actions):\n"
            b"    return legal_actions[0]\n")
    seat, _ = play(sandbox, race, code)
    assert seat.outcome == "ok"
    policy = default_policy()
    expected = f"cwd /bot env {dict(policy.environment)} path {['/bot', *policy.python_path]}"
    assert expected in seat.log
    assert "streams '' b'' False True utf-8 replace 1 2 False" in seat.log


def test_the_stack_a_bot_gets_is_the_policys(tmp_path, race):
    """The sandbox's own limits are data of the Policy, never spelled in the mechanism: a policy with
    another stack gives the bot another."""
    from dataclasses import replace

    from bots.sandbox.policy import default_policy

    code = (b"import resource\n"
            b"print('stack', resource.getrlimit(resource.RLIMIT_STACK)[0] >> 20, flush=True)\n"
            b"def act(observation, legal_actions):\n"
            b"    return legal_actions[0]\n")
    for stack_mb in (8, 4):
        try:
            box = ZygoteSandbox(tmp_path / f"cache-{stack_mb}",
                                policy=replace(default_policy(), stack_mb=stack_mb)).start()
        except SandboxUnavailable as exc:
            pytest.skip(f"no isolation here: {exc}")
        try:
            seat, _ = play(box, race, code)
        finally:
            box.close()
        assert seat.outcome == "ok", seat.reason
        assert f"stack {stack_mb}\n" in seat.log
