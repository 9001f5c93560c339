"""Bot code on disk: uploads arrive as bytes (from the database) and are unpacked once per sha256.

``CodeCache(root).path_for(code)`` returns a folder holding the bot's ``bot.py`` (and the rest of its zip).
Folders are created under a temporary name and renamed into place, so concurrent workers never see a
half-written bot, and they are world-readable but not writable, because the sandboxed uid only reads
them. Only the folder of the bot being run is mounted into its sandbox; the cache root itself is never
visible there.

:func:`archive_members` is the one place that decides whether a zip is safe to unpack; upload validation
turns its refusals into messages for the user, and unpacking repeats the checks for bytes that did not
come through validation.
"""

from __future__ import annotations

import compileall
import hashlib
import io
import os
import py_compile
import shutil
import stat
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from bots.sandbox.policy import BOT_DIR


@dataclass(frozen=True)
class ArchiveCaps:
    """Bounds on an uploaded bot; a zip beyond any of them is refused, never truncated."""

    max_upload_bytes: int = 4 * 1024 * 1024
    max_unpacked_bytes: int = 16 * 1024 * 1024
    max_files: int = 200
    max_depth: int = 8
    # A member that expands more than this many times its compressed size is treated as a bomb.
    max_ratio: int = 200


DEFAULT_CAPS = ArchiveCaps()


class UnsafeArchive(ValueError):
    """The upload cannot be unpacked safely; the message says why, for the user."""


def sha256_of(code: bytes) -> str:
    return hashlib.sha256(code).hexdigest()


def is_zip(code: bytes) -> bool:
    return code[:4] in (b"PK\x03\x04", b"PK\x05\x06")


def archive_members(archive: zipfile.ZipFile, caps: ArchiveCaps = DEFAULT_CAPS) -> list[zipfile.ZipInfo]:
    """The regular files of ``archive``, or :class:`UnsafeArchive` for anything unsafe in it."""
    infos = archive.infolist()
    files = [info for info in infos if not info.is_dir()]
    if len(files) > caps.max_files:
        raise UnsafeArchive(f"the zip holds {len(files)} files; at most {caps.max_files} are allowed")
    declared = 0
    for info in infos:
        name = info.filename
        if "\\" in name or "\x00" in name:
            raise UnsafeArchive(f"{name!r}: file names may not contain backslashes or NUL bytes")
        path = PurePosixPath(name)
        if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
            raise UnsafeArchive(f"{name!r}: absolute paths are not allowed in the zip")
        if ".." in path.parts:
            raise UnsafeArchive(f"{name!r}: '..' is not allowed in zip paths")
        if len(path.parts) > caps.max_depth:
            raise UnsafeArchive(f"{name!r}: folders may be nested at most {caps.max_depth} deep")
        mode = info.external_attr >> 16
        if stat.S_ISLNK(mode):
            raise UnsafeArchive(f"{name!r}: symbolic links are not allowed in the zip")
        # Many zip tools store only permission bits; a file type, when present, must be file or folder.
        if stat.S_IFMT(mode) and not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
            raise UnsafeArchive(f"{name!r}: only regular files and folders are allowed in the zip")
        if info.flag_bits & 0x1:
            raise UnsafeArchive(f"{name!r}: encrypted zip members are not supported")
        if info.file_size > caps.max_ratio * max(info.compress_size, 1) and info.file_size > 1024 * 1024:
            raise UnsafeArchive(f"{name!r} expands {info.file_size // max(info.compress_size, 1)} times: "
                                "this looks like a zip bomb")
        declared += info.file_size
    if declared > caps.max_unpacked_bytes:
        raise UnsafeArchive(f"the zip unpacks to {declared} bytes; at most {caps.max_unpacked_bytes} "
                            "are allowed")
    return files


def unpack(code: bytes, dest: Path, caps: ArchiveCaps = DEFAULT_CAPS) -> None:
    """Write the upload into the empty folder ``dest``: a ``bot.py`` file, or the zip's files.

    Sizes are counted while decompressing, because a zip's declared sizes can lie.
    """
    if not is_zip(code):
        (dest / "bot.py").write_bytes(code)
        return
    try:
        archive = zipfile.ZipFile(io.BytesIO(code))
    except zipfile.BadZipFile as exc:
        raise UnsafeArchive(f"not a readable zip file: {exc}") from None
    with archive:
        written = 0
        for info in archive_members(archive, caps):
            target = dest.joinpath(*PurePosixPath(info.filename).parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as source, open(target, "wb") as sink:
                while chunk := source.read(1 << 16):
                    written += len(chunk)
                    if written > caps.max_unpacked_bytes:
                        raise UnsafeArchive(f"the zip unpacks to more than {caps.max_unpacked_bytes} bytes")
                    sink.write(chunk)


def default_cache_dir() -> Path:
    return Path(tempfile.gettempdir()) / "botladder-code"


class CodeCache:
    """Unpacked bots by sha256 under ``root`` (default: ``$TMPDIR/botladder-code``)."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else default_cache_dir()

    def path_for(self, code: bytes) -> Path:
        """The folder holding this upload unpacked (created on first use)."""
        digest = sha256_of(code)
        final = self.root / digest
        if (final / "bot.py").is_file():
            return final
        # 0o711: sandboxed uids may pass through the root to their own folder but cannot list it.
        self.root.mkdir(parents=True, exist_ok=True)
        os.chmod(self.root, 0o711)
        staging = Path(tempfile.mkdtemp(prefix=f".{digest[:12]}-", dir=self.root))
        try:
            unpack(code, staging)
            _precompile(staging)
            _make_read_only_for_all(staging)
            try:
                os.rename(staging, final)
            except OSError:
                if not (final / "bot.py").is_file():
                    raise
        finally:
            if staging.exists():
                shutil.rmtree(staging, ignore_errors=True)
        return final


def _precompile(folder: Path) -> None:
    """Write the bytecode of every module of the bot next to it, so that a sandboxed bot, which cannot
    write there, does not compile its code again at every start (a large bot takes milliseconds).

    Compiling runs none of the bot's code. The hash-based files are valid whatever the files' times,
    and they name the modules by their path inside the sandbox (tracebacks show ``/bot/...``). A module
    that does not compile is left without bytecode: importing it in the sandbox reports the error.
    """
    compileall.compile_dir(folder, ddir=BOT_DIR, quiet=2, force=True, workers=1,
                           invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)


def _make_read_only_for_all(folder: Path) -> None:
    for dirpath, dirnames, filenames in os.walk(folder):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            os.chmod(os.path.join(dirpath, name), 0o644)
