"""Where the client finds its server and token: the environment first, then the config file.

``BOTLADDER_URL`` and ``BOTLADDER_TOKEN`` win over the file, so a CI job needs no file at all. The file
is ``$XDG_CONFIG_HOME/botladder/config.json`` (``~/.config/botladder/config.json`` without it), written
by ``botladder login`` readable by its user alone (mode 0600, in a 0700 folder), since the token stands
for the account.
"""

from __future__ import annotations

import json
import os
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
    """Write ``{"url", "token"}`` to :func:`config_path`, mode 0600 from its creation on."""
    path = config_path()
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(descriptor, "w", encoding="utf-8") as file:
            json.dump({"url": url.rstrip("/"), "token": token}, file)
            file.write("\n")
        # A file that existed before keeps its old mode through os.open: set it.
        os.chmod(path, 0o600)
    except OSError as error:
        raise ConfigError(f"cannot write {path}: {error}") from error
    return path
