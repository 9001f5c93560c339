"""The rule-to-test checklist: every rule id and engine decision of the rules file has a test named by it.

Test names carry the id: ``DS-8.1`` becomes ``test_ds_8_1_...`` and ``ED-14`` becomes ``test_ed_14_...``.
The ids of the rules file, ``docs/rules/draftosaurus.md``, are compared with the list below, so a new rule
cannot go untested unnoticed.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

RULE_IDS = (
    [f"DS-1.{n}" for n in range(1, 5)] + [f"DS-2.{n}" for n in range(1, 4)] + [f"DS-3.{n}" for n in range(1, 6)]
    + [f"DS-4.{n}" for n in range(1, 6)] + [f"DS-5.{n}" for n in range(1, 5)] + [f"DS-6.{n}" for n in range(1, 6)]
    + ["DS-7.1", "DS-7.2"] + [f"DS-8.{n}" for n in range(1, 7)] + [f"DS-9.{n}" for n in range(1, 7)]
    + [f"DS-10.{n}" for n in range(1, 5)] + [f"ED-{n}" for n in range(1, 21)]
)
MODULES = ["test_draftosaurus_setup", "test_draftosaurus_turns", "test_draftosaurus_placement",
           "test_draftosaurus_scoring", "test_draftosaurus_information"]
RULES_FILE = Path(__file__).resolve().parents[3] / "docs" / "rules" / "draftosaurus.md"


def collected_test_names():
    names = []
    for module in MODULES:
        names.extend(name for name in vars(importlib.import_module(module)) if name.startswith("test_"))
    return names


def prefix(rule_id: str) -> str:
    return "test_" + rule_id.lower().replace("-", "_").replace(".", "_") + "_"


def test_every_rule_and_decision_has_a_test():
    names = collected_test_names()
    missing = [rule for rule in RULE_IDS if not any(name.startswith(prefix(rule)) for name in names)]
    assert missing == []


def test_section_7_tables_and_worked_examples_have_tests():
    names = collected_test_names()
    assert any(name.startswith("test_ds_7_face_table") for name in names)
    for example in "abc":
        assert any(name.startswith(f"test_example_{example}_") for name in names)


def test_rule_list_matches_the_rules_file():
    ids = re.findall(r"\*\*((?:DS-\d+\.\d+)|(?:ED-\d+))", RULES_FILE.read_text())
    assert sorted(set(ids)) == sorted(RULE_IDS)
