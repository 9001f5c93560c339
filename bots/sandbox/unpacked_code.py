"""Bot code on disk: uploads arrive as bytes (from the database) and are unpacked once per sha256.

``CodeCache(root).path_for(code)`` returns a folder holding the bot's ``bot.py`` (and the rest of its zip).
Folders are created under a temporary name and renamed into place, so concurrent workers never see a
half-written bot, and they are world-readable but not writable, because the sandboxed uid only reads
them. Only the folder of the bot being run is mounted into its sandbox; the cache root itself is never
visible there.

Uploads are unpacked by :func:`bots.archive.unpack`, which refuses anything unsafe.
"""

from __future__ import annotations

import compileall
import os
import py_compile
import shutil
import tempfile
from pathlib import Path

from bots.archive import sha256_of, unpack
from bots.sandbox.policy import BOT_DIR


def default_cache_dir() -> Path:
    return Path(tempfile.gettempdir()) / "botladder-code"


class CodeCache:
    """Unpacked bots by sha256 under ``root`` (default: ``$TMPDIR/botladder-code``)."""

    def __init__(self, root: str | Path | None = None) -> None:
        self.root = Path(root) if root is not None else default_cache_dir()
        # Folders found complete, by digest: (folder, its bot.py as text). A lookup of one costs a stat of
        # a text path instead of building paths, which is slower on a start's path.
        self._found: dict[str, tuple[Path, str]] = {}

    def path_for(self, code: bytes) -> Path:
        """The folder holding this upload unpacked (created on first use, and again if it was removed)."""
        digest = sha256_of(code)
        found = self._found.get(digest)
        if found is not None and os.path.isfile(found[1]):
            return found[0]
        final = self.root / digest
        if (final / "bot.py").is_file():
            return self._remember(digest, final)
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
        return self._remember(digest, final)

    def _remember(self, digest: str, final: Path) -> Path:
        if len(self._found) >= _FOUND_MAX:
            self._found.clear()
        self._found[digest] = (final, str(final / "bot.py"))
        return final


# Folders a cache remembers (a worker meets a few hundred bots; past this it starts again).
_FOUND_MAX = 4096


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
