"""The host files a bot's Python runtime needs beyond the folders it is given whole.

A bot's root holds no ``/etc/ld.so.cache`` and an empty environment, so its dynamic loader finds a
shared library only where it would look without them: the RPATH or RUNPATH of the object that needs it
(``$ORIGIN`` expanded), then the loader's built-in system folders (``/lib/x86_64-linux-gnu``,
``/usr/lib/x86_64-linux-gnu``, ``/lib``, ``/usr/lib`` on Debian). :func:`library_closure` follows the
``DT_NEEDED`` entries of the given ELF objects by those same rules, reading the ELF headers itself (no
library is loaded or run; only the loader is asked for its folders), so that the libraries it returns
are exactly those the bot's loader will look for and find, at the paths where it will look. Libraries loaded later with ``dlopen`` (importing ``_ssl``,
``_sqlite3``, numpy's OpenBLAS) are found the same way, so they need nothing more.

The paths returned are the paths as looked up (``/lib/x86_64-linux-gnu/libz.so.1``): the symlinks on
the way (``/lib`` to ``usr/lib``, ``libz.so.1`` to ``libz.so.1.2.13``) are the mount plan's to reproduce.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

_ELF_MAGIC = b"\x7fELF"
_PT_LOAD, _PT_DYNAMIC, _PT_INTERP = 1, 2, 3
_DT_NULL, _DT_NEEDED, _DT_STRTAB, _DT_STRSZ, _DT_RPATH, _DT_RUNPATH = 0, 1, 5, 10, 15, 29
# Loader's built-in folders when it cannot be asked (``ld.so --help`` appeared in glibc 2.33).
_FALLBACK_SYSTEM_DIRS = ("/lib64", "/usr/lib64", "/lib", "/usr/lib")


@dataclass(frozen=True)
class ElfObject:
    """What the dynamic loader reads of one ELF file."""

    path: str
    #: (class, byte order, machine): the loader skips a candidate library whose kind differs.
    kind: tuple[int, int, int]
    #: The program interpreter (the dynamic loader) an executable names, if any.
    interpreter: str | None
    needed: tuple[str, ...]
    rpath: tuple[str, ...]
    runpath: tuple[str, ...]

    def search_dirs(self) -> list[str]:
        """Folders this object's own entries add to a lookup, ``$ORIGIN`` expanded. (The loader would
        also try the RPATH of the objects that loaded this one; none of the runtime's needs it.)"""
        entries = self.runpath or self.rpath
        origin = os.path.dirname(self.path)
        dirs = []
        for entry in entries:
            expanded = entry.replace("${ORIGIN}", origin).replace("$ORIGIN", origin)
            if "$" not in expanded and expanded.startswith("/"):
                dirs.append(os.path.normpath(expanded))
        return dirs


def read_elf(path: str) -> ElfObject | None:
    """The dynamic section of the ELF file at ``path``; None if it is not one (or cannot be read)."""
    try:
        with open(path, "rb") as handle:
            return _parse(path, handle)
    except (OSError, struct.error, ValueError):
        return None


def _parse(path: str, handle) -> ElfObject | None:
    ident = handle.read(16)
    if len(ident) < 16 or ident[:4] != _ELF_MAGIC or ident[4] not in (1, 2) or ident[5] not in (1, 2):
        return None
    wide = ident[4] == 2
    order = "<" if ident[5] == 1 else ">"
    header = handle.read(48 if wide else 36)
    if wide:
        _, machine, _, _, phoff, _, _, _, phentsize, phnum = struct.unpack_from(order + "HHIQQQIHHH", header)
        segment = struct.Struct(order + "IIQQQQQQ")
    else:
        _, machine, _, _, phoff, _, _, _, phentsize, phnum = struct.unpack_from(order + "HHIIIIIHHH", header)
        segment = struct.Struct(order + "IIIIIIII")
    handle.seek(phoff)
    table = handle.read(phentsize * phnum)
    loads, dynamic, interpreter = [], None, None
    for index in range(phnum):
        fields = segment.unpack_from(table, index * phentsize)
        if wide:
            p_type, _, offset, vaddr, _, filesz, _, _ = fields
        else:
            p_type, offset, vaddr, _, filesz, _, _, _ = fields
        if p_type == _PT_LOAD:
            loads.append((vaddr, offset, filesz))
        elif p_type == _PT_DYNAMIC:
            dynamic = (offset, filesz)
        elif p_type == _PT_INTERP:
            handle.seek(offset)
            interpreter = handle.read(filesz).split(b"\0", 1)[0].decode()
    kind = (ident[4], ident[5], machine)
    if dynamic is None:
        return ElfObject(path, kind, interpreter, (), (), ())
    handle.seek(dynamic[0])
    entry = struct.Struct(order + ("qQ" if wide else "iI"))
    raw = handle.read(dynamic[1])
    tags: list[tuple[int, int]] = []
    for index in range(len(raw) // entry.size):
        tag, value = entry.unpack_from(raw, index * entry.size)
        if tag == _DT_NULL:
            break
        tags.append((tag, value))
    strtab = next((value for tag, value in tags if tag == _DT_STRTAB), None)
    strsz = next((value for tag, value in tags if tag == _DT_STRSZ), 0)
    if strtab is None:
        return ElfObject(path, kind, interpreter, (), (), ())
    # The string table is named by its address once loaded: find it in the file through its segment.
    file_offset = next((offset + strtab - vaddr for vaddr, offset, size in loads if vaddr <= strtab < vaddr + size),
                       None)
    if file_offset is None:
        raise ValueError(f"{path}: string table outside every segment")
    handle.seek(file_offset)
    strings = handle.read(strsz)

    def text(offset: int) -> str:
        return strings[offset:strings.index(b"\0", offset)].decode()

    def listed(wanted: int) -> tuple[str, ...]:
        return tuple(part for tag, value in tags if tag == wanted for part in text(value).split(":") if part)

    needed = tuple(text(value) for tag, value in tags if tag == _DT_NEEDED)
    return ElfObject(path, kind, interpreter, needed, listed(_DT_RPATH), listed(_DT_RUNPATH))


@lru_cache(maxsize=4)
def system_search_dirs(loader: str) -> tuple[str, ...]:
    """The folders ``loader`` searches when nothing else names a library (asked to the loader itself)."""
    try:
        completed = subprocess.run([loader, "--help"], capture_output=True, text=True, timeout=10, env={},
                                   check=False)
    except (OSError, subprocess.SubprocessError):
        return _FALLBACK_SYSTEM_DIRS
    dirs = tuple(line.split("(")[0].strip() for line in completed.stdout.splitlines()
                 if line.rstrip().endswith("(system search path)"))
    return dirs or _FALLBACK_SYSTEM_DIRS


@lru_cache(maxsize=1)
def _host_cache() -> dict[str, tuple[str, ...]]:
    """Library names and paths of the host's ``ld.so.cache`` (``ldconfig -p``), which bots do not have."""
    ldconfig = shutil.which("ldconfig") or shutil.which("ldconfig", path="/sbin:/usr/sbin")
    if ldconfig is None:
        return {}
    try:
        completed = subprocess.run([ldconfig, "-p"], capture_output=True, text=True, timeout=10, env={},
                                   check=False)
    except (OSError, subprocess.SubprocessError):
        return {}
    found: dict[str, list[str]] = {}
    for line in completed.stdout.splitlines():
        name, arrow, path = line.strip().partition(" => ")
        if arrow:
            found.setdefault(name.split(" (")[0], []).append(path)
    return {name: tuple(paths) for name, paths in found.items()}


def _matching(path: str, kind: tuple[int, int, int], seen: dict[str, ElfObject | None]) -> ElfObject | None:
    if path not in seen:
        seen[path] = read_elf(path) if os.path.isfile(path) else None
    found = seen[path]
    return found if found is not None and found.kind == kind else None


def find_library(name: str, requester: ElfObject, system_dirs: Iterable[str],
                 seen: dict[str, ElfObject | None] | None = None) -> ElfObject | None:
    """The library ``name`` as the bot's loader finds it for ``requester``: in its RPATH/RUNPATH, then in
    the system folders, skipping files of another ELF kind. None if it does not find it there.
    ``seen`` caches the files already read, for many lookups in a row."""
    seen = {} if seen is None else seen
    if "/" in name:
        return _matching(name, requester.kind, seen) if name.startswith("/") else None
    for folder in (*requester.search_dirs(), *system_dirs):
        found = _matching(os.path.join(folder, name), requester.kind, seen)
        if found is not None:
            return found
    return None


@dataclass(frozen=True)
class Closure:
    """The shared libraries a set of ELF objects loads, as the bot's loader finds them."""

    #: Paths as looked up (symlinks not resolved), each once, in the order met.
    libraries: tuple[str, ...]
    #: Names the bot's loader would not find (the host finds some through its cache only). An object
    #: needing one cannot be loaded in the bot's root unless the library is already loaded.
    missing: tuple[str, ...]


def library_closure(objects: Iterable[str], loader: str | None) -> Closure:
    """Every shared library the ELF files ``objects`` need, directly or not, for a process whose dynamic
    loader is ``loader`` (the interpreter's; None for a static interpreter); the loader comes first.

    Files among ``objects`` that are not ELF are ignored. Libraries only the host's ``ld.so.cache`` knows
    are returned too (at their host path: an object already loaded when the bot starts needs the file no
    more) and listed in ``missing``.
    """
    system_dirs = system_search_dirs(loader) if loader else _FALLBACK_SYSTEM_DIRS
    libraries: dict[str, None] = {loader: None} if loader else {}
    missing: dict[str, None] = {}
    seen: dict[str, ElfObject | None] = {}
    queue = [found for path in objects if (found := read_elf(path)) is not None]
    visited = {_identity(item.path) for item in queue}
    while queue:
        current = queue.pop(0)
        for name in current.needed:
            found = find_library(name, current, system_dirs, seen)
            if found is None:
                missing.setdefault(name)
                found = next((match for path in _host_cache().get(name, ())
                              if (match := _matching(path, current.kind, seen)) is not None), None)
                if found is None:
                    continue
            libraries.setdefault(found.path)
            identity = _identity(found.path)
            if identity not in visited:
                visited.add(identity)
                queue.append(found)
    return Closure(tuple(libraries), tuple(missing))


def _identity(path: str) -> tuple[int, int]:
    """Which file ``path`` is, whatever the symlinks leading to it."""
    status = os.stat(path)
    return status.st_dev, status.st_ino


def shared_objects(folder: str) -> list[str]:
    """The files under ``folder`` named like shared objects (``x.so``, ``libx.so.1.2``), sorted."""
    found = []
    for root, dirs, files in os.walk(folder):
        dirs.sort()
        found.extend(os.path.join(root, name) for name in sorted(files)
                     if name.endswith(".so") or ".so." in name)
    return found


def symlink_chain(path: str, known: dict[str, str | None] | None = None) -> tuple[list[tuple[str, str]], str]:
    """Resolve the absolute ``path`` on the host: the symlinks met on the way, each as (where it is, its
    text), and the real path. Every ``where`` lies in a real (symlink-free) folder.

    ``known`` caches what each path met is (a symlink's text, or None), so that resolving many paths
    in the same folders looks at each folder once.
    """
    known = {} if known is None else known
    links: list[tuple[str, str]] = []
    current = "/"
    todo = [part for part in path.split("/") if part]
    while todo:
        part = todo.pop(0)
        if part == ".":
            continue
        if part == "..":
            current = os.path.dirname(current)
            continue
        candidate = os.path.join(current, part)
        if candidate not in known:
            known[candidate] = os.readlink(candidate) if os.path.islink(candidate) else None
        text = known[candidate]
        if text is None:
            current = candidate
            continue
        if len(links) >= 40:
            raise OSError(f"too many levels of symbolic links in {path}")
        links.append((candidate, text))
        if text.startswith("/"):
            current = "/"
        todo[:0] = [piece for piece in text.split("/") if piece]
    return links, current
