"""What ``botladder upload PATH`` sends: a file as it is, a folder zipped in memory.

A folder is zipped with every regular file under it, paths relative to it; caches and version-control
folders (``__pycache__``, ``.git`` and the like) are left out. A symbolic link anywhere in it is refused
rather than followed (it could point outside the folder, at a file never meant to be uploaded), and so
is anything else that is not a plain file or folder. The server checks the zip again (its size, bot.py
at its root, its member names); this only spares a round trip for the common mistakes.
"""

from __future__ import annotations

import io
import os
import stat
import zipfile
from pathlib import Path

#: Folders never worth uploading.
SKIPPED_FOLDERS = frozenset({"__pycache__", ".git", ".hg", ".svn", ".mypy_cache", ".pytest_cache", ".ruff_cache",
                             ".venv", "venv", ".tox"})


class ArchiveError(Exception):
    """PATH cannot be uploaded; the message says why and what to do."""


def upload_payload(path: Path) -> tuple[str, bytes]:
    """``(file name, bytes)`` to upload for ``path``: a ``.py`` or ``.zip`` file as it is, a folder as
    ``bot.zip``."""
    if path.is_symlink():
        raise ArchiveError(f"{path} is a symbolic link: give the file or folder itself")
    if path.is_dir():
        return "bot.zip", folder_zip(path)
    if not path.is_file():
        raise ArchiveError(f"{path} does not exist (give bot.py, a .zip, or a folder with bot.py)")
    name = "bot.zip" if zipfile.is_zipfile(path) else "bot.py"
    try:
        return name, path.read_bytes()
    except OSError as error:
        raise ArchiveError(f"cannot read {path}: {error.strerror}") from error


def folder_zip(folder: Path) -> bytes:
    """The folder's files as a zip, members in sorted order, paths relative to ``folder``."""
    root = folder.resolve()
    if not (root / "bot.py").is_file() or (root / "bot.py").is_symlink():
        raise ArchiveError(f"{folder} has no bot.py at its top: the ladder starts a bot from bot.py")
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", compression=zipfile.ZIP_DEFLATED) as archive:
        for current, folders, files in os.walk(root, followlinks=False):
            folders[:] = sorted(name for name in folders if name not in SKIPPED_FOLDERS)
            here = Path(current)
            for name in folders:
                if (here / name).is_symlink():
                    raise ArchiveError(f"{here / name} is a symbolic link: copy what it points to into the "
                                       "folder instead")
            for name in sorted(files):
                member = here / name
                mode = os.lstat(member).st_mode
                if stat.S_ISLNK(mode):
                    raise ArchiveError(f"{member} is a symbolic link: copy what it points to into the folder "
                                       "instead")
                if not stat.S_ISREG(mode):
                    raise ArchiveError(f"{member} is not a regular file: leave it out of the folder")
                if name.endswith((".pyc", ".pyo")):
                    continue
                archive.write(member, member.relative_to(root).as_posix())
    return buffer.getvalue()
