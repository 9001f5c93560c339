"""The tests map the source: every source module that has logic (a function or a method) has a test
module of its name in the folder of tests that mirrors its package.

The mirror of a package is its path under ``tests/`` (``engines/kingdomino`` → ``tests/engines/kingdomino``,
``ladder/services`` → ``tests/ladder/services``), except where the tests of a layer have their own top
folder (:data:`MIRRORS`). A test module "of the name" of ``<module>.py`` is ``test_<module>.py`` or one
whose name holds ``<module>`` as a whole part between underscores (``test_kingdomino_state.py`` for
``engines/kingdomino/state.py``: basenames must be unique across the tests), anywhere under the mirror.

Left out, with the reason: packages' ``__init__.py`` files and the entry points that only call into
others (:data:`ENTRY_POINTS`), migrations (tested as migrations, ``tests/ladder/migrations``), management
commands (tested through ``call_command`` beside what they run), and the example bots (played by every
game's bot tests, ``tests/engines/<game>/test_<game>_bots.py``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("engines", "bots", "ladder", "workers", "botladder_cli")
#: Packages whose tests live in a folder of their own rather than under the package's path.
MIRRORS = {"ladder/web": "tests/web", "ladder/api": "tests/api", "botladder_cli": "tests/cli"}
#: Modules without logic of their own: they wire the others together or start them.
ENTRY_POINTS = {"ladder/asgi.py", "ladder/wsgi.py", "ladder/urls.py", "ladder/api/urls.py", "ladder/web/urls.py",
                "ladder/settings.py", "ladder/settings_test.py", "ladder/apps.py", "botladder_cli/__main__.py"}
LEFT_OUT_FOLDERS = ("ladder/migrations/", "ladder/management/commands/", "bots/examples/")


def source_modules_with_logic() -> list[str]:
    """The source modules (paths relative to the repository) that define a function or a method."""
    found = []
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            relative = path.relative_to(ROOT).as_posix()
            if (path.name == "__init__.py" or relative in ENTRY_POINTS
                    or relative.startswith(LEFT_OUT_FOLDERS)):
                continue
            tree = ast.parse(path.read_text(encoding="utf-8"))
            if any(isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) for node in ast.walk(tree)):
                found.append(relative)
    return found


def mirror_of(module: str) -> Path:
    """The folder under ``tests/`` that holds the tests of ``module``'s package."""
    package = module.rsplit("/", 1)[0]
    for source, tests in MIRRORS.items():
        if package == source or package.startswith(source + "/"):
            return ROOT / tests / package[len(source):].lstrip("/")
    return ROOT / "tests" / package


def modules_testing(module: str) -> list[Path]:
    """The test modules named after ``module`` under its mirror."""
    stem = Path(module).stem
    name = re.compile(rf"test_(?:\w+_)?{re.escape(stem)}(?:_\w+)?\.py")
    mirror = mirror_of(module)
    return [path for path in mirror.rglob("test_*.py") if name.fullmatch(path.name)] if mirror.is_dir() else []


def test_every_source_module_with_logic_has_a_test_module_of_its_name():
    missing = [f"{module} (expected under {mirror_of(module).relative_to(ROOT)})"
               for module in source_modules_with_logic() if not modules_testing(module)]
    assert not missing, "source modules without a test module of their name:\n  " + "\n  ".join(missing)


def test_the_rule_finds_modules_and_their_tests():
    """The rule itself: it sees the modules with logic and the test modules that already follow it, and a
    module's name must be a whole part of the test's name."""
    modules = source_modules_with_logic()
    assert "engines/kingdomino/state.py" in modules and "ladder/settings.py" not in modules
    assert len(modules) > 100
    assert [path.name for path in modules_testing("ladder/core/limits.py")] == ["test_limits.py"]
    assert mirror_of("ladder/api/errors.py") == ROOT / "tests/api"
    assert mirror_of("ladder/web/charts.py") == ROOT / "tests/web"
    # "elo" is not a part of "test_elopement.py", nor "state" of "test_statement.py".
    stem_rule = re.compile(r"test_(?:\w+_)?state(?:_\w+)?\.py")
    assert stem_rule.fullmatch("test_kingdomino_state.py") and not stem_rule.fullmatch("test_statement.py")


def test_test_module_names_are_unique():
    """pytest imports test modules by their basename: two of one name would not both run."""
    names = [path.name for path in (ROOT / "tests").rglob("test_*.py")]
    assert sorted({name for name in names if names.count(name) > 1}) == []
