"""``play``: argument handling, the human-readable report and the JSON object of docs/bots.md."""

from __future__ import annotations

import io
import json

import pytest
from sandbox_helpers import FIRST_BOT, GREEDY_BOT, bot_source

from bots.play import main
from bots.referee import Limits


@pytest.fixture
def bot_files(tmp_path):
    first = tmp_path / "first.py"
    first.write_bytes(FIRST_BOT)
    greedy = tmp_path / "greedy"
    greedy.mkdir()
    (greedy / "bot.py").write_bytes(GREEDY_BOT)
    return str(first), str(greedy)


def run(argv, limits=None):
    out, err = io.StringIO(), io.StringIO()
    status = main(argv, limits=limits or Limits(), allow_unsafe=False, stdout=out, stderr=err)
    return status, out.getvalue(), err.getvalue()


def test_json_output_is_the_documented_object(isolated, race, bot_files):
    status, out, err = run([race, *bot_files, "--seed", "5", "--options", '{"target": 9}', "--json"])
    assert (status, err) == (0, "")
    result = json.loads(out)
    assert list(result) == ["game", "players", "seed", "options", "seats", "actions", "duration_s"]
    assert (result["game"], result["players"], result["seed"], result["options"]) == (race, 2, 5, {"target": 9})
    assert result["seats"] == [
        {"bot": "first", "score": 3, "place": 2, "outcome": "ok", "reason": ""},
        {"bot": "greedy", "score": 6, "place": 1, "outcome": "ok", "reason": ""},
    ]
    assert result["actions"] == [1, 3, 1, 3, 1]


def test_table_shows_every_seat_and_its_log_tail(isolated, race, bot_files):
    status, out, _ = run([race, *bot_files, "--seed", "5"])
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith(f"{race}, 2 players, seed 5, options {{\"target\": 12}}: 6 actions in ")
    assert lines[1] == "clock per bot: 1000 ms per move, a bank of 20000 ms, 30000 ms for the whole match"
    assert lines[2].split() == ["seat", "bot", "score", "place", "outcome", "time", "used", "reason"]
    assert lines[3].split()[:5] == ["0", "first", "3", "2", "ok"]
    assert lines[4].split()[:5] == ["1", "greedy", "9", "1", "ok"]
    assert "--- log of seat 0 (first): empty" in lines
    assert "--- log of seat 1 (greedy): last 3 lines" in lines
    assert "    seat 1 sees 9" in lines
    assert "UNSAFE" not in out


def test_a_bot_out_of_match_time_reads_so_in_the_table(isolated, race, bot_files, tmp_path):
    steady = tmp_path / "steady.py"
    steady.write_bytes(bot_source("""
        import time

        def act(observation, legal_actions):
            time.sleep(0.15)
            return legal_actions[0]
    """))
    limits = Limits(move_ms=200, bank_ms=0, match_ms=400)
    status, out, _ = run([race, str(steady), bot_files[0], "--seed", "5"], limits=limits)
    assert status == 0
    lines = out.splitlines()
    assert lines[1] == "clock per bot: 200 ms per move, a bank of 0 ms, 400 ms for the whole match"
    seat, bot, _, place, outcome, used, unit, *reason = lines[3].split()
    assert (seat, bot, place, outcome, unit) == ("0", "steady", "2", "timeout", "ms")
    assert 400 <= int(used) < 600
    assert " ".join(reason) == "the bot used its 400 ms for the whole match"


@pytest.mark.parametrize(("argv", "message"), [
    (["chess", "random"], "play: no game 'chess'; games: "),
    (["{race}", "missing_bot"], "play: no bot at 'missing_bot' (and no example bot of that name for "),
    (["{race}", "{first}", "{first}", "--options", "{{"], "play: --options is not JSON: "),
    (["{race}", "{first}", "{first}", "--options", '{{"colour": 1}}'], "play: unknown option(s) for race: colour"),
    (["{race}", "{first}"], "play: Race is for 2 to 4 players, not 1"),
    (["{race}"], "play: the following arguments are required: BOT"),
])
def test_bad_arguments_exit_2_with_a_message(race, bot_files, argv, message):
    status, out, err = run([arg.format(race=race, first=bot_files[0]) for arg in argv])
    assert status == 2
    assert out == ""
    assert err.startswith(message)


def test_unsafe_mode_is_announced_in_the_report():
    from bots.play import format_result
    from bots.referee import MatchResult, SeatResult

    seat = SeatResult(bot="b", score=1, place=1, outcome="ok", reason="", time_used_ms=3, log="")
    report = format_result(MatchResult(game="race", players=1, seed=1, options={}, actions=[1], seats=[seat],
                                       duration_s=0.1, unsafe=True))
    assert report.splitlines()[1].startswith("!! UNSAFE MODE: bots run WITHOUT isolation")


def test_a_bots_name_log_and_error_are_printed_escaped(isolated, race, tmp_path):
    # The bot's name is its file's: a file name may hold any character but / and NUL.
    escapes = "\x1b[2J\x1b]0;owned\x07\r\x9b31m\u202e"
    escaped = "\\x1b[2J\\x1b]0;owned\\x07\\r\\x9b31m\\u202e"
    bot = tmp_path / f"name{escapes}.py"
    bot.write_bytes(bot_source(f"""
        def act(observation, legal_actions):
            print("log" + {escapes!r})
            raise RuntimeError("error" + {escapes!r})
    """))
    first = tmp_path / "first.py"
    first.write_bytes(FIRST_BOT)
    status, out, err = run([race, str(bot), str(first), "--seed", "1"])
    assert (status, err) == (0, "")
    assert not [char for char in out if char != "\n" and not char.isprintable()]
    assert f"--- log of seat 0 (name{escaped}): last " in out
    assert f"    log{escaped}" in out.splitlines()
    assert f"error{escaped}" in out
