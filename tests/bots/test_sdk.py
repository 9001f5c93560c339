"""``bots.sdk``: the bot's end of the JSON-lines protocol, run as ``python -m bots.sdk BOT`` on pipes.

Each test writes a small trusted bot of its own (no sandbox needed: the code is this test's) and speaks
the protocol to it: ``ready`` after ``start``, one ``action`` per ``act`` (with ``time_left_ms`` for a bot
that asks for it), what the bot prints going to its log and not to the channel, and the ``error`` reports
for a bot that fails to load, raises, runs out of memory, answers what is not JSON or is asked too early.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from bots.sdk import MAX_ERROR_CHARS, _error, _fault_kind

ROOT = Path(__file__).resolve().parents[2]
START = {"type": "start", "game": "kingdomino", "seat": 1, "players": 2, "options": {}, "move_ms": 100,
         "bank_ms": 0, "match_ms": 1000}


def act_message(legal, **extra) -> dict:
    return {"type": "act", "observation": {"you": 1}, "legal_actions": legal, "time_left_ms": 250, **extra}


def converse(tmp_path: Path, source: str, messages: list[dict]) -> tuple[list[dict], str, int]:
    """Run the SDK on a bot made of ``source``, send ``messages``; its answers, its log and exit status."""
    bot = tmp_path / "bot.py"
    bot.write_text(textwrap.dedent(source))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    lines = "".join(json.dumps(message) + "\n" for message in messages)
    done = subprocess.run([sys.executable, "-m", "bots.sdk", str(bot)], input=lines.encode(), capture_output=True,
                          cwd=ROOT, env=env, timeout=30, check=False)
    answers = [json.loads(line) for line in done.stdout.decode().splitlines()]
    return answers, done.stderr.decode(), done.returncode


def test_a_bot_is_started_asked_and_ended(tmp_path):
    answers, log, status = converse(tmp_path, """
        def act(observation, legal_actions):
            print("deciding for seat", observation["you"])
            return legal_actions[-1]
        """, [START, act_message([{"pick": 0}, {"pick": 1}]), act_message([{"pick": 2}]), {"type": "end"}])
    assert answers == [{"type": "ready"}, {"type": "action", "action": {"pick": 1}},
                       {"type": "action", "action": {"pick": 2}}]
    assert log.count("deciding for seat 1") == 2 and status == 0


def test_a_bot_class_gets_the_match_and_time_left_when_it_asks(tmp_path):
    answers, _, status = converse(tmp_path, """
        class Bot:
            def __init__(self, game, seat, players, options):
                self.facts = [game, seat, players]

            def act(self, observation, legal_actions, time_left_ms=None):
                return self.facts + [time_left_ms]
        """, [START, act_message([["kingdomino", 1, 2, 250]])])
    assert answers[1] == {"type": "action", "action": ["kingdomino", 1, 2, 250]} and status == 0


def test_reading_stdin_cannot_steal_the_referees_messages(tmp_path):
    answers, _, _ = converse(tmp_path, """
        import sys

        def act(observation, legal_actions):
            return sys.stdin.read()
        """, [START, act_message(["x"]), {"type": "end"}])
    assert answers[1] == {"type": "action", "action": ""}


def test_a_bot_that_raises_reports_a_crash_and_logs_its_traceback(tmp_path):
    answers, log, status = converse(tmp_path, """
        def act(observation, legal_actions):
            raise RuntimeError("no idea")
        """, [START, act_message([1]), act_message([1])])
    assert answers[1] == {"type": "error", "kind": "crash", "message": "RuntimeError: no idea"}
    assert len(answers) == 2 and "Traceback" in log and status == 1


def test_a_bot_that_runs_out_of_memory_reports_memory(tmp_path):
    answers, _, status = converse(tmp_path, """
        def act(observation, legal_actions):
            raise MemoryError("too big")
        """, [START, act_message([1])])
    assert answers[1]["kind"] == "memory" and status == 1


def test_an_action_that_is_not_json_is_bad_output(tmp_path):
    answers, _, status = converse(tmp_path, """
        def act(observation, legal_actions):
            return {1, 2}
        """, [START, act_message([1])])
    assert answers[1]["type"] == "error" and answers[1]["kind"] == "bad_output"
    assert answers[1]["message"].startswith("the action is not JSON") and status == 1


def test_a_bot_without_act_or_that_fails_to_import_reports_a_crash(tmp_path):
    answers, _, status = converse(tmp_path, "x = 1\n", [START])
    assert answers == [{"type": "error", "kind": "crash",
                        "message": "bot.py defines neither act(observation, legal_actions) nor class Bot"}]
    assert status == 1
    answers, _, status = converse(tmp_path, "raise SystemExit(3)\n", [START])
    assert answers[0]["kind"] == "crash" and "SystemExit" in answers[0]["message"] and status == 1


def test_act_before_start_is_refused_and_end_of_input_exits_cleanly(tmp_path):
    answers, _, status = converse(tmp_path, "def act(o, l):\n    return l[0]\n", [act_message([1])])
    assert answers == [{"type": "error", "kind": "crash", "message": "act before start"}] and status == 1
    answers, _, status = converse(tmp_path, "def act(o, l):\n    return l[0]\n", [START])
    assert answers == [{"type": "ready"}] and status == 0


def test_a_lone_surrogate_in_an_error_travels_as_its_escape(tmp_path):
    answers, _, _ = converse(tmp_path, """
        def act(observation, legal_actions):
            raise ValueError("bad \\udc80")
        """, [START, act_message([1])])
    assert answers[1]["message"] == "ValueError: bad \\udc80"


def test_error_reports_keep_the_end_of_long_messages():
    report = _error("crash", ValueError("x" * 5000 + "END"))
    assert report["type"] == "error" and report["kind"] == "crash" and len(report["message"]) == MAX_ERROR_CHARS
    assert report["message"].endswith("END")
    assert _fault_kind(MemoryError()) == "memory" and _fault_kind(KeyError()) == "crash"
