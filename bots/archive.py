"""Uploaded bot archives as data: the one place that decides whether a zip is safe to unpack.

Pure functions of the bytes, with no sandbox and no code execution, so that the web tier can check an
upload before storing it and the workers can unpack it into their code cache.
:func:`archive_members` refuses anything unsafe; upload checks turn its refusals into messages for the user,
and :func:`unpack` repeats the checks that keep every file inside its folder for bytes that did not come
through them. Uploads are held to more: one canonical name per path (no ``./a``, ``a//b``, duplicates or
names that differ only in case), so that what is stored from now on unpacks the same everywhere, while
code stored before those rules still unpacks as it did.
"""

from __future__ import annotations

import hashlib
import io
import lzma
import stat
import struct
import unicodedata
import zipfile
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


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


#: What zipfile and its decompressors raise for damaged bytes, besides BadZipFile: a seek before the start
#: (ValueError), a name that is not UTF-8 (UnicodeDecodeError, a ValueError), a version or method it does
#: not know (NotImplementedError), an encrypted member (RuntimeError), a cut or corrupt stream (EOFError,
#: zlib.error, lzma.LZMAError, OSError from bz2), a header field out of range (struct.error,
#: OverflowError). The zip is read from memory, so none of them is a fault of the machine.
_UNREADABLE = (zipfile.BadZipFile, ValueError, NotImplementedError, RuntimeError, EOFError, OSError,
               OverflowError, struct.error, zlib.error, lzma.LZMAError)


def open_zip(code: bytes) -> zipfile.ZipFile:
    """``code`` as a zip, or :class:`UnsafeArchive` ``not a readable zip file (why)``."""
    try:
        return zipfile.ZipFile(io.BytesIO(code))
    except _UNREADABLE as exc:
        raise UnsafeArchive(f"not a readable zip file ({exc})") from None


def member_chunks(archive: zipfile.ZipFile, info: zipfile.ZipInfo) -> Iterator[bytes]:
    """The bytes of the member ``info``, decompressed, in chunks of at most 64 KiB; :class:`UnsafeArchive`
    if they cannot be read (a damaged stream, a CRC that does not match, an unknown method)."""
    try:
        with archive.open(info) as source:
            while chunk := source.read(1 << 16):
                yield chunk
    except _UNREADABLE as exc:
        raise UnsafeArchive(f"{info.filename!r} cannot be read from the zip: {exc}") from None


def archive_members(archive: zipfile.ZipFile, caps: ArchiveCaps = DEFAULT_CAPS, *,
                    strict: bool = True) -> list[zipfile.ZipInfo]:
    """The regular files of ``archive``, or :class:`UnsafeArchive` for anything unsafe in it.

    ``strict`` (an upload, :func:`bots.upload_checks.check_static`): every member's name is the canonical
    spelling of a relative path (:func:`member_parts`) and the names together describe one tree
    (:func:`_check_tree`), so that the zip unpacks to exactly its files, the same on every system.

    Not strict (:func:`unpack`, which also meets code stored before those rules, some of it accepted and
    playing): names are read as they always were, ``./a`` as ``a`` and ``a//b`` as ``a/b``, a later
    duplicate replacing an earlier one, and only what cannot be unpacked as files inside the destination
    is refused (``..``, absolute paths, a member ``.``, a file that is also a folder of other files, names
    too long for the file system). Whatever a strict check accepts, this accepts.
    """
    infos = archive.infolist()
    # By the name, as zipfile itself and every unpacker decide (ZipInfo.is_dir fails on an empty name).
    files = [info for info in infos if not info.filename.endswith("/")]
    if len(files) > caps.max_files:
        raise UnsafeArchive(f"the zip holds {len(files)} files; at most {caps.max_files} are allowed")
    declared = 0
    paths = []
    for info in infos:
        name = info.filename
        parts = member_parts(name, strict=strict)
        if len(parts) > caps.max_depth:
            raise UnsafeArchive(f"{name!r}: folders may be nested at most {caps.max_depth} deep")
        paths.append((name, parts, name.endswith("/")))
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
    if strict:
        _check_tree(paths)
    else:
        _check_files_fit(paths)
    if declared > caps.max_unpacked_bytes:
        raise UnsafeArchive(f"the zip unpacks to {declared} bytes; at most {caps.max_unpacked_bytes} "
                            "are allowed")
    return files


def member_parts(name: str, *, strict: bool = True) -> tuple[str, ...]:
    """The components of the member ``name`` (a folder entry ends with ``/``), or :class:`UnsafeArchive`.

    Always refused: an empty name, NUL or a backslash, an absolute path (``/x``, ``C:x``), ``..``, and a
    component longer than 255 bytes (what Linux file systems hold). ``strict`` accepts only the canonical
    spelling of a relative path besides: no ``.`` and no empty component (``a//b``), and only printable
    characters (no control, format or line-separator characters, which a terminal, a log or a page would
    interpret). Refusing ``./a`` and ``a//b`` rather than normalising them means that two members can only
    name one path by being spelled alike, up to case (see :func:`_check_tree`). Not strict, ``.`` and empty
    components are dropped, as stored code was read when it was accepted: the member ``.`` has no
    components then.
    """
    if not name:
        raise UnsafeArchive("a zip member has an empty name: build the zip again with your zip tool")
    if "\\" in name or "\x00" in name:
        raise UnsafeArchive(f"{name!r}: file names may not contain backslashes or NUL bytes")
    if strict and not name.isprintable():
        raise UnsafeArchive(f"{name!r}: file names may hold printable characters only (no control "
                            "characters)")
    if name.startswith("/") or (len(name) > 1 and name[1] == ":"):
        raise UnsafeArchive(f"{name!r}: absolute paths are not allowed in the zip")
    parts = tuple((name[:-1] if name.endswith("/") else name).split("/"))
    if ".." in parts:
        raise UnsafeArchive(f"{name!r}: '..' is not allowed in zip paths")
    if "." in parts and strict:
        raise UnsafeArchive(f"{name!r}: '.' is not allowed in zip paths (zip the folder's contents from "
                            "inside it)")
    if "" in parts and strict:
        raise UnsafeArchive(f"{name!r}: empty folder names ('//') are not allowed in zip paths")
    parts = tuple(part for part in parts if part not in ("", "."))
    if any(len(part.encode()) > _NAME_MAX_BYTES for part in parts):
        raise UnsafeArchive(f"{name!r}: a file or folder name may be at most {_NAME_MAX_BYTES} bytes long")
    return parts


#: Longest file or folder name (one path component) Linux file systems store, in bytes.
_NAME_MAX_BYTES = 255


def _fold(part: str) -> str:
    # What a case-insensitive file system (macOS, Windows) takes for the same name.
    return unicodedata.normalize("NFC", part).casefold()


def _check_tree(paths: list[tuple[str, tuple[str, ...], bool]]) -> None:
    """Refuse members that do not describe one tree: a name twice, two spellings of one path that differ
    only in case or Unicode normalisation (one file on a case-insensitive system, two on Linux: the bot
    would differ between them), and a file that is also a folder (``x`` beside ``x/y.py`` or ``x/``).
    ``paths``: (name, components, is a folder entry) of every member."""
    seen: set[str] = set()
    spellings: dict[tuple[str, ...], tuple[str, ...]] = {}  # folded path -> its first spelling
    folders: dict[tuple[str, ...], str] = {}  # folded folder path -> a member that makes it a folder
    for name, parts, is_folder in paths:
        if name in seen:
            raise UnsafeArchive(f"{name!r} is in the zip twice: keep one")
        seen.add(name)
        folded = tuple(_fold(part) for part in parts)
        for depth in range(1, len(parts) + 1):
            spelling = spellings.setdefault(folded[:depth], parts[:depth])
            if spelling != parts[:depth]:
                first, second = "/".join(spelling), "/".join(parts[:depth])
                raise UnsafeArchive(f"{first!r} and {second!r} differ only in case or Unicode normalisation: "
                                    "they would be one file on some systems; rename one")
        for depth in range(1, len(parts) if not is_folder else len(parts) + 1):
            folders.setdefault(folded[:depth], name)
    for name, parts, is_folder in paths:
        folded = tuple(_fold(part) for part in parts)
        if not is_folder and folded in folders:
            raise UnsafeArchive(f"{name!r} is a file and also a folder (of {folders[folded]!r}): rename one")


def _check_files_fit(paths: list[tuple[str, tuple[str, ...], bool]]) -> None:
    """Refuse files that cannot all be written where they say: a file with no name left (the member
    ``.``), and a file that is also the folder of another file. Folder entries are not written (each
    file's folders are made for it), so they conflict with nothing."""
    files = [(name, parts) for name, parts, is_folder in paths if not is_folder]
    folders = {parts[:depth]: name for name, parts in files for depth in range(1, len(parts))}
    for name, parts in files:
        if not parts:
            raise UnsafeArchive(f"{name!r}: '.' is not allowed in zip paths (zip the folder's contents from "
                                "inside it)")
        if parts in folders:
            raise UnsafeArchive(f"{name!r} is a file and also a folder (of {folders[parts]!r}): rename one")


def unpack(code: bytes, dest: Path, caps: ArchiveCaps = DEFAULT_CAPS) -> None:
    """Write the upload into the empty folder ``dest``: a ``bot.py`` file, or the zip's files.

    Sizes are counted while decompressing, because a zip's declared sizes can lie. Anything wrong with
    the bytes is an :class:`UnsafeArchive`; an OSError is the machine's (writing ``dest``).
    """
    if not is_zip(code):
        (dest / "bot.py").write_bytes(code)
        return
    sink = None
    try:
        for parts, chunk in _unpacked(code, caps):
            if chunk is None:
                if sink is not None:
                    sink.close()
                target = dest.joinpath(*parts)
                target.parent.mkdir(parents=True, exist_ok=True)
                sink = open(target, "wb")  # closed when the next file starts, or below
            else:
                sink.write(chunk)
    finally:
        if sink is not None:
            sink.close()


def check_unpackable(code: bytes, caps: ArchiveCaps = DEFAULT_CAPS) -> None:
    """:class:`UnsafeArchive` unless :func:`unpack` would write ``code``: its checks, and every member read
    through, without writing anything."""
    if is_zip(code):
        for _ in _unpacked(code, caps):
            pass


def _unpacked(code: bytes, caps: ArchiveCaps) -> Iterator[tuple[tuple[str, ...], bytes | None]]:
    """What :func:`unpack` writes of the zip ``code``, in order: ``(components, None)`` to start each file,
    then ``(components, chunk)`` for its bytes; :class:`UnsafeArchive` as soon as anything is wrong."""
    with open_zip(code) as archive:
        written = 0
        for info in archive_members(archive, caps, strict=False):
            parts = member_parts(info.filename, strict=False)
            yield parts, None
            for chunk in member_chunks(archive, info):
                written += len(chunk)
                if written > caps.max_unpacked_bytes:
                    raise UnsafeArchive(f"the zip unpacks to more than {caps.max_unpacked_bytes} bytes")
                yield parts, chunk
