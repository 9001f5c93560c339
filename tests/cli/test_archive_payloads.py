"""``botladder_cli.archive``: what ``botladder upload PATH`` sends. A ``.py`` or ``.zip`` file as it is; a
folder zipped with its regular files in sorted order, paths relative to it, caches and version control
left out; refused with what to do: no ``bot.py`` at the top, a symbolic link anywhere, anything that is not
a plain file or folder, a path that does not exist."""

from __future__ import annotations

import io
import os
import zipfile

import pytest

from botladder_cli.archive import ArchiveError, folder_zip, upload_payload

BOT = b"def act(observation, legal_actions):\n    return legal_actions[0]\n"


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.fixture
def folder(tmp_path):
    root = tmp_path / "mybot"
    (root / "lib").mkdir(parents=True)
    (root / "bot.py").write_bytes(BOT)
    (root / "lib" / "helpers.py").write_bytes(b"X = 1\n")
    (root / "weights.txt").write_bytes(b"0.5\n")
    for skipped in ("__pycache__", ".git", ".venv"):
        (root / skipped).mkdir()
        (root / skipped / "junk").write_bytes(b"junk")
    (root / "lib" / "helpers.pyc").write_bytes(b"compiled")
    return root


def test_a_python_file_is_sent_as_bot_py_as_it_is(tmp_path):
    path = tmp_path / "anything.py"
    path.write_bytes(BOT)
    assert upload_payload(path) == ("bot.py", BOT)


def test_a_zip_is_sent_as_bot_zip_as_it_is(tmp_path):
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("bot.py", BOT)
    path = tmp_path / "upload.bin"
    path.write_bytes(buffer.getvalue())
    assert upload_payload(path) == ("bot.zip", buffer.getvalue())


def test_a_folder_is_zipped_in_order_without_caches_or_version_control(folder):
    name, data = upload_payload(folder)
    assert name == "bot.zip"
    assert members(data) == {"bot.py": BOT, "lib/helpers.py": b"X = 1\n", "weights.txt": b"0.5\n"}
    with zipfile.ZipFile(io.BytesIO(data)) as archive:
        assert archive.namelist() == ["bot.py", "weights.txt", "lib/helpers.py"]  # each folder's files sorted
        assert {info.compress_type for info in archive.infolist()} == {zipfile.ZIP_DEFLATED}
    assert folder_zip(folder) == data  # the same bytes every time


def test_a_folder_without_bot_py_at_its_top_is_refused(folder):
    (folder / "bot.py").rename(folder / "lib" / "bot.py")
    with pytest.raises(ArchiveError, match="no bot.py at its top"):
        upload_payload(folder)


def test_a_bot_py_that_is_a_link_is_refused(folder, tmp_path):
    (folder / "bot.py").unlink()
    (tmp_path / "real.py").write_bytes(BOT)
    (folder / "bot.py").symlink_to(tmp_path / "real.py")
    with pytest.raises(ArchiveError, match="no bot.py at its top"):
        folder_zip(folder)


@pytest.mark.parametrize("kind", ["file", "folder"])
def test_a_link_anywhere_in_the_folder_is_refused_not_followed(folder, tmp_path, kind):
    secret = tmp_path / "secret"
    if kind == "file":
        secret.write_text("private")
    else:
        secret.mkdir()
    (folder / "lib" / "link").symlink_to(secret)
    with pytest.raises(ArchiveError, match="is a symbolic link: copy what it points to"):
        upload_payload(folder)


def test_a_path_that_is_itself_a_link_is_refused(tmp_path):
    (tmp_path / "bot.py").write_bytes(BOT)
    (tmp_path / "alias.py").symlink_to(tmp_path / "bot.py")
    with pytest.raises(ArchiveError, match="is a symbolic link: give the file or folder itself"):
        upload_payload(tmp_path / "alias.py")


def test_something_that_is_not_a_plain_file_is_refused(folder):
    os.mkfifo(folder / "pipe")
    with pytest.raises(ArchiveError, match="not a regular file"):
        upload_payload(folder)


def test_a_path_that_does_not_exist_is_refused(tmp_path):
    with pytest.raises(ArchiveError, match="does not exist"):
        upload_payload(tmp_path / "missing.py")
