"""``bots.upload_checks``: the checks of an upload that run none of its code.

``check_static``'s answer (``"py"`` or ``"zip"``) and each of its refusals with what to fix, the modules
``python_sources`` finds, ``check_compiles`` turning whatever the compiler raises into a message, and
:class:`UploadRejected` keeping its texts storable. The zip safety rules themselves (paths, bombs, links)
are in ``test_archive_paths.py`` and ``test_validate.py``.
"""

from __future__ import annotations

import io
import zipfile

import pytest

from bots.archive import ArchiveCaps
from bots.upload_checks import (
    LOG_TAIL_CHARS,
    MESSAGE_CHARS,
    UploadRejected,
    check_compiles,
    check_static,
    python_sources,
)

GOOD = b"def act(observation, legal_actions):\n    return legal_actions[0]\n"


def zip_of(files: dict[str, bytes]) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for name, content in files.items():
            archive.writestr(name, content)
    return buffer.getvalue()


def refusal(data: bytes, filename: str = "bot.py", caps: ArchiveCaps | None = None) -> str:
    with pytest.raises(UploadRejected) as caught:
        check_static(data, filename, caps) if caps else check_static(data, filename)
    return caught.value.message


def test_a_bot_file_and_a_zip_are_told_apart():
    assert check_static(GOOD, "bot.py") == "py"
    assert check_static(GOOD, "MyBot.PY") == "py"
    bundle = zip_of({"bot.py": GOOD, "helpers/util.py": b"X = 1\n", "data.bin": b"\x00\xff"})
    assert check_static(bundle, "bundle.zip") == "zip"
    assert check_static(bundle, "upload.bin") == "zip"  # recognised by its content too


def test_empty_and_oversized_uploads_are_refused():
    assert refusal(b"").startswith("the upload is empty")
    message = refusal(GOOD * 10, caps=ArchiveCaps(max_upload_bytes=len(GOOD)))
    assert message == f"the upload is {len(GOOD) * 10} bytes; at most {len(GOOD)} are allowed"


def test_a_file_that_is_neither_python_nor_zip_is_refused():
    assert refusal(GOOD, "bot.txt") == "'bot.txt' is neither a .py file nor a .zip: upload bot.py or a zip"
    assert refusal(GOOD, "") == "'' is neither a .py file nor a .zip: upload bot.py or a zip"


@pytest.mark.parametrize(("data", "message"), [
    (b"x = 1\x00\n", "bot.py is not Python source (it contains NUL bytes)"),
    (b"x = '\xff'\n", "bot.py is not Python source: not UTF-8 text (invalid start byte at byte 5)"),
])
def test_source_that_is_not_utf8_text_is_refused(data, message):
    assert refusal(data) == message


def test_a_zip_needs_bot_py_at_its_root_and_says_where_it_found_one():
    assert refusal(zip_of({"main.py": GOOD}), "b.zip") == "the zip has no bot.py at its root"
    assert refusal(zip_of({"mybot/bot.py": GOOD}), "b.zip") == (
        "the zip has no bot.py at its root (found mybot/bot.py: zip the folder's contents, not the folder)")


def test_a_damaged_zip_and_a_bad_module_inside_one_are_refused():
    assert refusal(b"PK\x03\x04 not really a zip", "b.zip").endswith(": upload bot.py or a valid zip")
    assert refusal(zip_of({"bot.py": GOOD, "lib.py": b"\xfe"}), "b.zip").startswith("lib.py is not Python source")


def test_a_zip_that_unpacks_beyond_its_cap_is_refused():
    caps = ArchiveCaps(max_unpacked_bytes=100, max_ratio=10**6)
    message = refusal(zip_of({"bot.py": GOOD, "pad.txt": b"a" * 500}), "b.zip", caps)
    assert message == f"the zip unpacks to {len(GOOD) + 500} bytes; at most 100 are allowed"


def test_python_sources_lists_every_module_with_its_text():
    assert python_sources(GOOD) == [("bot.py", GOOD.decode())]
    sources = python_sources(zip_of({"bot.py": GOOD, "pkg/a.py": "É = 1\n".encode(), "notes.md": b"#"}))
    assert sources == [("bot.py", GOOD.decode()), ("pkg/a.py", "É = 1\n")]


@pytest.mark.parametrize(("data", "message"), [
    (b"def act(:\n", "syntax error in bot.py, line 1: invalid syntax"),
    (b"x = " + b"(" * 300 + b"1" + b")" * 300 + b"\n", "syntax error in bot.py, line 1: too many nested parentheses"),
    (b"x = " + b"-" * 100_000 + b"1\n", "bot.py is nested too deeply for the Python compiler"),
])
def test_check_compiles_turns_compiler_failures_into_messages(data, message):
    with pytest.raises(UploadRejected) as caught:
        check_compiles(data)
    assert caught.value.message.startswith(message)


def test_check_compiles_names_the_module_of_a_zip():
    with pytest.raises(UploadRejected, match=r"syntax error in lib/x\.py, line 2"):
        check_compiles(zip_of({"bot.py": GOOD, "lib/x.py": b"a = 1\nif\n"}))
    check_compiles(zip_of({"bot.py": GOOD, "lib/x.py": b"a = 1\n"}))


def test_validation_errors_are_storable_and_bounded():
    error = UploadRejected("bad\x00name " + "x" * 5000, log_tail="\udcff" + "y" * 9000)
    assert "\x00" not in error.message and len(error.message) <= MESSAGE_CHARS and str(error) == error.message
    assert error.log_tail.startswith("\ufffd") and len(error.log_tail) <= LOG_TAIL_CHARS
    assert UploadRejected("short").log_tail == ""


def test_a_file_named_zip_that_is_no_zip_is_refused_not_stored_as_one():
    with pytest.raises(UploadRejected, match="named as a zip but is not a zip archive"):
        check_static(b"def act(observation):\n    return 0\n", "bot.zip")
    with pytest.raises(UploadRejected, match="not a zip archive"):
        check_static(b"not a zip at all", "BOT.ZIP")
