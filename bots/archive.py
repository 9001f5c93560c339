"""Uploaded bot archives as data: the one place that decides whether a zip is safe to unpack.

Pure functions of the bytes, with no sandbox and no code execution, so that the web tier can check an
upload before storing it and the workers can unpack it into their code cache with the same rules.
:func:`archive_members` refuses anything unsafe; upload checks turn its refusals into messages for the user,
and :func:`unpack` repeats them for bytes that did not come through those checks.
"""

from __future__ import annotations

import hashlib
import io
import stat
import zipfile
from dataclasses import dataclass
from pathlib import Path, PurePosixPath


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
