"""The checks of an upload that run none of its code: what the web tier may do before storing it.

:func:`check_static` accepts a ``bot.py`` file or a zip with ``bot.py`` at its root and refuses, with a
message that says what to fix, anything else: empty or oversized uploads, unsafe zips (any member name
that is not a plain relative path, such as ``.``, ``..``, ``a//b`` or an absolute path; a file that is also
a folder; a name twice, or two that differ only in case; symbolic links; too many files or folders too
deep; zip bombs: :func:`bots.archive.archive_members`), a missing ``bot.py``, modules that are not UTF-8
text. Nothing here compiles or imports the upload: compiling hostile source costs unbounded
CPU and memory and can raise out of the compiler, so it happens on the workers
(:func:`check_compiles`, then the smoke match in the sandbox, see :mod:`bots.validate`).
"""

from __future__ import annotations

from pathlib import PurePosixPath

from bots.archive import (
    DEFAULT_CAPS,
    ArchiveCaps,
    UnsafeArchive,
    archive_members,
    is_zip,
    member_chunks,
    open_zip,
)
from bots.untrusted import storable_text

#: Characters of a refusal's message, and of the smoke match's log tail that comes with it.
MESSAGE_CHARS = 2000
LOG_TAIL_CHARS = 4000


class UploadRejected(Exception):
    """The upload is refused; ``message`` says what to fix, ``log_tail`` is the smoke match's log if any.

    Both may quote the upload (names inside a zip, the bot's error, its log), so both are made storable
    here: they go into a JSON response and the database as they are.
    """

    def __init__(self, message: str, log_tail: str = "") -> None:
        message = storable_text(message, limit=MESSAGE_CHARS)
        super().__init__(message)
        self.message = message
        self.log_tail = storable_text(log_tail, limit=LOG_TAIL_CHARS)


def check_static(data: bytes, filename: str, caps: ArchiveCaps = DEFAULT_CAPS) -> str:
    """Every check that runs none of the upload's code; returns ``"py"`` or ``"zip"``."""
    if not data:
        raise UploadRejected("the upload is empty: send a bot.py file or a zip with bot.py at its root")
    if len(data) > caps.max_upload_bytes:
        raise UploadRejected(f"the upload is {len(data)} bytes; at most {caps.max_upload_bytes} are allowed")
    name = (filename or "").lower()
    if name.endswith(".zip") and not is_zip(data):
        raise UploadRejected(f"{filename!r} is named as a zip but is not a zip archive: upload a zip with "
                              "bot.py at its root, or the bot.py file itself")
    if name.endswith(".zip") or is_zip(data):
        python_sources(data, caps)
        return "zip"
    if not name.endswith(".py"):
        raise UploadRejected(f"{filename!r} is neither a .py file nor a .zip: upload bot.py or a zip")
    _source_text(data, "bot.py")
    return "py"


def check_compiles(data: bytes, caps: ArchiveCaps = DEFAULT_CAPS) -> None:
    """Compile every module of an upload that passed :func:`check_static`; :class:`UploadRejected` with
    the file and line for any module the compiler refuses, whatever it raises (a syntax error, or a
    MemoryError or RecursionError for source nested too deeply for it)."""
    for name, text in python_sources(data, caps):
        try:
            compile(text, name, "exec", dont_inherit=True)
        except SyntaxError as exc:
            raise UploadRejected(f"syntax error in {name}, line {exc.lineno}: {exc.msg}") from None
        except (MemoryError, RecursionError):
            raise UploadRejected(f"{name} is nested too deeply for the Python compiler: flatten its "
                                  "expressions or blocks") from None
        except (ValueError, OverflowError) as exc:
            raise UploadRejected(f"{name} is not Python source: {exc}") from None


def python_sources(data: bytes, caps: ArchiveCaps = DEFAULT_CAPS) -> list[tuple[str, str]]:
    """(name, text) of every Python module of the upload: ``bot.py`` alone, or each ``.py`` of a safe zip
    that has ``bot.py`` at its root."""
    if not is_zip(data):
        return [("bot.py", _source_text(data, "bot.py"))]
    try:
        archive = open_zip(data)
    except UnsafeArchive as exc:
        raise UploadRejected(f"{exc}: upload bot.py or a valid zip") from None
    sources = []
    with archive:
        try:
            members = archive_members(archive, caps)
        except UnsafeArchive as exc:
            raise UploadRejected(str(exc)) from None
        names = [info.filename for info in members]
        if "bot.py" not in names:
            nested = [name for name in names if PurePosixPath(name).name == "bot.py"]
            hint = (f" (found {nested[0]}: zip the folder's contents, not the folder)" if nested else "")
            raise UploadRejected(f"the zip has no bot.py at its root{hint}")
        total = 0
        for info in members:
            # Counted while reading, because the sizes a zip declares can lie.
            content = bytearray()
            try:
                for chunk in member_chunks(archive, info):
                    total += len(chunk)
                    if total > caps.max_unpacked_bytes:
                        raise UploadRejected(f"the zip unpacks to more than {caps.max_unpacked_bytes} "
                                              "bytes: this looks like a zip bomb")
                    if info.filename.endswith(".py"):
                        content += chunk
            except UnsafeArchive as exc:
                raise UploadRejected(str(exc)) from None
            if info.filename.endswith(".py"):
                sources.append((info.filename, _source_text(bytes(content), info.filename)))
    return sources


def _source_text(source: bytes, name: str) -> str:
    if b"\x00" in source:
        raise UploadRejected(f"{name} is not Python source (it contains NUL bytes)")
    try:
        return source.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise UploadRejected(f"{name} is not Python source: not UTF-8 text ({exc.reason} at byte "
                              f"{exc.start})") from None
