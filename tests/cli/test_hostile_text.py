"""Every ``botladder`` command that prints text of another user's or a bot's, against a live server whose
rows hold terminal controls (ESC sequences, BEL, CSI, CR, DEL, NEL, U+202E, U+2028): what reaches
stdout and stderr holds printable characters and our own newlines alone, in text and in JSON alike."""

from __future__ import annotations

import contextlib
import io
import json
import threading
import time

import pytest
from django.db import connection

from ladder.models import BotVersion, Match, Seat
from tests.cli.test_main_commands import PASSWORD, login
from tests.factories import FIRST_LEGAL_BOT, BotFactory, BotVersionFactory, UserFactory, finished_match
from tests.ladder.services.tournaments.test_version_comparisons import play

#: Window title, clear screen, 8-bit CSI, carriage return, bell, DEL, NEL, a right-to-left override and a
#: line separator: what a terminal obeys. (PostgreSQL stores no NUL and no lone surrogate: those are in
#: tests/cli/test_terminal_escaping.py.)
HOSTILE = "\x1b]0;pwned\x07\x1b[2J\x9b31m\rOK\x7f\x85\u202eevil\u2028x"
ESCAPED = "\\x1b]0;pwned\\x07\\x1b[2J\\x9b31m\\rOK\\x7f\\x85\\u202eevil\\u2028x"


def assert_shown_not_obeyed(*texts: str) -> None:
    for text in texts:
        raw = sorted({char for char in text if not char.isprintable() and char != "\n"})
        assert raw == [], f"raw control characters reach the terminal: {raw!r} in {text!r}"


@contextlib.contextmanager
def meanwhile(step):
    """Call ``step()`` in a thread every 50 ms until it returns True, while the command waits (as a worker
    would act meanwhile); joined on the way out."""

    def loop() -> None:
        try:
            for _ in range(400):
                if step():
                    return
                time.sleep(0.05)
        finally:
            connection.close()

    thread = threading.Thread(target=loop)
    thread.start()
    try:
        yield
    finally:
        thread.join()


@pytest.fixture
def hostile_user(cli, monkeypatch):
    """A user logged in under a name the site made with terminal controls in it."""
    user = UserFactory(username=f"u{HOSTILE}")
    login(cli, user, monkeypatch)
    return user


def test_login_shows_the_username_the_site_made_escaped(cli, monkeypatch):
    user = UserFactory(username=f"u{HOSTILE}")
    monkeypatch.setattr("sys.stdin", io.StringIO(PASSWORD + "\n"))
    run = cli("login", "--username", user.username, "--password-stdin")
    assert run.status == 0, run.err
    assert_shown_not_obeyed(run.out, run.err)
    assert f" as u{ESCAPED}; token saved in " in run.out


def test_bot_shows_another_users_names_and_messages_escaped(cli, hostile_user):
    bot = BotFactory(name=f"b{HOSTILE}", owner=UserFactory(username=f"o{HOSTILE}"))
    BotVersionFactory(bot=bot, validation_status="rejected", validation_message=f"m{HOSTILE}",
                      validation_log=f"log{HOSTILE}\nline 2")
    run = cli("bot", str(bot.id))
    assert run.status == 0, run.err
    assert_shown_not_obeyed(run.out, run.err)
    assert f"(b{ESCAPED}, kingdomino, owner o{ESCAPED})" in run.out
    assert f"  version 2: rejected: m{ESCAPED}" in run.out
    run = cli("bot", str(bot.id), "--json")
    assert_shown_not_obeyed(run.out, run.err)
    assert run.out.isascii() and json.loads(run.out)["name"] == f"b{HOSTILE}"


def test_an_upload_rejected_shows_its_message_and_the_bots_log_escaped(cli, hostile_user, tmp_path):
    (tmp_path / "bot.py").write_bytes(FIRST_LEGAL_BOT)

    def decide() -> bool:
        # What the worker's check leaves, once the command waits for it.
        return bool(BotVersion.objects.filter(bot__owner=hostile_user, validation_status="pending").update(
            validation_status="rejected", validation_message=f"crash: {HOSTILE}",
            validation_log=f"{HOSTILE}\n\x1b[1Asecond line\n"))

    with meanwhile(decide):
        run = cli("upload", str(tmp_path / "bot.py"), "--game", "kingdomino", "--name", "mine", "--wait",
                  "--timeout", "30", "--interval", "0.2")
    assert run.status == 6, run.err
    assert_shown_not_obeyed(run.out, run.err)
    assert run.out.endswith(f"version 1: rejected: crash: {ESCAPED}\n--- the end of what the bot printed:\n"
                            f"{ESCAPED}\n\\x1b[1Asecond line\n")


def test_logs_show_names_reasons_and_logs_escaped(cli, hostile_user):
    mine = BotFactory(owner=hostile_user, name=f"mine{HOSTILE}")
    match = finished_match(bots=[mine, BotFactory()], outcomes=["crash", "ok"],
                           logs=[f"{HOSTILE}\n\rover\n", "theirs\n"])
    Seat.objects.filter(match=match, position=0).update(reason=f"crash: {HOSTILE}")
    run = cli("logs", str(match.id))
    assert run.status == 0, run.err
    assert_shown_not_obeyed(run.out, run.err)
    assert run.out.startswith(f"--- seat 0: mine{ESCAPED} v1 (crash: crash: {ESCAPED})\n{ESCAPED}\n\\rover\n")
    run = cli("logs", str(match.id), "--json")
    assert_shown_not_obeyed(run.out, run.err)
    assert json.loads(run.out)["seats"][0]["log"] == f"{HOSTILE}\n\rover\n"


def test_matches_show_other_users_bot_names_escaped(cli):
    bots = [BotFactory(name=f"a{HOSTILE}"), BotFactory(name=f"b{HOSTILE}")]
    finished_match(bots=bots)
    run = cli("matches", "--bot", str(bots[0].id))
    assert run.status == 0, run.err
    assert_shown_not_obeyed(run.out, run.err)
    assert f"a{ESCAPED} v1" in run.out and f"b{ESCAPED} v1" in run.out
    run = cli("matches", "--bot", str(bots[0].id), "--json")
    assert_shown_not_obeyed(run.out, run.err)
    assert {seat["bot"] for seat in json.loads(run.out)[0]["seats"]} == {f"a{HOSTILE}", f"b{HOSTILE}"}


def test_a_tournament_shows_its_name_and_the_standings_escaped(cli, hostile_user):
    bots = [BotFactory(name=f"a{HOSTILE}"), BotFactory(name=f"b{HOSTILE}")]

    def play_its_matches() -> bool:
        queued = list(Match.objects.filter(tournament__created_by=hostile_user, status="queued"))
        for match in queued:
            play(match, winner=None)
        return bool(queued)

    with meanwhile(play_its_matches):
        run = cli("tournament", "create", "--game", "kingdomino", "--name", f"cup{HOSTILE}", "--bots",
                  ",".join(str(bot.id) for bot in bots), "--wait", "--timeout", "30", "--interval", "0.2")
    assert run.status == 0, run.err
    assert_shown_not_obeyed(run.out, run.err)
    assert f"(cup{ESCAPED}, kingdomino): finished" in run.out
    assert f". a{ESCAPED} (bot {bots[0].id})" in run.out and f". b{ESCAPED} (bot {bots[1].id})" in run.out


def test_the_export_to_a_terminal_is_ascii_json_and_the_file_keeps_the_servers_bytes(cli, tmp_path):
    finished_match(bots=[BotFactory(name=f"a{HOSTILE}"), BotFactory()])
    run = cli("export", "kingdomino")
    assert run.status == 0, run.err
    assert_shown_not_obeyed(run.out, run.err)
    assert run.out.isascii()
    exported = [json.loads(line) for line in run.out.splitlines()]
    assert f"a{HOSTILE}" in {seat["bot"] for match in exported for seat in match["seats"]}
    run = cli("export", "kingdomino", "-o", str(tmp_path / "all.jsonl"))
    assert run.status == 0
    # The file is the server's JSON as sent (U+202E raw in it), the same matches.
    saved = (tmp_path / "all.jsonl").read_bytes()
    assert "\u202e".encode() in saved and [json.loads(line) for line in saved.splitlines()] == exported


def test_the_servers_error_messages_are_escaped_in_text_and_json(cli):
    run = cli("export", f"g{HOSTILE}")
    assert run.status == 1
    assert_shown_not_obeyed(run.out, run.err)
    assert run.err.startswith("botladder: ") and run.err.count("\n") == 1
    run = cli("export", f"g{HOSTILE}", "--json")
    assert_shown_not_obeyed(run.out, run.err)
    assert run.out.isascii() and json.loads(run.out)["status"] == 404

