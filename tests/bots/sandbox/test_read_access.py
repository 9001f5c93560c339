"""What a bot can read is exactly what docs/bots.md ("What the sandbox guarantees") allows: its own code,
the standard library, the allowed packages, and the shared libraries those load; nothing else.

A bot inside the real sandbox walks its whole root (``hostile/inventory.py``) and reports every folder it
can list and every file it can open. The test computes the allowlist on the host without asking the
sandbox's mount plan: the standard library's files less its ``site-packages`` and the folders no bot can
use (the test suite, IDLE, tkinter, turtledemo, ensurepip, the build's static library), each allowed
package's files (as root, whose sandbox copies them into memory, less the bytecode of optimised
interpreters, ``.opt-1.pyc`` and ``.opt-2.pyc``), the interpreter, the libraries ``ldd`` says the interpreter, every standard extension module and
every extension module of the allowed packages link against, the bot's own folder, the device nodes.
The two must be equal. A second bot imports every extension module of the standard library and uses the
allowed packages, to show that the allowlist is enough to run. Both run as root, in the fresh-interpreter
mode and as an ordinary user too.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
import subprocess
import sys
import sysconfig
import textwrap
import time
import zlib
from functools import lru_cache
from pathlib import Path

import pytest
from sandbox_helpers import FIRST_BOT, run_as_ordinary_user, skip_without_isolation

from bots.referee import BotSpec, Limits, play_match
from bots.sandbox import SandboxUnavailable
from bots.sandbox.policy import ALLOWED_PACKAGES, PACKAGES_DIR
from bots.sandbox.zygote import ZygoteSandbox

HERE = Path(__file__).parent.parent
PROJECT_ROOT = HERE.parents[1]
INVENTORY = (HERE / "hostile" / "inventory.py").read_bytes()
IMPORTER = (HERE / "hostile" / "importer.py").read_bytes()
# Walking a root that holds more than it should takes a while, and its list is long: room for both.
GENEROUS = Limits(move_ms=60000, bank_ms=0, match_ms=120000, start_ms=20000, cpu_seconds=120,
                  log_bytes=64 * 1024 * 1024, memory_mb=512)
DEVICES = ("/dev/null", "/dev/zero", "/dev/urandom", "/dev/random")
# Nothing under these may be readable, except what the allowlist names (the base interpreter may live
# under /root, as pyenv's does).
FORBIDDEN = ("/etc", "/root", "/home", "/usr/share", "/usr/local", "/var", "/opt", "/srv", "/work",
             str(PROJECT_ROOT), sys.prefix)


@pytest.fixture(scope="module", params=["zygote", "fresh"])
def sandbox(request, tmp_path_factory):
    try:
        box = ZygoteSandbox(tmp_path_factory.mktemp(f"cache-{request.param}"), mode=request.param).start()
    except SandboxUnavailable as exc:
        skip_without_isolation(exc)
    yield box
    box.close()


# ---------------------------------------------------------------------------------------------------
# The allowlist, computed on the host


def _stdlib() -> Path:
    return Path(sysconfig.get_paths()["stdlib"]).resolve()


def _package_folders() -> list[Path]:
    """Each allowed package's folder and its folder of bundled libraries, on the host."""
    import importlib.util

    folders = []
    for name in ALLOWED_PACKAGES:
        spec = importlib.util.find_spec(name)
        for location in spec.submodule_search_locations:
            folder = Path(location).resolve()
            folders.append(folder)
            if (folder.parent / f"{name}.libs").is_dir():
                folders.append((folder.parent / f"{name}.libs").resolve())
    return folders


def _interpreter() -> Path:
    base = Path(sys.base_prefix) / "bin" / f"python{sys.version_info.major}.{sys.version_info.minor}"
    return base.resolve() if base.exists() else Path(sys.executable).resolve()


def _extension_modules() -> list[Path]:
    found = sorted(Path(sysconfig.get_config_var("DESTSHARED")).glob("*.so"))
    for folder in _package_folders():
        found += sorted(path for path in folder.rglob("*") if path.is_file() and ".so" in path.name)
    return found


@lru_cache(maxsize=1)
def ldd_closure() -> frozenset[str]:
    """Real paths of every library ``ldd`` lists for the interpreter and the extension modules."""
    if shutil.which("ldd") is None:
        pytest.skip("ldd is not installed")
    libraries = set()
    for path in [_interpreter(), *_extension_modules()]:
        listing = subprocess.run(["ldd", str(path)], capture_output=True, text=True, check=False).stdout
        for line in listing.splitlines():
            words = line.split()
            if "=>" in words and len(words) > words.index("=>") + 1 and words[words.index("=>") + 1].startswith("/"):
                libraries.add(os.path.realpath(words[words.index("=>") + 1]))
            elif words and words[0].startswith("/"):
                libraries.add(os.path.realpath(words[0]))  # the loader
    return frozenset(libraries)


# Bytecode only an interpreter started with -O or -OO reads, which a sandbox that copies the runtime into
# memory leaves out.
OPTIMISED_BYTECODE = (".opt-1.pyc", ".opt-2.pyc")


def _tree(host: Path, inside: str, skip: tuple[Path, ...], since: float,
          left_out: tuple[str, ...] = ()) -> tuple[set[str], set[str], set[str]]:
    """(folders, regular files, files changed since ``since``) of ``host`` as seen at ``inside``, less the
    files whose names end with one of ``left_out``."""
    folders, files, recent = set(), set(), set()
    for root, dirs, names in os.walk(host):
        if Path(root) in skip:
            dirs[:] = []
            continue
        where = inside + root[len(str(host)):]
        folders.add(where)
        for name in names:
            path = os.path.join(root, name)
            if not os.path.islink(path) and not name.endswith(left_out):
                files.add(f"{where}/{name}")
                if os.lstat(path).st_ctime >= since:
                    recent.add(f"{where}/{name}")
    return folders, files, recent


def _hidden_folders() -> tuple[Path, ...]:
    """The standard library's folders of packages, and those of it no bot can use."""
    names = ["site-packages", "dist-packages", "test", "idlelib", "tkinter", "turtledemo", "ensurepip",
             Path(sysconfig.get_config_var("LIBPL")).name]
    return tuple(_stdlib() / name for name in names if (_stdlib() / name).is_dir())


def allowed(bot_dir: Path, mode: str, runtime_dir: Path | None, since: float,
            in_memory: bool) -> tuple[set[str], set[str], set[str]]:
    """(folders a bot may list, files it may open, files changed since ``since``) by the promise, on this
    host, for a sandbox that copies the runtime into memory (``in_memory``) or not. (Other processes on
    the machine may write bytecode into the standard library meanwhile: the bot may or may not have seen
    those files.)"""
    left_out = OPTIMISED_BYTECODE if in_memory else ()
    shared = [(_stdlib(), str(_stdlib()), since, left_out)]
    shared += [(folder, f"{PACKAGES_DIR}/{folder.name}", since, left_out) for folder in _package_folders()]
    # The sandbox's own folders are written before the bot starts and never after.
    own = [(bot_dir, "/bot", float("inf"), ())]
    own += [(runtime_dir, "/sdk", float("inf"), left_out)] if mode == "fresh" else []
    folders, files, recent = {"/", "/tmp", "/dev"}, set(DEVICES), set()
    for host, inside, changes_from, not_served in shared + own:
        tree_folders, tree_files, tree_recent = _tree(host, inside, _hidden_folders(), changes_from, not_served)
        folders |= tree_folders
        files |= tree_files
        recent |= tree_recent
    # The hidden folders are still there, empty.
    folders |= {str(path) for path in _hidden_folders()}
    package_roots = tuple(str(folder) for folder in _package_folders())
    files |= {library for library in ldd_closure() if not library.startswith(package_roots)}
    files.add(str(_interpreter()))
    return folders, files, recent


def _under(path: str, prefixes) -> bool:
    return any(path == prefix or path.startswith(prefix.rstrip("/") + "/") for prefix in prefixes)


# ---------------------------------------------------------------------------------------------------
# The bots' reports


def inventory_of(log: str) -> dict:
    line = next((line for line in log.splitlines() if line.startswith("INVENTORY ")), None)
    assert line is not None, f"no inventory in the log: {log[-2000:]}"
    return json.loads(zlib.decompress(base64.b64decode(line.split(" ", 1)[1])))


def check_inventory(found: dict, bot_dir: Path, mode: str, runtime_dir: Path | None, since: float,
                    in_memory: bool) -> None:
    folders, files, recent = allowed(bot_dir, mode, runtime_dir, since, in_memory)
    readable = set(found["files"])
    excused = {str(_interpreter()), *ldd_closure(), str(_stdlib()), PACKAGES_DIR}
    escaped = sorted(path for path in readable
                     if "site-packages" in path or "dist-packages" in path
                     or (_under(path, FORBIDDEN) and not _under(path, excused)))
    assert escaped == [], f"{len(escaped)} forbidden files are readable, e.g. {escaped[:15]}"
    extra, lacking = sorted(readable - files - recent), sorted(files - readable - recent)
    assert extra == [], f"{len(extra)} files readable beyond the allowlist, e.g. {extra[:15]}"
    assert lacking == [], f"{len(lacking)} allowed files are not readable, e.g. {lacking[:15]}"
    listed_extra = sorted(set(found["folders"]) - folders - _ancestors(files) - _link_folders(found))
    assert listed_extra == [], f"folders listable beyond the allowlist: {listed_extra[:15]}"
    # A symlink outside the allowed trees is one the loader follows: on the host it leads to an allowed
    # file or to a folder on the way to one.
    places = files | _ancestors(files) | _link_folders(found)
    trees = (str(_stdlib()), PACKAGES_DIR, "/bot")
    stray = sorted(where for where in found["links"]
                   if not _under(where, trees) and os.path.realpath(where) not in places)
    assert stray == [], f"symlinks leading beyond the allowlist: {stray[:15]}"


def _ancestors(paths) -> set[str]:
    result = set()
    for path in paths:
        while (path := os.path.dirname(path)) not in result and path != "/":
            result.add(path)
    return result


def _link_folders(found: dict) -> set[str]:
    """Folders that hold nothing but the links the loader follows (``/usr/lib64`` for the loader's)."""
    return _ancestors(found["links"])


def play_alone(box, race, code: bytes, limits: Limits):
    result = play_match(race, [BotSpec("reader", code), BotSpec("other", FIRST_BOT)], seed=5, limits=limits,
                        sandbox=box)
    assert result.seats[1].outcome == "ok", result.seats[1].reason
    return result.seats[0]


# ---------------------------------------------------------------------------------------------------
# As root


def test_a_bot_reads_exactly_the_allowlist(sandbox, race):
    started = time.time()
    seat = play_alone(sandbox, race, INVENTORY, GENEROUS)
    assert seat.outcome == "ok", seat.reason
    runtime_dir = getattr(sandbox, "_runtime_dir", None)
    check_inventory(inventory_of(seat.log), sandbox.cache.path_for(INVENTORY), sandbox.mode, runtime_dir,
                    started, sandbox.runtime["in_memory"])


def test_every_standard_extension_module_and_allowed_package_loads(sandbox, race):
    seat = play_alone(sandbox, race, IMPORTER, GENEROUS)
    assert seat.outcome == "ok", seat.reason
    total = len(list(Path(sysconfig.get_config_var("DESTSHARED")).glob("*.so")))
    assert "FAILED" not in seat.log, seat.log
    assert f"imported {total} of {total}" in seat.log, seat.log
    assert "checks ok" in seat.log, seat.log


# ---------------------------------------------------------------------------------------------------
# As an ordinary user (see test_unprivileged.py for how)

SCRIPT = textwrap.dedent("""
    import json, os, sys
    sys.path[:0] = [{root!r}, {here!r}, {here!r} + "/sandbox"]
    import engines
    from conftest import RaceGame
    engines.register(RaceGame())
    from bots.referee import BotSpec, Limits, play_match
    from bots.sandbox.zygote import ZygoteSandbox

    sandbox = ZygoteSandbox({cache!r}).start()
    results = {{"uid": os.geteuid(), "describe": sandbox.describe(), "seats": []}}
    for code in ({inventory!r}, {importer!r}):
        result = play_match("race", [BotSpec("reader", code), BotSpec("other", b"def act(o, l): return l[0]")],
                            seed=5, limits=Limits(**{limits!r}), sandbox=sandbox)
        results["seats"].append([result.seats[0].outcome, result.seats[0].reason, result.seats[0].log])
    sandbox.close()
    print(json.dumps(results))
""")


def test_an_ordinary_user_s_bot_reads_exactly_the_allowlist(tmp_path):
    import dataclasses

    from bots.sandbox.unpacked_code import CodeCache

    cache = tmp_path / "cache"
    script = SCRIPT.format(root=str(PROJECT_ROOT), here=str(HERE), cache=str(cache), inventory=INVENTORY,
                           importer=IMPORTER, limits=dataclasses.asdict(GENEROUS))
    started = time.time()
    results = run_as_ordinary_user(script, cwd=tmp_path, timeout=300)
    assert results["uid"] == 1000 and "no cgroups" in results["describe"]
    (inventory, reason, log), (imports, import_reason, import_log) = results["seats"]
    assert inventory == "ok", reason
    check_inventory(inventory_of(log), CodeCache(cache).path_for(INVENTORY), "zygote", None, started, False)
    assert imports == "ok", import_reason
    assert "FAILED" not in import_log and "checks ok" in import_log, import_log
