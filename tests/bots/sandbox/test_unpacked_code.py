"""``bots.sandbox.unpacked_code``: uploads unpacked on disk once per content, with the bytecode the sandbox
imports, in folders the sandboxed uid may read and not write."""

from __future__ import annotations

from pathlib import Path

from bots.sandbox.unpacked_code import CodeCache
from tests.factories import FIRST_LEGAL_BOT as GOOD
from tests.factories import make_zip


def test_code_cache_is_keyed_by_content(tmp_path):
    cache = CodeCache(tmp_path / "cache")
    first = cache.path_for(GOOD)
    assert cache.path_for(GOOD) == first
    assert (first / "bot.py").read_bytes() == GOOD
    packaged = cache.path_for(make_zip({"bot.py": GOOD, "pkg/helper.py": b"X = 1\n"}))
    assert (packaged / "pkg" / "helper.py").read_bytes() == b"X = 1\n"
    assert oct((tmp_path / "cache").stat().st_mode & 0o777) == oct(0o711)


def test_code_cache_unpacks_again_a_folder_removed_after_it_was_found(tmp_path):
    """The cache remembers the folders it found, and still looks for each before handing it out."""
    import shutil

    cache = CodeCache(tmp_path / "cache")
    first = cache.path_for(GOOD)
    shutil.rmtree(first)
    assert cache.path_for(GOOD) == first
    assert (first / "bot.py").read_bytes() == GOOD
    # Another cache on the same folder (another worker) finds what this one wrote.
    assert CodeCache(tmp_path / "cache").path_for(GOOD) == first


def test_code_cache_holds_the_bytecode_of_every_module_named_as_in_the_sandbox(tmp_path):
    import importlib.util
    import marshal

    folder = CodeCache(tmp_path / "cache").path_for(
        make_zip({"bot.py": GOOD, "pkg/helper.py": b"X = 1\n", "broken.py": b"def (:\n"}))
    compiled = Path(importlib.util.cache_from_source(str(folder / "bot.py")))
    assert compiled.is_file() and oct(compiled.stat().st_mode & 0o777) == oct(0o644)
    # Hash-based bytecode (flags 0b01): valid whatever the files' times; the code is named by its sandbox path.
    header = compiled.read_bytes()
    assert int.from_bytes(header[4:8], "little") == 0b01
    assert marshal.loads(header[16:]).co_filename == "/bot/bot.py"
    assert Path(importlib.util.cache_from_source(str(folder / "pkg" / "helper.py"))).is_file()
    assert not Path(importlib.util.cache_from_source(str(folder / "broken.py"))).exists()
