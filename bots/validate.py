"""Upload validation: decide whether bytes sent by a user may become an active bot version.

:func:`validate_upload` accepts a ``bot.py`` file or a zip with ``bot.py`` at its root and refuses, with a
message that says what to fix, anything else: empty or oversized uploads, unsafe zips (absolute paths,
``..``, symbolic links, too many files or folders too deep, zip bombs), missing ``bot.py``, text that is not
Python, syntax errors. A bot that passes those checks then plays a smoke match in the sandbox against the
game's random bot (``bots/examples/<game>/random_bot.py``); a version that cannot finish a legal game is
refused with its error and the tail of its log.
"""

from __future__ import annotations

import io
import secrets
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from bots.sandbox.codecache import (
    DEFAULT_CAPS,
    ArchiveCaps,
    UnsafeArchive,
    archive_members,
    is_zip,
    sha256_of,
)
from bots.sandbox.policy import Limits
from bots.untrusted import storable_text

EXAMPLES_DIR = Path(__file__).resolve().parent / "examples"
# Characters of the log shown with a failed smoke match.
LOG_TAIL_CHARS = 4000
# Characters of a refusal's message.
MESSAGE_CHARS = 2000


class ValidationError(Exception):
    """The upload is refused; ``message`` says what to fix, ``log_tail`` is the smoke match's log if any.

    Both may quote the upload (names inside a zip, the bot's error, its log), so both are made storable
    here: they go into a JSON response and the database as they are.
    """

    def __init__(self, message: str, log_tail: str = "") -> None:
        message = storable_text(message, limit=MESSAGE_CHARS)
        super().__init__(message)
        self.message = message
        self.log_tail = storable_text(log_tail, limit=LOG_TAIL_CHARS)


@dataclass(frozen=True)
class ValidatedBot:
    code: bytes
    sha256: str
    size: int
    kind: str  # "py" or "zip"
    message: str


def validate_upload(data: bytes, filename: str, *, game: str, limits: Limits | None = None,
                    allow_unsafe: bool = False, caps: ArchiveCaps = DEFAULT_CAPS,
                    smoke: bool = True) -> ValidatedBot:
    """Check an upload and play its smoke match; :class:`ValidationError` if it may not be activated.

    ``smoke=False`` skips the match (static checks only). Sandbox failures during the smoke match propagate
    as :class:`bots.referee.SandboxFault`: they say nothing about the upload.
    """
    kind = check_static(data, filename, caps)
    message = "bot.py compiles" if kind == "py" else "zip with bot.py compiles"
    if smoke:
        message = smoke_match(data, game=game, limits=limits, allow_unsafe=allow_unsafe)
    return ValidatedBot(code=data, sha256=sha256_of(data), size=len(data), kind=kind, message=message)


def check_static(data: bytes, filename: str, caps: ArchiveCaps = DEFAULT_CAPS) -> str:
    """Every check that needs no sandbox; returns ``"py"`` or ``"zip"``."""
    if not data:
        raise ValidationError("the upload is empty: send a bot.py file or a zip with bot.py at its root")
    if len(data) > caps.max_upload_bytes:
        raise ValidationError(f"the upload is {len(data)} bytes; at most {caps.max_upload_bytes} are allowed")
    name = (filename or "").lower()
    if name.endswith(".zip") or is_zip(data):
        _check_zip(data, caps)
        return "zip"
    if not name.endswith(".py"):
        raise ValidationError(f"{filename!r} is neither a .py file nor a .zip: upload bot.py or a zip")
    _check_python(data, "bot.py")
    return "py"


def _check_python(source: bytes, name: str) -> None:
    if b"\x00" in source:
        raise ValidationError(f"{name} is not Python source (it contains NUL bytes)")
    try:
        text = source.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ValidationError(f"{name} is not Python source: not UTF-8 text ({exc.reason} at byte "
                              f"{exc.start})") from None
    try:
        compile(text, name, "exec", dont_inherit=True)
    except SyntaxError as exc:
        raise ValidationError(f"syntax error in {name}, line {exc.lineno}: {exc.msg}") from None
    except ValueError as exc:
        raise ValidationError(f"{name} is not Python source: {exc}") from None


def _check_zip(data: bytes, caps: ArchiveCaps) -> None:
    try:
        archive = zipfile.ZipFile(io.BytesIO(data))
    except zipfile.BadZipFile as exc:
        raise ValidationError(f"not a readable zip file ({exc}): upload bot.py or a valid zip") from None
    with archive:
        try:
            members = archive_members(archive, caps)
        except UnsafeArchive as exc:
            raise ValidationError(str(exc)) from None
        names = [info.filename for info in members]
        if "bot.py" not in names:
            nested = [name for name in names if PurePosixPath(name).name == "bot.py"]
            hint = (f" (found {nested[0]}: zip the folder's contents, not the folder)" if nested else "")
            raise ValidationError(f"the zip has no bot.py at its root{hint}")
        total = 0
        for info in members:
            # Counted while reading, because the sizes a zip declares can lie.
            content = bytearray()
            try:
                with archive.open(info) as member:
                    while chunk := member.read(1 << 16):
                        total += len(chunk)
                        if total > caps.max_unpacked_bytes:
                            raise ValidationError(f"the zip unpacks to more than {caps.max_unpacked_bytes} "
                                                  "bytes: this looks like a zip bomb")
                        if info.filename.endswith(".py"):
                            content += chunk
            except (zipfile.BadZipFile, OSError, RuntimeError, NotImplementedError) as exc:
                raise ValidationError(f"{info.filename!r} cannot be read from the zip: {exc}") from None
            if info.filename.endswith(".py"):
                _check_python(bytes(content), info.filename)


def random_bot_path(game: str) -> Path:
    return EXAMPLES_DIR / game / "random_bot.py"


def smoke_match(data: bytes, *, game: str, limits: Limits | None = None, allow_unsafe: bool = False) -> str:
    """Play the upload against the game's random bot; the message for the version, or ValidationError."""
    from bots.referee import BotSpec, play_match

    opponent = random_bot_path(game)
    if not opponent.is_file():
        raise ValidationError(f"no random bot for {game!r} to play the smoke match against "
                              f"(expected {opponent.relative_to(EXAMPLES_DIR.parent.parent)})")
    result = play_match(game, [BotSpec("upload", data), BotSpec("random", opponent.read_bytes())],
                        seed=secrets.randbits(62), limits=limits, allow_unsafe=allow_unsafe)
    seat = result.seats[0]
    if seat.outcome != "ok":
        raise ValidationError(f"the smoke match against the random bot failed: {seat.outcome}: {seat.reason}",
                              log_tail=seat.log[-LOG_TAIL_CHARS:])
    return (f"smoke match against the random bot: finished in {len(result.actions)} actions, "
            f"place {seat.place}, score {seat.score}")
