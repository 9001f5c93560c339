"""``botladder_cli.config``: the server URL and token from the environment first, then the config file
(its token only for the URL it was saved with), then the default; the file written readable by its user
alone, even over an older one; an unreadable or malformed file a ConfigError saying what to do."""

from __future__ import annotations

import json
import os
import stat

import pytest

from botladder_cli.config import DEFAULT_URL, Config, ConfigError, config_load, config_path, config_save


@pytest.fixture(autouse=True)
def home(tmp_path, monkeypatch):
    """A config folder of the test's own, and none of the variables set."""
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    monkeypatch.delenv("BOTLADDER_URL", raising=False)
    monkeypatch.delenv("BOTLADDER_TOKEN", raising=False)
    return tmp_path


def test_the_file_lives_under_xdg_config_home_or_the_home_folder(home, monkeypatch):
    assert config_path() == home / "xdg" / "botladder" / "config.json"
    monkeypatch.delenv("XDG_CONFIG_HOME")
    monkeypatch.setenv("HOME", str(home / "me"))
    assert config_path() == home / "me" / ".config" / "botladder" / "config.json"


def test_without_a_file_or_variables_the_default_server_and_no_token():
    assert config_load() == Config(url=DEFAULT_URL, token=None)


def test_the_saved_file_is_for_its_user_alone_and_is_read_back():
    path = config_save(url="https://ladder.example/", token="abc")
    assert stat.S_IMODE(os.stat(path).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(path.parent).st_mode) == 0o700
    assert json.loads(path.read_text()) == {"url": "https://ladder.example", "token": "abc"}
    assert config_load() == Config(url="https://ladder.example", token="abc")


def _modes(path) -> tuple[int, int]:
    return stat.S_IMODE(os.stat(path.parent).st_mode), stat.S_IMODE(os.stat(path).st_mode)


def test_an_older_folder_and_file_with_looser_modes_are_tightened_by_a_login():
    path = config_path()
    path.parent.mkdir(parents=True, mode=0o755)
    os.chmod(path.parent, 0o755)
    path.write_text("{}")
    os.chmod(path, 0o644)
    config_save(url="http://a", token="t")
    assert _modes(path) == (0o700, 0o600)


def test_a_folder_made_under_a_loose_umask_is_the_users_alone():
    old = os.umask(0o000)
    try:
        path = config_save(url="http://a", token="t")
    finally:
        os.umask(old)
    assert _modes(path) == (0o700, 0o600)


def test_any_command_tightens_a_readable_token_it_reads(home):
    path = config_save(url="http://a", token="t")
    os.chmod(home / "xdg", 0o755)
    os.chmod(path.parent, 0o775)
    os.chmod(path, 0o666)
    assert config_load().token == "t"
    assert _modes(path) == (0o700, 0o600)
    # Only the botladder folder: the XDG folder above it is the user's to set.
    assert stat.S_IMODE(os.stat(home / "xdg").st_mode) == 0o755


def test_the_environment_wins_over_the_file(monkeypatch):
    config_save(url="http://saved", token="saved-token")
    monkeypatch.setenv("BOTLADDER_URL", "http://from-env/")
    assert config_load() == Config(url="http://from-env", token=None)  # the saved token is for another URL
    monkeypatch.setenv("BOTLADDER_TOKEN", "env-token")
    assert config_load() == Config(url="http://from-env", token="env-token")


def test_a_url_given_wins_over_everything_and_gets_the_saved_token_only_if_it_is_the_saved_url(monkeypatch):
    config_save(url="http://saved", token="saved-token")
    monkeypatch.setenv("BOTLADDER_URL", "http://from-env")
    assert config_load(url="http://saved/") == Config(url="http://saved", token="saved-token")
    assert config_load(url="http://other") == Config(url="http://other", token=None)


def test_an_empty_token_variable_counts_as_none(monkeypatch):
    config_save(url="http://saved", token="saved-token")
    monkeypatch.setenv("BOTLADDER_TOKEN", "")
    assert config_load().token == "saved-token"


@pytest.mark.parametrize(("text", "words"), [("{not json", "cannot read"), ("[1, 2]", "is not a JSON object")])
def test_a_malformed_file_says_to_delete_it_and_log_in_again(text, words):
    path = config_path()
    path.parent.mkdir(parents=True)
    path.write_text(text)
    with pytest.raises(ConfigError) as caught:
        config_load()
    assert words in str(caught.value) and "botladder login" in str(caught.value) and str(path) in str(caught.value)


def test_a_file_that_cannot_be_written_is_a_config_error(home, monkeypatch):
    blocker = home / "blocker"
    blocker.write_text("a file where the folder should be")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(blocker))
    with pytest.raises(ConfigError, match="cannot write"):
        config_save(url="http://a", token="t")
