"""Every member of an uploaded zip is checked as a path before anything is stored: what the workers unpack is
exactly the files the zip names, each inside the bot's folder, or the upload is refused at once with what to
fix. A zip with a member ``.``, or a file that is also a folder, used to pass these checks and then made the
worker's unpacking raise (IsADirectoryError, FileExistsError), leaving the version pending for good."""

from __future__ import annotations

import io
import os
import stat
import unicodedata
import warnings
import zipfile
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.archive import UnsafeArchive, unpack
from bots.sandbox.unpacked_code import CodeCache
from bots.upload_checks import UploadRejected, check_static

GOOD = b"def act(observation, legal_actions):\n    return legal_actions[0]\n"


def zip_of(names: list[str]) -> bytes:
    """A zip of ``bot.py`` and a member for each name, each written as named (a name ending in ``/`` is a
    folder entry), duplicates included."""
    buffer = io.BytesIO()
    # Duplicates are deliberate: zipfile warns and writes them.
    with warnings.catch_warnings(), zipfile.ZipFile(buffer, "w") as archive:
        warnings.simplefilter("ignore", UserWarning)
        for name in ["bot.py", *names]:
            # As zipfile does with the name, so that the file holds the name it is stored under.
            name = name.split("\x00", 1)[0]
            info = zipfile.ZipInfo(name)
            info.external_attr = ((stat.S_IFDIR | 0o755) if name.endswith("/") else (stat.S_IFREG | 0o644)) << 16
            # Each file holds its own name, so that a test can tell which member a file on disk came from.
            archive.writestr(info, b"" if name.endswith("/") else (GOOD if name == "bot.py" else name.encode()))
    return buffer.getvalue()


def refusal(names: list[str]) -> str:
    with pytest.raises(UploadRejected) as caught:
        check_static(zip_of(names), "bot.zip")
    return caught.value.message


# (members besides bot.py, the refusal): what no unpacking could write as files inside the bot's folder.
# Each of the first ones passed check_static before, then raised out of the workers' unpacking.
UNPACKABLE = [
    pytest.param(["."], "'.': '.' is not allowed in zip paths", id="dot"),
    pytest.param(["x", "x/y.py"], "'x' is a file and also a folder (of 'x/y.py'): rename one", id="file-then-folder"),
    pytest.param(["x/y.py", "x"], "'x' is a file and also a folder (of 'x/y.py'): rename one", id="folder-then-file"),
    pytest.param([""], "a zip member has an empty name: build the zip again with your zip tool", id="empty-name"),
    pytest.param(["a" * 256 + ".py"], "a file or folder name may be at most 255 bytes long", id="name-too-long"),
    # Refused before as now: kept here so that the table lists every rule.
    pytest.param(["../x.py"], "'../x.py': '..' is not allowed in zip paths", id="dotdot"),
    pytest.param(["/etc/x.py"], "'/etc/x.py': absolute paths are not allowed in the zip", id="absolute"),
    pytest.param(["C:/x.py"], "'C:/x.py': absolute paths are not allowed in the zip", id="drive-letter"),
    pytest.param(["pkg\\x.py"], "'pkg\\\\x.py': file names may not contain backslashes", id="backslash"),
]
# Names that unpack, but not to one tree that is the same on every system, or that a terminal would
# interpret: refused for uploads, while code stored before the rules still unpacks as it always did.
AMBIGUOUS = [
    pytest.param(["./"], "'./': '.' is not allowed in zip paths", id="dot-folder"),
    pytest.param(["./helper.py"], "'./helper.py': '.' is not allowed in zip paths", id="dot-prefix"),
    pytest.param(["pkg/./helper.py"], "'pkg/./helper.py': '.' is not allowed in zip paths", id="dot-inside"),
    pytest.param(["pkg//helper.py"], "'pkg//helper.py': empty folder names ('//') are not allowed in zip paths",
                 id="double-slash"),
    pytest.param(["x/", "x"], "'x' is a file and also a folder (of 'x/'): rename one", id="folder-entry-and-file"),
    pytest.param(["bot.py/"], "'bot.py' is a file and also a folder (of 'bot.py/'): rename one",
                 id="bot-py-folder"),
    pytest.param(["bot.py"], "'bot.py' is in the zip twice: keep one", id="duplicate"),
    pytest.param(["pkg/", "pkg/"], "'pkg/' is in the zip twice: keep one", id="duplicate-folder"),
    pytest.param(["Bot.py"], "'bot.py' and 'Bot.py' differ only in case or Unicode normalisation: they would be "
                             "one file on some systems; rename one", id="case"),
    pytest.param(["Pkg/a.py", "pkg/b.py"], "'Pkg' and 'pkg' differ only in case or Unicode normalisation",
                 id="folder-case"),
    pytest.param(["caf\u00e9.py", "cafe\u0301.py"], "differ only in case or Unicode normalisation",
                 id="unicode-normalisation"),
    pytest.param(["a\x1b[31m.py"], "'a\\x1b[31m.py': file names may hold printable characters only",
                 id="escape-in-name"),
    pytest.param(["a\u202e.py"], "'a\\u202e.py': file names may hold printable characters only", id="bidi-override"),
]


@pytest.mark.parametrize(("names", "message"), UNPACKABLE + AMBIGUOUS)
def test_a_member_that_is_not_a_plain_relative_path_is_refused_with_what_to_fix(names, message):
    assert message in refusal(names)


@pytest.mark.parametrize(("names", "message"), UNPACKABLE)
def test_unpacking_refuses_what_cannot_be_written_inside_the_folder_for_bytes_that_never_passed_the_checks(
        tmp_path, names, message):
    # A version stored by an older release reaches the workers without today's checks.
    with pytest.raises(UnsafeArchive) as caught:
        unpack(zip_of(names), tmp_path)
    assert message in str(caught.value)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("names", "message"), AMBIGUOUS)
def test_code_stored_before_the_rules_still_unpacks_as_it_did(tmp_path, names, message):
    # Some of it was accepted and plays: refusing it now would fail its every match.
    code = zip_of(names)
    unpacked_before(code, tmp_path / "before")
    (tmp_path / "now").mkdir()
    unpack(code, tmp_path / "now")
    assert tree(tmp_path / "now") == tree(tmp_path / "before")


def unpacked_before(code: bytes, dest: Path) -> None:
    """What releases before the path checks unpacked (their rules, kept here to hold :func:`unpack` to
    them): raises for what they refused or failed on."""
    dest.mkdir()
    with zipfile.ZipFile(io.BytesIO(code)) as archive:
        files = [info for info in archive.infolist() if not info.is_dir()]
        for info in archive.infolist():
            name, parts = info.filename, PurePosixPath(info.filename).parts
            if ("\\" in name or "\x00" in name or name.startswith("/") or (len(name) > 1 and name[1] == ":")
                    or ".." in parts or len(parts) > 8):
                raise ValueError(name)
        for info in files:
            target = dest.joinpath(*PurePosixPath(info.filename).parts)
            target.parent.mkdir(parents=True, exist_ok=True)
            with archive.open(info) as source, open(target, "wb") as sink:
                sink.write(source.read())


def tree(folder: Path) -> dict[str, bytes]:
    """Every file under ``folder`` by its relative path, with its bytes (bytecode left out)."""
    found = {}
    for dirpath, _dirnames, filenames in os.walk(folder):
        for filename in filenames:
            path = Path(dirpath, filename)
            assert not path.is_symlink()
            relative = path.relative_to(folder).as_posix()
            if not (relative.endswith(".pyc") and "__pycache__" in relative.split("/")):
                found[relative] = path.read_bytes()
    return found


def test_folder_entries_and_nested_files_are_fine(tmp_path):
    code = zip_of(["pkg/", "pkg/helper.py", "pkg/sub/", "pkg/sub/deep.py", "data/weights.txt", "README"])
    assert check_static(code, "bot.zip") == "zip"
    unpack(code, tmp_path)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in tmp_path.rglob("*") if p.is_file()) == [
        "README", "bot.py", "data/weights.txt", "pkg/helper.py", "pkg/sub/deep.py"]


# --- Hostile names, generated ----------------------------------------------------------------------------

# Paths of a few components, most of them plain and alike, so that members often collide (a file that is also
# a folder, one name twice, spellings that differ in case or normalisation) or are accepted and unpacked.
_COMPONENTS = ["a", "a", "x", "x", "b.py", "bot.py", "A", "Bot.py", "\u00e9", "e\u0301", "\u00df", "ss", "__pycache__",
               ".", "..", "", " ", "a" * 200]
_paths = st.builds(lambda parts, folder: "/".join(parts) + ("/" if folder else ""),
                   st.lists(st.sampled_from(_COMPONENTS), min_size=1, max_size=4), st.booleans())
# Raw names made of the characters other systems or a terminal treat specially.
_PIECES = ["/", ".", "..", "\\", ":", "C:", "a", "A", "bot.py", "x", "\x00", "\x1b", "\r", "\n", "\x85", "\u202e",
           "\u2028", "\t", "\u00e9", "a" * 120]
_raw = st.lists(st.sampled_from(_PIECES), min_size=0, max_size=6).map("".join)
_names = st.one_of(_paths, _paths, _raw)


def _expected_files(names: list[str]) -> dict[str, bytes]:
    """What an accepted zip must unpack to: one file per file member, holding what the member holds (zipfile
    cuts a name at a NUL when writing, as it does when reading)."""
    files = {"bot.py": GOOD}
    for name in (name.split("\x00", 1)[0] for name in names):
        if not name.endswith("/"):
            files[name] = GOOD if name == "bot.py" else name.encode()
    return files


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(_names, min_size=1, max_size=5))
def test_hostile_member_names_are_refused_clearly_or_unpack_exactly_inside_the_folder(tmp_path_factory, names):
    code = zip_of(names)
    try:
        check_static(code, "bot.zip")
    except UploadRejected as exc:
        # A clear refusal: one line, nothing a terminal or a page would interpret.
        assert exc.message and exc.message.isprintable(), exc.message
        return
    cache = CodeCache(tmp_path_factory.mktemp("cache"))
    found = tree(cache.path_for(code))  # unpacked and precompiled, as a worker does before the smoke match
    assert found == _expected_files(names)
    # Accepted names are canonical: no two of them are one file on a system that folds case.
    folded = {unicodedata.normalize("NFC", name).casefold() for name in found}
    assert len(folded) == len(found)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(names=st.lists(_names, min_size=1, max_size=5))
def test_unpacking_stored_code_refuses_cleanly_and_keeps_everything_that_unpacked_before(tmp_path_factory, names):
    code = zip_of(names)
    folder = tmp_path_factory.mktemp("unpack")
    (folder / "now").mkdir()
    try:
        unpacked_before(code, folder / "before")
    except (ValueError, OSError, IndexError):
        before = None  # refused, or failed half-way: nothing of it was ever accepted
    else:
        before = tree(folder / "before")
    try:
        unpack(code, folder / "now")
    except UnsafeArchive as exc:
        assert before is None, f"unpacked before, refused now: {exc}"
        return
    assert before is None or tree(folder / "now") == before


# --- Damaged zips, generated ---------------------------------------------------------------------------

def _damaged(data: bytes, edits: list[tuple[int, int, bytes]]) -> bytes:
    """``data`` with each edit applied: at a position (taken modulo the length), so many bytes replaced by
    the given ones."""
    damaged = bytearray(data)
    for position, length, replacement in edits:
        at = position % max(len(damaged), 1)
        damaged[at:at + length] = replacement
    return bytes(damaged)


_GOOD_ZIP = zip_of(["pkg/", "pkg/helper.py", "data.txt"])
_edits = st.lists(st.tuples(st.integers(0, len(_GOOD_ZIP)), st.integers(0, 8), st.binary(max_size=8)),
                  min_size=1, max_size=4)


@settings(max_examples=500, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=_edits)
def test_a_damaged_zip_is_refused_with_a_message_by_the_checks_and_by_unpacking(tmp_path_factory, edits):
    # zipfile and zlib raise a dozen kinds of exception for damaged bytes; each was a 500 for an upload,
    # or a traceback out of a worker's unpacking.
    code = _damaged(_GOOD_ZIP, edits)
    try:
        check_static(code, "bot.zip")
    except UploadRejected as exc:
        assert exc.message
    try:
        unpack(code, tmp_path_factory.mktemp("unpack"))
    except UnsafeArchive as exc:
        assert str(exc)
