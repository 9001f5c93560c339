"""Each game's rules document, ``docs/rules/<game>.md``, against the game's tests.

The document numbers its rules (``**KD-4.3**``) and its engine decisions (``**ED-7**`` or a table row
``| ED-7 |``). Every one of them must have a test named by it (``KD-4.3`` is ``..._kd_4_3_...`` in a test
name, ``ED-7`` is ``..._ed_7_...``), and every id a test name cites must be a rule, a decision or a section
of the document, so neither a new rule nor a renamed one goes untested unnoticed. The documents are the
repository's own: a missing one is a failure, never a skip.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

import engines

ROOT = Path(__file__).resolve().parents[2]
TESTS = Path(__file__).resolve().parent
PREFIXES = {"kingdomino": "KD", "draftosaurus": "DS", "carcassonne_dice": "CD", "dice_king": "DK"}
# Fewer ids than this means the patterns below no longer read the document, not that it shrank.
AT_LEAST = {"rules": 30, "decisions": 10}


def rules_document(game: str) -> Path:
    return ROOT / "docs" / "rules" / f"{game}.md"


def rule_ids(game: str) -> set[str]:
    return set(re.findall(rf"\*\*({PREFIXES[game]}-\d+\.\d+)\*\*", rules_document(game).read_text()))


def decision_ids(game: str) -> set[str]:
    text = rules_document(game).read_text()
    return set(re.findall(r"\*\*(ED-\d+)\b", text)) | set(re.findall(r"^\| (ED-\d+) \|", text, re.MULTILINE))


def section_numbers(game: str) -> set[str]:
    return set(re.findall(r"^#{2,3} (\d+(?:\.\d+)?)\.? ", rules_document(game).read_text(), re.MULTILINE))


def named_tests(game: str) -> set[str]:
    names = set()
    for path in (TESTS / game).glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                names.add(node.name)
    return names


def token(rule_id: str) -> str:
    return rule_id.lower().replace("-", "_").replace(".", "_")


def names_rule(name: str, rule_id: str) -> bool:
    """Whether a test name carries the id, whole: ``kd_4_3`` is in ``test_kd_4_3_x``, not in ``test_kd_4_31_x``."""
    return f"_{token(rule_id)}_" in f"_{name[len('test_'):]}_"


def test_every_game_has_its_rules_document():
    assert sorted(PREFIXES) == sorted(engines.names())
    for game in PREFIXES:
        assert rules_document(game).is_file(), f"docs/rules/{game}.md is missing"


@pytest.mark.parametrize("game", sorted(PREFIXES))
def test_the_document_numbers_its_rules_and_decisions(game):
    assert len(rule_ids(game)) >= AT_LEAST["rules"]
    assert len(decision_ids(game)) >= AT_LEAST["decisions"]


@pytest.mark.parametrize("game", sorted(PREFIXES))
def test_every_rule_and_engine_decision_of_the_document_has_a_test_named_by_it(game):
    names = named_tests(game)
    untested = sorted(rule for rule in rule_ids(game) | decision_ids(game)
                      if not any(names_rule(name, rule) for name in names))
    assert untested == []


@pytest.mark.parametrize("game", sorted(PREFIXES))
def test_every_id_a_test_name_cites_is_in_the_document(game):
    known = {token(rule) for rule in rule_ids(game) | decision_ids(game)}
    known |= {f"{PREFIXES[game].lower()}_{number.replace('.', '_')}" for number in section_numbers(game)}
    cited = re.compile(rf"(?<![a-z0-9])({PREFIXES[game].lower()}_\d+_\d+|ed_\d+)(?=_)")
    unknown = sorted({(match, name) for name in named_tests(game) for match in cited.findall(name)
                      if match not in known})
    assert unknown == []


def test_a_test_named_by_a_longer_id_does_not_count_for_a_shorter_one():
    assert names_rule("test_kd_4_3_fits", "KD-4.3")
    assert names_rule("test_cd_9_2_ed_6_nine_catapults", "ED-6")
    assert not names_rule("test_kd_4_31_fits", "KD-4.3")
    assert not names_rule("test_ed_10_cap", "ED-1")
