"""Where the client finds its server and token: the environment first, then the config file.

``BOTLADDER_URL`` and ``BOTLADDER_TOKEN`` win over the file, so a CI job needs no file at all. The file
is ``$XDG_CONFIG_HOME/botladder/config.json`` (``~/.config/botladder/config.json`` without it), written
by ``botladder login`` readable by its user alone (mode 0600, in a 0700 folder), since the token stands
for the account. A folder or file that exists with looser modes (made by hand, by an older version, or
by a umask) is tightened to those whenever the command reads or writes it.
"""

from __future__ import annotations

import json
import os
import stat
from dataclasses import dataclass
from pathlib import Path

DEFAULT_URL = "http://127.0.0.1:8000"


class ConfigError(Exception):
    """The config file cannot be read or written; the message says which file and why."""


@dataclass(frozen=True)
class Config:
    url: str
    token: str | None


def config_path() -> Path:
    base = os.environ.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "botladder" / "config.json"


#: The modes of the config folder and file: their user's alone.
FOLDER_MODE, FILE_MODE = 0o700, 0o600


def _tighten(path: Path, mode: int) -> None:
    """Take from ``path`` every permission beyond ``mode`` (group's and others'); OSError if it cannot be."""
    if stat.S_IMODE(os.stat(path).st_mode) & ~mode:
        os.chmod(path, mode)


def _read_file() -> dict:
    path = config_path()
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        raise ConfigError(f"cannot read {path}: {error}; delete it and run `botladder login` again") from error
    if not isinstance(data, dict):
        raise ConfigError(f"{path} is not a JSON object; delete it and run `botladder login` again")
    try:
        _tighten(path.parent, FOLDER_MODE)
        _tighten(path, FILE_MODE)
    except OSError as error:
        raise ConfigError(f"{path} holds your token and others may read it; cannot make it yours alone "
                          f"({error.strerror}): run chmod 700 {path.parent}; chmod 600 {path}") from error
    return data


def config_load(*, url: str | None = None) -> Config:
    """The server URL (``url`` given, else ``BOTLADDER_URL``, else the file's, else :data:`DEFAULT_URL`) and
    the token (``BOTLADDER_TOKEN``, else the file's when it was saved for that same URL, else None)."""
    saved = _read_file()
    chosen = (url or os.environ.get("BOTLADDER_URL") or saved.get("url") or DEFAULT_URL).rstrip("/")
    token = os.environ.get("BOTLADDER_TOKEN")
    if not token and str(saved.get("url", "")).rstrip("/") == chosen:
        token = saved.get("token")
    return Config(url=chosen, token=token or None)


def config_save(*, url: str, token: str) -> Path:
    """Write ``{"url", "token"}`` to :func:`config_path`, mode 0600 in a 0700 folder before the token is
    written, whatever modes an existing folder or file had."""
    path = config_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=FOLDER_MODE)
        # mkdir leaves a folder that existed as it was, and its mode is masked by the umask.
        os.chmod(path.parent, FOLDER_MODE)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            # A file that existed keeps its old mode through os.open: set it before the token goes in.
            os.fchmod(file.fileno(), FILE_MODE)
            json.dump({"url": url.rstrip("/"), "token": token}, file)
            file.write("\n")
    except OSError as error:
        raise ConfigError(f"cannot write {path}: {error}") from error
    return path
