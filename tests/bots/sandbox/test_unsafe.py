"""``bots.sandbox.unsafe``: the explicit opt-in without isolation, with this test's own benign bots only.

It says so when made, starts each bot as a plain child in its own session with rlimits, an empty
environment and its unpacked code as working folder, speaks the protocol through the SDK, pauses by
SIGSTOP of the process group, and kills and closes safely any number of times. (Hostile bots never run in
this mode; the referee's rules in it are in ``tests/bots/test_referee_unsafe.py``.)
"""

from __future__ import annotations

import json
import logging
import os
import resource
import select

import pytest
from sandbox_helpers import FIRST_BOT, bot_source

from bots.limits import Limits
from bots.sandbox.unsafe import WARNING, UnsafeSandbox

LIMITS = Limits(memory_mb=256, cpu_seconds=7)
START = b'{"type":"start","game":"race","seat":0,"players":2,"options":{}}\n'


def act(legal) -> bytes:
    return json.dumps({"type": "act", "observation": {}, "legal_actions": legal, "time_left_ms": 1000}).encode() + b"\n"


def read_line(fd: int, timeout_s: float = 10) -> bytes:
    data = b""
    while not data.endswith(b"\n"):
        readable, _, _ = select.select([fd], [], [], timeout_s)
        assert readable, f"no answer in {timeout_s} s (so far {data!r})"
        chunk = os.read(fd, 65536)
        assert chunk, f"the bot ended (so far {data!r})"
        data += chunk
    return data.rstrip(b"\n")


@pytest.fixture(scope="module")
def unsafe(tmp_path_factory):
    return UnsafeSandbox(tmp_path_factory.mktemp("unsafe-cache"))


def started(sandbox: UnsafeSandbox, code: bytes):
    bot = sandbox.spawn(code, LIMITS)
    os.set_blocking(bot.to_bot, True)
    os.write(bot.to_bot, START)
    assert read_line(bot.from_bot) == b'{"type":"ready"}'
    return bot


def test_it_says_loudly_that_it_does_not_isolate(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="bots.sandbox"):
        sandbox = UnsafeSandbox(tmp_path)
    assert WARNING in caplog.text and sandbox.unsafe and sandbox.mode == "unsafe" and sandbox.alive()
    sandbox.close()


def test_a_bot_plays_through_the_sdk(unsafe):
    bot = started(unsafe, FIRST_BOT)
    try:
        assert bot.pause_mechanism == "sigstop"
        os.write(bot.to_bot, act([3, 4]))
        assert read_line(bot.from_bot) == b'{"type":"action","action":3}'
    finally:
        bot.close()


def test_the_bot_gets_its_rlimits_an_empty_environment_and_its_code_folder(unsafe):
    probe = bot_source("""
        import os, resource, sys

        def act(observation, legal_actions):
            return {"as": resource.getrlimit(resource.RLIMIT_AS)[0], "cpu": resource.getrlimit(resource.RLIMIT_CPU),
                    "env": sorted(os.environ), "cwd_has_bot": os.path.exists("bot.py"), "isolated": sys.flags.isolated,
                    "session": os.getsid(0) == os.getpid()}
    """)
    bot = started(unsafe, probe)
    try:
        os.write(bot.to_bot, act([0]))
        seen = json.loads(read_line(bot.from_bot))["action"]
    finally:
        bot.close()
    assert seen["as"] == LIMITS.memory_mb * 1024 * 1024 * 4 and seen["cpu"] == [7, 8]
    # LC_CTYPE is the interpreter's own doing in the C locale (PEP 538), nothing of the parent's environment.
    assert set(seen["env"]) - {"LC_CTYPE"} == {"OPENBLAS_NUM_THREADS"}
    assert seen["cwd_has_bot"] and seen["isolated"] == 1 and seen["session"]
    assert resource.getrlimit(resource.RLIMIT_CPU)[0] != 7  # the child's limits are its own


def test_what_the_bot_prints_goes_to_its_log(unsafe):
    chatty = bot_source("""
        def act(observation, legal_actions):
            print("hello from the bot")
            return legal_actions[0]
    """)
    bot = started(unsafe, chatty)
    try:
        os.write(bot.to_bot, act([1]))
        assert read_line(bot.from_bot) == b'{"type":"action","action":1}'
        assert b"hello from the bot" in read_line(bot.log)
    finally:
        bot.close()


def test_a_paused_bot_answers_only_once_resumed(unsafe):
    bot = started(unsafe, FIRST_BOT)
    try:
        bot.pause()
        bot.pause()  # safe to repeat
        os.write(bot.to_bot, act([5]))
        assert select.select([bot.from_bot], [], [], 0.3)[0] == []
        bot.resume()
        assert read_line(bot.from_bot) == b'{"type":"action","action":5}'
    finally:
        bot.close()


def test_kill_and_close_are_safe_to_repeat_and_reap_the_bot(unsafe):
    bot = started(unsafe, FIRST_BOT)
    bot.kill()
    bot.kill()
    assert bot._popen.returncode is not None
    bot.pause()  # a reaped bot is left alone: its pid may be someone else's
    bot.resume()
    bot.close()
    bot.close()
    assert bot._popen.stdin.closed and bot._popen.stdout.closed
