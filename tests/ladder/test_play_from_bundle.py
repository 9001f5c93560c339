"""A finished match's bundle, downloaded from the API, played again by ``manage.py play --from-bundle`` (the
real command line, in the real sandbox)."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import subprocess
import sys

import pytest

from tests.api.helpers import token_client
from tests.conftest import REPO
from tests.factories import LAST_LEGAL_BOT, BotFactory, UserFactory, finished_match, zip_with_members

pytestmark = [pytest.mark.django_db, pytest.mark.timeout(180)]


def manage_play(*args: str, allow_unsafe: bool) -> subprocess.CompletedProcess:
    env = {name: value for name, value in os.environ.items() if name != "BOTS_ALLOW_UNSAFE"}
    if allow_unsafe:
        env["BOTS_ALLOW_UNSAFE"] = "1"
    return subprocess.run([sys.executable, "manage.py", "play", *args], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=150)


def download(client, match_id, tmp_path):
    response = client.get(f"/api/matches/{match_id}/bundle/")
    assert response.status_code == 200
    path = tmp_path / f"match-{match_id}.json"
    path.write_bytes(response.content)
    return str(path), json.loads(response.content)


def test_the_owners_bundle_replays_exactly_with_the_others_seat_on_its_record(tmp_path, bots_allow_unsafe):
    owner, rival = UserFactory(username="owner"), UserFactory(username="rival")
    match = finished_match(bots=[BotFactory(owner=owner), BotFactory(owner=rival)])
    path, bundle = download(token_client(owner), match.id, tmp_path)
    assert [seat["code"] is not None for seat in bundle["seats"]] == [True, False]
    played = manage_play("--from-bundle", path, "--json", allow_unsafe=bots_allow_unsafe)
    assert played.returncode == 0, played.stderr
    result = json.loads(played.stdout)
    assert result["actions"] == match.actions
    assert result["replay"]["reproduced"] is True
    assert [s["played_by"] for s in result["replay"]["seats"]] == ["code", "recording"]
    text = manage_play("--from-bundle", path, allow_unsafe=bots_allow_unsafe)
    assert text.returncode == 0
    assert f"    reproduces the {len(match.actions)} recorded actions exactly" in text.stdout.splitlines()


def test_a_bundle_hands_a_seat_to_another_bot_from_a_step(tmp_path, bots_allow_unsafe):
    owner = UserFactory(username="owner", is_staff=True)
    match = finished_match(bots=BotFactory.create_batch(2))
    path, _ = download(token_client(owner), match.id, tmp_path)
    last = tmp_path / "last.py"
    last.write_bytes(LAST_LEGAL_BOT)
    played = manage_play("--from-bundle", path, "--seat", "1", str(last), "--from-step", "10", "--json",
                         allow_unsafe=bots_allow_unsafe)
    assert played.returncode == 0, played.stderr
    result = json.loads(played.stdout)
    replay = result["replay"]
    assert replay["takeover"] == {"seat": 1, "bot": "last", "from_step": 10}
    assert result["actions"][:10] == match.actions[:10]
    # The first decision of seat 1 from step 10 on with more than one legal action is where it departs.
    assert replay["diverged_at"]["step"] >= 10 and replay["diverged_at"]["seat"] == 1
    assert result["actions"] != match.actions
    # Its answers before step 10 (the last legal action) were discarded where they differed from the record.
    assert replay["discarded"] and all(d["seat"] == 1 and d["step"] < 10 for d in replay["discarded"])


def test_the_command_refuses_a_step_out_of_range(tmp_path, bots_allow_unsafe):
    match = finished_match(bots=BotFactory.create_batch(2))
    path, _ = download(token_client(UserFactory(username="visitor")), match.id, tmp_path)
    played = manage_play("--from-bundle", path, "--seat", "0", "random", "--from-step", str(len(match.actions)),
                         allow_unsafe=bots_allow_unsafe)
    assert played.returncode == 2
    assert played.stderr.startswith(f"play: --from-step {len(match.actions)}: the match has steps 0 to ")
    assert "Traceback" not in played.stderr


def test_the_command_holds_a_bundles_limits_to_the_servers_caps(tmp_path, settings):
    owner = UserFactory(username="owner")
    match = finished_match(bots=[BotFactory(owner=owner), BotFactory()])
    path, bundle = download(token_client(owner), match.id, tmp_path)
    bundle["limits"]["memory_mb"] = settings.BOTS_MAX_MEMORY_MB + 1
    (tmp_path / "loose.json").write_text(json.dumps(bundle))
    played = manage_play("--from-bundle", str(tmp_path / "loose.json"), allow_unsafe=False)
    assert played.returncode == 2
    assert (f"the bundle's limit 'memory_mb' is {settings.BOTS_MAX_MEMORY_MB + 1}, more than this machine "
            f"allows ({settings.BOTS_MAX_MEMORY_MB})") in played.stderr


def _poisoned(bundle: dict, how: str) -> str:
    """The downloaded bundle, damaged as a hostile file would be."""
    if how == "deep":
        return "[" * 50_000
    code = zip_with_members(*{"dot": (".",), "file-and-folder": ("x", "x/y.py")}[how], bot=LAST_LEGAL_BOT)
    bundle["seats"][0]["code"] = {"kind": "zip", "sha256": hashlib.sha256(code).hexdigest(),
                                  "base64": base64.b64encode(code).decode()}
    return json.dumps(bundle)


@pytest.mark.parametrize(("how", "message"), [
    pytest.param("deep", "is nested deeper than 32 levels: not a bundle the ladder gives", id="deep"),
    pytest.param("dot", "the code of seat 0 cannot be unpacked: '.': '.' is not allowed in zip paths", id="dot"),
    pytest.param("file-and-folder",
                 "the code of seat 0 cannot be unpacked: 'x' is a file and also a folder (of 'x/y.py')",
                 id="file-and-folder"),
])
def test_the_command_refuses_a_poisoned_bundle_with_one_line_and_status_2(tmp_path, bots_allow_unsafe, how,
                                                                          message):
    # Each of these ended the command with a traceback (RecursionError, IsADirectoryError, FileExistsError).
    owner = UserFactory(username="owner")
    match = finished_match(bots=[BotFactory(owner=owner), BotFactory()])
    _, bundle = download(token_client(owner), match.id, tmp_path)
    (tmp_path / "poisoned.json").write_text(_poisoned(bundle, how))
    played = manage_play("--from-bundle", str(tmp_path / "poisoned.json"), allow_unsafe=bots_allow_unsafe)
    assert (played.returncode, played.stdout) == (2, "")
    assert played.stderr.startswith("play: ") and played.stderr.count("\n") == 1, played.stderr
    assert message in played.stderr


def test_the_command_prints_a_bundles_bot_names_escaped(tmp_path, bots_allow_unsafe):
    owner = UserFactory(username="owner")
    match = finished_match(bots=[BotFactory(owner=owner), BotFactory()])
    _, bundle = download(token_client(owner), match.id, tmp_path)
    bundle["seats"][1]["bot"] = "rival\x1b]0;owned\x07\x1b[2J\r"
    (tmp_path / "named.json").write_text(json.dumps(bundle))
    played = manage_play("--from-bundle", str(tmp_path / "named.json"), allow_unsafe=bots_allow_unsafe)
    assert played.returncode == 0, played.stderr
    assert "\x1b" not in played.stdout and "\r" not in played.stdout and "\x07" not in played.stdout
    assert "--- log of seat 1 (rival\\x1b]0;owned\\x07\\x1b[2J\\r v1): empty" in played.stdout.splitlines()
