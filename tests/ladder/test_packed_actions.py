"""The packed actions of a finished match (``ladder.packed_actions``): what ``pack`` gives back through
``unpack`` unchanged, its format (a version byte, then zlib of the compact JSON), no value for no actions, and
the refusal of values of another format. Pure tests: no database."""

from __future__ import annotations

import json
import zlib

import pytest

from ladder.packed_actions import FORMAT_VERSION, pack, unpack

KINGDOMINO_LIKE = [{"pick": i % 4, "place": [i % 9, (i * 7) % 9, "n" if i % 2 else "e"]} for i in range(48)]


@pytest.mark.parametrize(
    "actions",
    [
        KINGDOMINO_LIKE,
        [1, 2.5, None, True, "x"],
        [["nested", ["deeper", {"k": [1, {"v": None}]}]]],
        ["é ü 漢字 🎲", {"ключ": "значение"}],
        [{"big": 2**62, "neg": -(2**62), "tiny": 1e-300}],
        # What the fast encoder refuses goes through json: integers past 64 bits, lone surrogates.
        [2**70, -(2**70)],
        ["a lone \ud800 surrogate"],
    ],
)
def test_unpack_gives_back_exactly_what_pack_was_given(actions):
    assert unpack(pack(actions)) == actions


def test_the_format_is_a_version_byte_then_zlib_of_compact_json():
    value = pack([{"a": 1}, [2, 3]])
    assert value[0] == FORMAT_VERSION == 1
    assert zlib.decompress(value[1:]) == b'[{"a":1},[2,3]]'


def test_the_json_is_the_same_compact_json_whichever_encoder_wrote_it():
    for actions in (KINGDOMINO_LIKE, ["é ü 漢字 🎲", {"ключ": 1.5}], [2**70]):
        compact = json.dumps(actions, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        assert zlib.decompress(pack(actions)[1:]) == compact


def test_non_ascii_text_is_stored_as_utf8_not_escapes():
    value = pack(["é"])
    assert zlib.decompress(value[1:]).decode("utf-8") == '["é"]'


def test_repetitive_actions_take_a_fraction_of_their_json():
    value = pack(KINGDOMINO_LIKE)
    assert len(value) * 3 < len(json.dumps(KINGDOMINO_LIKE, separators=(",", ":")))


def test_any_sequence_of_actions_is_packed_as_a_list():
    assert unpack(pack((1, 2, 3))) == [1, 2, 3]


@pytest.mark.parametrize("nothing", [[], ()])
def test_no_actions_pack_to_no_value_and_no_value_unpacks_to_no_actions(nothing):
    assert pack(nothing) is None
    assert unpack(None) == []


def test_unpack_reads_a_memoryview_as_the_database_driver_returns_it():
    assert unpack(memoryview(pack(["a", "b"]))) == ["a", "b"]


@pytest.mark.parametrize("value", [b"", b"\x02" + zlib.compress(b"[]"), b"[1,2]"])
def test_unpack_refuses_values_of_an_unknown_version(value):
    with pytest.raises(ValueError, match="not packed actions of a known version"):
        unpack(value)


def test_unpack_refuses_a_corrupt_stream():
    with pytest.raises(zlib.error):
        unpack(bytes([FORMAT_VERSION]) + b"not zlib")
