"""``docs/architecture.md`` names every model, management command, Celery task and setting that exists.

Named means written as code (in an inline code span or a fenced code block), so that prose that happens to
use the word does not count. What exists:

* models: every concrete model of the ``ladder`` app, as Django lists them (``django.apps``);
* commands: every module of ``ladder/management/commands`` (the ``manage.py`` command of its name);
* tasks: every task name registered on the Celery app (``workers.app``, whose tasks ``workers/tasks.py``
  defines with explicit names) and every task the beat schedule of ``ladder/settings.py`` sends, read from
  the source so that a schedule entry switched off by the environment still counts;
* settings: too many to list twice, so the architecture links the settings reference, ``docs/settings.md``,
  and that reference's settings tables must name every setting the project reads from the environment
  (the same list ``tests/ladder/test_settings_documented.py`` holds it to).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from django.apps import apps

from tests.ladder.test_settings_documented import names_documented, settings_read
from tests.test_documents import LINK, prose

ROOT = Path(__file__).resolve().parents[1]
ARCHITECTURE = ROOT / "docs" / "architecture.md"
SETTINGS_REFERENCE = ROOT / "docs" / "settings.md"
FENCE = re.compile(r"^```[^\n]*\n(.*?)^```", re.MULTILINE | re.DOTALL)
CODE_SPAN = re.compile(r"`([^`\n]+)`")
NAME = re.compile(r"[A-Za-z_][\w.]*")


def code_names(markdown: str) -> set[str]:
    """Every dotted name written as code in ``markdown``, and each of its dotted parts: `Match.actions`
    names ``Match.actions``, ``Match`` and ``actions``."""
    code = FENCE.findall(markdown)
    code += CODE_SPAN.findall(FENCE.sub("", markdown))
    names = set()
    for text in code:
        for name in NAME.findall(text):
            name = name.strip(".")
            names.add(name)
            names.update(name.split("."))
    return names


def models() -> set[str]:
    return {model.__name__ for model in apps.get_app_config("ladder").get_models()
            if not model._meta.proxy and not model._meta.abstract}


def commands() -> set[str]:
    return {path.stem for path in (ROOT / "ladder" / "management" / "commands").glob("*.py")
            if not path.name.startswith("_")}


def beat_tasks(source: str) -> set[str]:
    """The task names of the beat schedule's entries in the settings' source: every ``"task": "NAME"``."""
    names = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            for key, value in zip(node.keys, node.values, strict=True):
                if (isinstance(key, ast.Constant) and key.value == "task" and isinstance(value, ast.Constant)
                        and isinstance(value.value, str)):
                    names.add(value.value)
    return names


def tasks() -> set[str]:
    import workers.tasks  # noqa: F401 - defines the tasks on the app
    from workers.app import app

    registered = {name for name in app.tasks if not name.startswith("celery.")}
    return registered | beat_tasks((ROOT / "ladder" / "settings.py").read_text())


def unnamed(markdown: str, names: set[str]) -> list[str]:
    """The ``names`` that ``markdown`` does not write as code."""
    return sorted(names - code_names(markdown))


def links(markdown: str) -> set[str]:
    """The files ``markdown`` links to (anchors dropped)."""
    return {target.partition("#")[0] for target in LINK.findall(prose(markdown))}


def test_every_model_is_named():
    found = models()
    assert {"Match", "Seat", "MatchSetup", "ApiToken"} <= found, "the models are not what Django lists"
    assert unnamed(ARCHITECTURE.read_text(), found) == []


def test_every_management_command_is_named():
    found = commands()
    assert {"bench", "prune_logs", "rebuild_ratings"} <= found
    assert unnamed(ARCHITECTURE.read_text(), found) == []


def test_every_task_is_named():
    found = tasks()
    assert {"ladder.run_match", "ladder.reconcile", "ladder.collusion_screen"} <= found
    assert unnamed(ARCHITECTURE.read_text(), found) == []


def test_every_setting_is_named_by_the_settings_reference_the_architecture_links():
    assert "settings.md" in links(ARCHITECTURE.read_text())
    read = settings_read()
    assert {"DATABASE_URL", "WEB_CONCURRENCY", "BOTS_SANDBOX_FORBIDDEN"} <= read
    assert sorted(read - names_documented(SETTINGS_REFERENCE.read_text())) == []


def test_a_name_written_only_in_prose_or_missing_counts_as_unnamed():
    markdown = ("A Match is played.\n\n`PairRecord` rows, `Match.actions_packed` and `ladder.run_match`.\n\n"
                "```\nmanagement/commands/  bench, prune_logs\n```\n")
    assert code_names(markdown) >= {"PairRecord", "Match", "actions_packed", "ladder.run_match", "bench",
                                    "prune_logs"}
    assert unnamed(markdown, {"Match", "Seat", "bench", "sync_games", "ladder.run_match",
                              "ladder.run_matches"}) == ["Seat", "ladder.run_matches", "sync_games"]
    assert unnamed("The Seat of a match.\n", {"Seat"}) == ["Seat"]
    settings_source = ('SCHEDULE = {"a": {"task": "ladder.one", "schedule": 5}}\n'
                       'if X:\n    SCHEDULE["b"] = {"task": "ladder.two", "schedule": X}\n')
    assert beat_tasks(settings_source) == {"ladder.one", "ladder.two"}
    assert links("See [settings.md](settings.md#sandbox-limits) and `[x](y.md)`.\n") == {"settings.md"}
