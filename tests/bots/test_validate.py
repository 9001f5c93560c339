"""Upload validation: every refusal with the message the user sees, then the smoke match in the sandbox."""

from __future__ import annotations

import stat
import zipfile

import pytest

from bots.archive import ArchiveCaps, UnsafeArchive, unpack
from bots.upload_checks import check_compiles, check_static
from bots.validate import UploadRejected, random_bot_path, smoke_match, smoke_seat, validate_upload
from tests.factories import make_zip

GOOD = b"def act(observation, legal_actions):\n    return legal_actions[0]\n"


def symlink_member(name: str, target: str) -> tuple[zipfile.ZipInfo, bytes]:
    info = zipfile.ZipInfo(name)
    info.external_attr = (stat.S_IFLNK | 0o777) << 16
    return info, target.encode()


def refusal(data: bytes, filename: str = "bot.zip", caps: ArchiveCaps | None = None) -> str:
    with pytest.raises(UploadRejected) as caught:
        if caps is None:
            check_static(data, filename)
        else:
            check_static(data, filename, caps)
    return caught.value.message


@pytest.mark.parametrize(("data", "filename", "message"), [
    (b"", "bot.py", "the upload is empty: send a bot.py file or a zip with bot.py at its root"),
    (GOOD, "bot.txt", "'bot.txt' is neither a .py file nor a .zip: upload bot.py or a zip"),
    (b"\x7fELF\x02\x01\x01\x00\x00\x00", "bot.py", "bot.py is not Python source (it contains NUL bytes)"),
    (b"caf\xe9 = 1\n", "bot.py",
     "bot.py is not Python source: not UTF-8 text (invalid continuation byte at byte 3)"),
    (b"PK\x03\x04 this is no zip", "bot.zip",
     "not a readable zip file (File is not a zip file): upload bot.py or a valid zip"),
])
def test_single_file_and_format_refusals(data, filename, message):
    assert refusal(data, filename) == message


def test_accepts_a_bot_file_and_a_zip_with_helpers():
    assert check_static(GOOD, "bot.py") == "py"
    packaged = make_zip({"bot.py": b"from helper import act\n", "helper.py": GOOD, "data/weights.txt": b"1 2 3"})
    assert check_static(packaged, "mybot.zip") == "zip"


def test_too_large_upload():
    assert refusal(GOOD, "bot.py", ArchiveCaps(max_upload_bytes=10)) == (
        f"the upload is {len(GOOD)} bytes; at most 10 are allowed")


def test_too_large_once_unpacked():
    data = make_zip({"bot.py": GOOD, "data.bin": b"x" * 5000})
    assert refusal(data, caps=ArchiveCaps(max_unpacked_bytes=4000)) == (
        f"the zip unpacks to {len(GOOD) + 5000} bytes; at most 4000 are allowed")


def test_too_many_files():
    members = {"bot.py": GOOD, **{f"f{i}.txt": b"" for i in range(10)}}
    assert refusal(make_zip(members), caps=ArchiveCaps(max_files=5)) == (
        "the zip holds 11 files; at most 5 are allowed")


def test_folders_too_deep():
    deep = "/".join("abcdefghi") + "/x.py"
    assert refusal(make_zip({"bot.py": GOOD, deep: GOOD})) == (
        f"{deep!r}: folders may be nested at most 8 deep")


def test_absolute_path():
    assert refusal(make_zip({"bot.py": GOOD, "/etc/cron.d/evil": b"x"})) == (
        "'/etc/cron.d/evil': absolute paths are not allowed in the zip")


def test_parent_folder_escape():
    assert refusal(make_zip({"bot.py": GOOD, "../../evil.py": GOOD})) == (
        "'../../evil.py': '..' is not allowed in zip paths")


def test_symlink():
    data = make_zip([("bot.py", GOOD), symlink_member("settings.py", "/etc/passwd")])
    assert refusal(data) == "'settings.py': symbolic links are not allowed in the zip"


def test_zip_bomb_by_ratio():
    data = make_zip({"bot.py": GOOD, "bomb.bin": b"\0" * (10 * 1024 * 1024)})
    assert len(data) < 100_000
    assert refusal(data).startswith("'bomb.bin' expands ")
    assert refusal(data).endswith(" times: this looks like a zip bomb")


def test_zip_whose_declared_sizes_lie_is_refused():
    """A member that claims to be tiny but inflates to more is never inflated past its claim: refused."""
    data = bytearray(make_zip({"bot.py": GOOD, "payload.bin": b"\0" * 200_000}))
    # Patch the declared uncompressed size of payload.bin (local header and central directory) to 10.
    for signature, offset in ((b"PK\x03\x04", 22), (b"PK\x01\x02", 24)):
        start = 0
        while (start := data.find(signature, start)) >= 0:
            name_at = start + (30 if signature == b"PK\x03\x04" else 46)
            if data[name_at:name_at + 11] == b"payload.bin":
                data[start + offset:start + offset + 4] = (10).to_bytes(4, "little")
            start += 4
    assert refusal(bytes(data), caps=ArchiveCaps(max_unpacked_bytes=100_000)) == (
        "'payload.bin' cannot be read from the zip: Bad CRC-32 for file 'payload.bin'")


def test_zip_without_bot_py_at_its_root():
    assert refusal(make_zip({"main.py": GOOD})) == "the zip has no bot.py at its root"
    assert refusal(make_zip({"mybot/bot.py": GOOD})) == (
        "the zip has no bot.py at its root (found mybot/bot.py: zip the folder's contents, not the folder)")


def compile_refusal(data: bytes) -> str:
    with pytest.raises(UploadRejected) as caught:
        check_compiles(data)
    return caught.value.message


def test_the_static_checks_compile_nothing():
    assert check_static(b"def act(o, l)\n    return l[0]\n", "bot.py") == "py"
    assert check_static(b"x = " + b"-" * 100_000 + b"1\n", "bot.py") == "py"


@pytest.mark.parametrize(("data", "message"), [
    (b"def act(o, l)\n    return l[0]\n", "syntax error in bot.py, line 1: expected ':'"),
    (make_zip({"bot.py": GOOD, "lib/helper.py": b"def broken(:\n"}), "syntax error in lib/helper.py, line 1: "),
    (b"x = " + b"(" * 1000 + b"1" + b")" * 1000 + b"\n", "syntax error in bot.py, line 1: too many nested"),
    # What the compiler raises instead of a SyntaxError, as a message too.
    (b"x = " + b"-" * 1_000_000 + b"1\n", "bot.py is nested too deeply for the Python compiler"),
    (b"x = 1" + b" + 1" * 200_000 + b"\n", "bot.py is nested too deeply for the Python compiler"),
    (b"s = '\\N{no such character}'\n", "syntax error in bot.py, line 1: "),
])
def test_the_compile_check_turns_whatever_the_compiler_raises_into_a_message(data, message):
    assert compile_refusal(data).startswith(message)
    assert check_compiles(GOOD) is None


def test_unpacking_repeats_the_checks(tmp_path):
    with pytest.raises(UnsafeArchive, match="'..' is not allowed"):
        unpack(make_zip({"bot.py": GOOD, "../x.py": GOOD}), tmp_path)
    assert not (tmp_path.parent / "x.py").exists()


# The smoke match runs in the real sandbox against the game's random bot.

def test_smoke_match_accepts_a_bot_that_plays(isolated):
    game = "kingdomino"
    validated = validate_upload(random_bot_path(game).read_bytes(), "bot.py", game=game)
    assert validated.kind == "py"
    assert validated.message.startswith("smoke match against the random bot: finished in ")
    assert len(validated.sha256) == 64 and validated.size == len(validated.code)


def test_smoke_match_refuses_a_bot_that_cannot_play_with_its_log(isolated):
    broken = (b"def act(observation, legal_actions):\n"
              b"    print('thinking about', len(legal_actions), 'actions')\n"
              b"    return {'surely': 'legal'}\n")
    with pytest.raises(UploadRejected) as caught:
        validate_upload(broken, "bot.py", game="kingdomino")
    assert caught.value.message.startswith(
        "the smoke match against the random bot failed: illegal_action: illegal action {\"surely\":\"legal\"}")
    assert "thinking about" in caught.value.log_tail


def test_smoke_match_refuses_a_bot_that_crashes(isolated):
    crashing = b"import json\ndef act(observation, legal_actions):\n    return 1 / 0\n"
    with pytest.raises(UploadRejected) as caught:
        validate_upload(crashing, "bot.py", game="kingdomino")
    assert caught.value.message == ("the smoke match against the random bot failed: crash: the bot raised "
                                    "ZeroDivisionError: division by zero")
    assert "Traceback" in caught.value.log_tail


@pytest.mark.parametrize("seat", [0, 2])
def test_the_upload_plays_the_seat_it_was_given_among_random_bots(isolated, seat):
    # It says which seat it was told, and fails: the failure is read from its seat, the others' are random bots.
    teller = (b"class Bot:\n"
              b"    def __init__(self, game, seat, players, options):\n"
              b"        self.told = (seat, players, options)\n"
              b"    def act(self, observation, legal_actions):\n"
              b"        raise RuntimeError(repr(self.told))\n")
    with pytest.raises(UploadRejected) as caught:
        smoke_match(teller, game="kingdomino", players=3, options={"harmony": True}, seat=seat)
    assert f"RuntimeError: ({seat}, 3, {{" in caught.value.message and "'harmony': True" in caught.value.message


def test_the_seat_is_drawn_among_all_of_them():
    assert {smoke_seat(3) for _ in range(200)} == {0, 1, 2}


def test_smoke_match_needs_the_games_random_bot():
    with pytest.raises(UploadRejected, match="no random bot for 'chess'"):
        validate_upload(GOOD, "bot.py", game="chess")


def test_refusals_are_storable_whatever_they_quote():
    """A refusal goes into a JSON response as it is: NUL, lone surrogates and overlong text are made safe."""
    refusal = UploadRejected("bad name 'a\ud800\x00b' " + "x" * 10000, log_tail="log \udfff\x00 " * 1000)
    assert refusal.message.startswith("bad name 'a\ufffd\ufffdb' ")
    assert len(refusal.message) <= 2000 and len(refusal.log_tail) <= 4000
    (refusal.message + refusal.log_tail).encode("utf-8")
    assert "\x00" not in refusal.message + refusal.log_tail


@pytest.mark.parametrize(("members", "message"), [
    pytest.param({".": b"x"}, "'.': '.' is not allowed in zip paths", id="dot"),
    pytest.param({"x": b"1", "x/y.py": b""}, "'x' is a file and also a folder (of 'x/y.py')", id="file-and-folder"),
])
def test_the_whole_check_refuses_a_zip_that_is_not_one_tree_before_running_it(isolated, members, message):
    # Before, the static checks passed it, and the smoke match's unpacking raised IsADirectoryError or
    # FileExistsError out of validate_upload.
    with pytest.raises(UploadRejected) as caught:
        validate_upload(make_zip({"bot.py": GOOD, **members}), "bot.zip", game="kingdomino")
    assert message in caught.value.message
