"""The ``botladder`` command against a live server (real HTTP, real PostgreSQL, no worker): logging in,
every kind of failure as one clear line and a non-zero status (never a traceback), uploads refused before
or by the server, the exit status of each comparison verdict, bundles and the resumable export."""

from __future__ import annotations

import io
import json
import os
import stat
import zipfile

import pytest

from ladder.models import Comparison
from ladder.services.tournaments.comparisons import comparison_create
from tests.cli.conftest import cli_process
from tests.factories import FIRST_LEGAL_BOT, BotFactory, BotVersionFactory, UserFactory, finished_match
from tests.ladder.services.tournaments.test_version_comparisons import play, queued

PASSWORD = "correct-horse-battery"  # the UserFactory's


def login(cli, user, monkeypatch) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    assert cli("login", "--username", user.username, "--password-stdin").status == 0


def test_login_saves_the_token_for_the_user_alone_and_later_commands_use_it(cli, cli_env, monkeypatch, tmp_path):
    user = UserFactory()
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    run = cli("login", "--username", user.username, "--password-stdin")
    assert run.status == 0, run.err
    assert f"logged in to {cli_env} as {user.username}" in run.out
    path = tmp_path / "config" / "botladder" / "config.json"
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    saved = json.loads(path.read_text())
    assert saved["url"] == cli_env and len(saved["token"]) == 40
    # The saved token is what the next command sends: a logged-in reader gets the 404 of logs, not a 401.
    run = cli("logs", "999999")
    assert run.status == 1 and run.err == ("botladder: no logs of yours in match 999999: logs are readable by "
                                           "the bot's owner only\n")


def test_a_wrong_password_is_the_servers_message_and_status_1(cli, monkeypatch):
    user = UserFactory()
    monkeypatch.setattr("sys.stdin", io.StringIO("not-the-password\n"))
    run = cli("login", "--username", user.username, "--password-stdin", "--json")
    assert run.status == 1
    assert run.err.startswith("botladder: wrong username or password")
    assert json.loads(run.out)["status"] == 400


def test_a_throttled_request_says_how_long_to_wait(cli, settings, monkeypatch):
    settings.REST_FRAMEWORK = {**settings.REST_FRAMEWORK, "DEFAULT_THROTTLE_RATES": {
        **settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], "logins": "1/hour"}}
    user = UserFactory()
    login(cli, user, monkeypatch)
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    run = cli("login", "--username", user.username, "--password-stdin", "--json")
    assert run.status == 1
    assert "too many token requests" in run.err and "try again in" in run.err
    body = json.loads(run.out)
    assert body["status"] == 429 and body["code"] == "throttled" and 3500 < body["retry_after_s"] <= 3600


def test_commands_that_need_a_token_say_how_to_log_in(cli, cli_env, tmp_path, monkeypatch):
    (tmp_path / "bot.py").write_bytes(FIRST_LEGAL_BOT)
    run = cli("upload", str(tmp_path / "bot.py"), "--game", "kingdomino", "--name", "x")
    assert run.status == 1 and run.err == f"botladder: not logged in to {cli_env}: run `botladder login` (or set " \
                                          "BOTLADDER_TOKEN)\n"
    # A token the server does not know: its 401 message.
    monkeypatch.setenv("BOTLADDER_TOKEN", "0" * 40)
    run = cli("logs", "1")
    assert run.status == 1 and "Invalid token" in run.err


def test_an_unreachable_server_is_one_line_without_a_traceback(cli_env):
    run = cli_process("matches", env={"BOTLADDER_URL": "http://127.0.0.1:9"})
    assert run.status == 1
    assert run.err.startswith("botladder: cannot reach http://127.0.0.1:9: ") and run.err.count("\n") == 1
    assert "Traceback" not in run.err


def test_an_answer_that_is_not_the_apis_is_one_line(cli, cli_env):
    # The site's home page is HTML, not the API: pointing the command at a page must not crash it.
    run = cli_process("matches", "--url", cli_env + "/games", env={})
    assert run.status == 1 and "Traceback" not in run.err and run.err.startswith("botladder: ")


@pytest.fixture
def logged_in(cli, monkeypatch):
    user = UserFactory()
    login(cli, user, monkeypatch)
    return user


def test_an_upload_the_server_refuses_prints_its_message(cli, logged_in, tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("main.py", FIRST_LEGAL_BOT)
    (tmp_path / "bot.zip").write_bytes(buffer.getvalue())
    run = cli("upload", str(tmp_path / "bot.zip"), "--game", "kingdomino", "--name", "nozip", "--json")
    assert run.status == 1
    assert "no bot.py at its root" in run.err
    body = json.loads(run.out)
    assert body["status"] == 400 and "code" in body["fields"]


def test_a_folder_is_zipped_and_one_with_a_symbolic_link_is_refused_before_any_request(cli, logged_in, tmp_path):
    folder = tmp_path / "mybot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_bytes(b"from lib.plan import act\n")
    (folder / "lib" / "plan.py").write_bytes(FIRST_LEGAL_BOT)
    (folder / "__pycache__").mkdir()
    (folder / "__pycache__" / "bot.cpython-311.pyc").write_bytes(b"\0")
    # No worker here: the upload stays pending, and --wait gives up at its time-out.
    run = cli("upload", str(folder), "--game", "kingdomino", "--name", "folder", "--wait", "--timeout", "1",
              "--interval", "0.2")
    assert run.status == 1 and "gave up waiting for the check of bot" in run.err
    from ladder.models import BotVersion

    version = BotVersion.objects.get(bot__name="folder")
    assert zipfile.ZipFile(io.BytesIO(bytes(version.code))).namelist() == ["bot.py", "lib/plan.py"]
    run = cli("bot", str(version.bot_id))
    assert run.status == 0 and "plays version none" in run.out and "  version 1: pending" in run.out

    (tmp_path / "secret.txt").write_text("not for upload")
    (folder / "lib" / "data.txt").symlink_to(tmp_path / "secret.txt")
    run = cli("upload", str(folder), "--bot", str(version.bot_id))
    assert run.status == 1 and "data.txt is a symbolic link" in run.err
    assert BotVersion.objects.filter(bot=version.bot).count() == 1
    run = cli("upload", str(folder), "--bot", str(version.bot_id), "--game", "kingdomino")
    assert run.status == 2 and "say which bot" in run.err


def _decide(comparison: Comparison, winner) -> None:
    """Play the comparison's games in this process until it decides: ``winner`` "candidate", "baseline" or
    None (every game a tie)."""
    while True:
        comparison.refresh_from_db()
        if comparison.status == "done":
            return
        version = {"candidate": comparison.candidate_id, "baseline": comparison.baseline_id, None: None}[winner]
        # One game at a time: the decision drops the games still queued.
        play(queued(comparison)[0], winner=version)


@pytest.mark.parametrize(("winner", "max_games", "verdict", "status"), [
    ("candidate", 200, "better", 0), ("baseline", 200, "worse", 3), (None, 2000, "equal", 4),
    (None, 4, "inconclusive", 5)])
def test_each_verdict_has_its_exit_status(cli, logged_in, private_queue, winner, max_games, verdict, status):
    bot = BotFactory(owner=logged_in)
    BotVersionFactory(bot=bot)
    comparison = comparison_create(user=logged_in, bot_id=bot.id, baseline=1, candidate=2, max_games=max_games,
                                   elo1=200.0)
    _decide(comparison, winner)
    run = cli("follow", str(comparison.id), "--json")
    assert run.status == status, run.err
    assert json.loads(run.out)["verdict"] == verdict
    run = cli("follow", str(comparison.id))
    assert f"-> {verdict}" in run.out and "LLR" in run.out and f"/{max_games}" in run.out


def test_a_bundle_is_saved_for_manage_py_play(cli, logged_in, tmp_path):
    bot = BotFactory(owner=logged_in)
    match = finished_match(bots=[bot, BotFactory()])
    path = tmp_path / "m.json"
    run = cli("bundle", str(match.id), "-o", str(path))
    assert run.status == 0 and f"--from-bundle {path}" in run.out
    bundle = json.loads(path.read_text())
    assert bundle["match"] == match.id and bundle["seats"][0]["code"] is not None
    assert bundle["seats"][1]["code"] is None


def test_the_export_goes_to_a_file_and_resumes_after_its_last_complete_line(cli, tmp_path, settings):
    # Two matches a response: the command asks again after a full one, until one holds fewer.
    settings.EXPORT_MATCHES_PER_RESPONSE = 2
    bots = BotFactory.create_batch(2)
    ids = [finished_match(bots=bots).id for _ in range(3)]
    path = tmp_path / "kingdomino.jsonl"
    run = cli("export", "kingdomino", "-o", str(path), "--json")
    assert run.status == 0 and json.loads(run.out) == {"game": "kingdomino", "matches": 3, "last_id": ids[-1],
                                                       "file": str(path)}
    lines = path.read_bytes().splitlines(keepends=True)
    assert [json.loads(line)["id"] for line in lines] == ids
    # Interrupted in the middle of the third line: --resume drops the broken line and fetches the third alone.
    path.write_bytes(b"".join(lines[:2]) + lines[2][:10])
    run = cli("export", "kingdomino", "-o", str(path), "--resume", "--json")
    assert run.status == 0 and json.loads(run.out)["matches"] == 1
    assert path.read_bytes() == b"".join(lines)
    run = cli("export", "chess")
    assert run.status == 1 and "no game 'chess'" in run.err
