"""``docs/settings.md`` lists every setting the ladder reads from the environment, and only those.

What is read: every ``env.<type>("NAME", ...)`` call of ``ladder/settings.py`` and every
``os.environ.get("NAME", ...)`` of ``gunicorn.conf.py``, found by parsing the files (not by importing
them, which would read the environment of the test run), and the one variable the sandbox reads itself
(``bots`` has no settings), ``bots.sandbox.FORBIDDEN_ENV``. What is documented: the first column of the
document's settings tables (those headed ``| Variable | Default | Meaning |``), where one cell may name
several variables (``BOTS_MOVE_MS`` / ``BOTS_BANK_MS``).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from bots.sandbox import FORBIDDEN_ENV

ROOT = Path(__file__).resolve().parents[2]
SETTINGS_DOCUMENT = ROOT / "docs" / "settings.md"
SETTINGS_TABLE_HEADER = "| Variable | Default | Meaning |"


def names_read_by_settings(source: str) -> set[str]:
    """The variable names ``ladder/settings.py`` reads: ``env.int("NAME")``, ``env("NAME")`` and the like."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if not (isinstance(node, ast.Call) and node.args and isinstance(node.args[0], ast.Constant)
                and isinstance(node.args[0].value, str)):
            continue
        func = node.func
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name) and func.value.id == "env") or (
                isinstance(func, ast.Name) and func.id == "env"):
            names.add(node.args[0].value)
    return names


def names_read_from_os_environ(source: str) -> set[str]:
    """The names a file reads with ``os.environ.get("NAME", ...)`` or ``os.environ["NAME"]``."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                and ast.unparse(node.func.value) == "os.environ" and node.args
                and isinstance(node.args[0], ast.Constant)):
            names.add(node.args[0].value)
        elif (isinstance(node, ast.Subscript) and ast.unparse(node.value) == "os.environ"
              and isinstance(node.slice, ast.Constant) and isinstance(node.ctx, ast.Load)):
            names.add(node.slice.value)
    return names


def names_documented(markdown: str) -> set[str]:
    """The variables named in the first column of the settings tables (headed ``| Variable | Default |
    Meaning |``); other tables, and the text around them, name no setting."""
    names = set()
    in_settings_table = False
    for line in markdown.splitlines():
        if not line.startswith("|"):
            in_settings_table = False
            continue
        if line.strip() == SETTINGS_TABLE_HEADER:
            in_settings_table = True
            continue
        cells = line.split("|")
        if in_settings_table and line.startswith("| `") and len(cells) > 2:
            names.update(re.findall(r"`([A-Z][A-Z0-9_]*)`", cells[1]))
    return names


def settings_read() -> set[str]:
    """Every setting the project reads from the environment (the module docstring says where)."""
    read = names_read_by_settings((ROOT / "ladder" / "settings.py").read_text())
    read |= names_read_from_os_environ((ROOT / "gunicorn.conf.py").read_text())
    read.add(FORBIDDEN_ENV)
    return read


def test_every_setting_read_from_the_environment_is_documented_and_every_documented_one_is_read():
    read = settings_read()
    documented = names_documented(SETTINGS_DOCUMENT.read_text())
    assert sorted(read - documented) == [], "read but not documented in docs/settings.md"
    assert sorted(documented - read) == [], "documented in docs/settings.md but read nowhere"


def test_the_settings_parser_finds_every_form_of_read():
    source = 'env = environ.Env()\nA = env.int("A", default=1)\nB = env("B")\nC = env.json("C", default={})\nD = other("D")\n'
    assert names_read_by_settings(source) == {"A", "B", "C"}
    assert names_read_from_os_environ('import os\nx = os.environ.get("X", "1")\ny = os.environ["Y"]\n') == {"X", "Y"}


def test_the_documented_names_come_from_the_settings_tables_only():
    markdown = ("# Settings\n\n| Variable | Default | Meaning |\n|---|---|---|\n"
                "| `A_B` / `C` | `1` | see `NOT_A_SETTING` |\n\nText naming `IN_TEXT`.\n\n"
                "| Key | What it is |\n|---|---|\n| `OTHER_TABLE` | x |\n\n"
                "| Variable | Default | Meaning |\n|---|---|---|\n| `LATER` | x | y |\n")
    assert names_documented(markdown) == {"A_B", "C", "LATER"}
