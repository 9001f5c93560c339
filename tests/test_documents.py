"""The repository's documents stand alone: every link in the README and ``docs/`` reaches a file of the
repository (and, with ``#anchor``, one of its headings), the README stays a short entry page, and no file
names a path outside the repository."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCUMENTS = sorted([ROOT / "README.md", *(ROOT / "docs").rglob("*.md")])
README_MAX_LINES = 200
LINK = re.compile(r"(?<!!)\[[^\]]*\]\(([^)\s]+)\)")
# Written apart so that this file does not name what it looks for.
OUTSIDE = ("../" + "shared", "shared/" + "rules", "DESIGN" + ".md")
SKIPPED_FOLDERS = {"var", "node_modules", "__pycache__"}


def prose(markdown: str) -> str:
    """The text without fenced code blocks and inline code, where brackets are no links."""
    markdown = re.sub(r"^```.*?^```", "", markdown, flags=re.MULTILINE | re.DOTALL)
    return re.sub(r"`[^`\n]*`", "", markdown)


def slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces made hyphens."""
    text = re.sub(r"`", "", heading.strip().lower())
    return re.sub(r"\s", "-", re.sub(r"[^\w\- ]", "", text))


def anchors(markdown: str) -> set[str]:
    seen: dict[str, int] = {}
    found = set()
    body = re.sub(r"^```.*?^```", "", markdown, flags=re.MULTILINE | re.DOTALL)
    for heading in re.findall(r"^#{1,6} (.+)$", body, re.MULTILINE):
        base = slug(heading)
        count = seen.get(base, 0)
        found.add(base if count == 0 else f"{base}-{count}")
        seen[base] = count + 1
    return found


def broken_links(document: Path, root: Path = ROOT) -> list[str]:
    broken = []
    for target in LINK.findall(prose(document.read_text())):
        if re.match(r"^[a-z]+:", target):
            continue  # a URL, not a file of the repository
        path, _, anchor = target.partition("#")
        linked = (document.parent / path).resolve() if path else document
        if not linked.is_relative_to(root) or not linked.exists():
            broken.append(f"{target}: no such file in the repository")
        elif anchor and linked.suffix == ".md" and anchor not in anchors(linked.read_text()):
            broken.append(f"{target}: no heading #{anchor} in {linked.relative_to(root)}")
    return broken


@pytest.mark.parametrize("document", DOCUMENTS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_link_reaches_a_file_and_heading_of_the_repository(document):
    assert broken_links(document) == []


def test_the_documents_are_there():
    names = {str(path.relative_to(ROOT)) for path in DOCUMENTS}
    assert {"README.md", "docs/architecture.md", "docs/operations.md", "docs/bots.md"} <= names
    assert {f"docs/rules/{game}.md" for game in ("kingdomino", "draftosaurus", "carcassonne_dice",
                                                  "dice_king")} <= names


def test_the_readme_is_a_short_entry_page_with_the_two_commands():
    text = (ROOT / "README.md").read_text()
    assert len(text.splitlines()) < README_MAX_LINES
    assert "make demo" in text and "make test" in text
    assert re.search(r"^## How the ladder chooses games$", text, re.MULTILINE)
    assert re.search(r"^## What the sandbox promises$", text, re.MULTILINE)


def repository_files():
    """The repository's text files, without hidden folders (``.git``, ``.venv``) or what runs create."""
    for folder, subfolders, files in os.walk(ROOT):
        subfolders[:] = [name for name in subfolders if not name.startswith(".") and name not in SKIPPED_FOLDERS]
        for name in files:
            path = Path(folder) / name
            if path.suffix in {".py", ".md", ".toml", ".txt", ".html", ".yml", ".cfg", ""}:
                yield path


def test_no_file_names_a_path_outside_the_repository():
    named = [f"{path.relative_to(ROOT)}: {needle}" for path in repository_files()
             for needle in OUTSIDE if needle in path.read_text(errors="replace")]
    assert named == []


def test_the_link_check_sees_a_missing_file_and_a_missing_heading(tmp_path):
    assert slug("Version comparisons: is my v2 better than v1?") == "version-comparisons-is-my-v2-better-than-v1"
    assert slug("Chance streams (rules version 2)") == "chance-streams-rules-version-2"
    assert anchors("# A\n## B\n## B\n```\n# not a heading\n```\n") == {"a", "b", "b-1"}
    assert LINK.findall(prose("[a](x.md) `[b](y.md)` ![c](z.png)")) == ["x.md"]
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "b.md").write_text("# B\n## Kept part\n")
    (tmp_path / "outside.md").write_text("# Outside\n")
    document = tmp_path / "docs" / "a.md"
    document.write_text("[ok](b.md#kept-part) [self](#a) [web](https://example.org) [gone](c.md)\n"
                        "[moved](b.md#lost-part) [out](../outside.md)\n# A\n")
    assert broken_links(document, root=tmp_path / "docs") == [
        "c.md: no such file in the repository", "b.md#lost-part: no heading #lost-part in b.md",
        "../outside.md: no such file in the repository"]
