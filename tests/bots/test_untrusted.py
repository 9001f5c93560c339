"""The boundary where a bot's output becomes data: parsing is bounded and raises one typed error, text is
made storable, and the engine's action lookup raises nothing but IllegalAction whatever it is given."""

from __future__ import annotations

import pytest

import engines
from bots.untrusted import MAX_DEPTH, REASON_CHARS, UntrustedOutput, parse_line, storable_text

MAX = 1 << 20


def nested(depth: int, inner: bytes = b"1") -> bytes:
    return b'{"type":"action","action":' + b"[" * (depth - 1) + inner + b"]" * (depth - 1) + b"}"


def test_a_protocol_line_becomes_an_object():
    assert parse_line(b'{"type":"action","action":[1,{"a":2}]}', max_bytes=MAX) == {
        "type": "action", "action": [1, {"a": 2}]}
    assert parse_line(nested(MAX_DEPTH), max_bytes=MAX)["type"] == "action"


# (line, words of the reason)
REFUSED = [
    (b"[" * 200000, "nested deeper than 64 levels"),
    (nested(1000), "nested deeper than 64 levels"),
    (nested(MAX_DEPTH + 1), "nested deeper than 64 levels"),
    (b'{"type":"action","action":' + b'{"a":' * 70 + b"1" + b"}" * 70 + b"}", "nested deeper than 64 levels"),
    (b'{"type":"error","message":"\\ud800"}', "not JSON (no low surrogate in string)"),
    (b'{"type":"error","message":"\\udc00x"}', "not JSON"),
    (b'{"type":"action","action":"\xff\xfe"}', "not JSON"),
    (b'{"type":"action","action":NaN}', "not JSON"),
    (b'{"type":"action","action":1e999}', "not JSON"),
    (b"", "not JSON"),
    (b"\x00", "not JSON"),
    (b"[1, 2]", "not a JSON object"),
    (b'"ready"', "not a JSON object"),
    (b"{}", "no type"),
    (b'{"type":["ready"]}', "no type"),
    (b'{"type":null}', "no type"),
    (b'{"type":"' + b"x" * MAX + b'"}', f"answer longer than {MAX} bytes"),
]


@pytest.mark.parametrize(("line", "words"), REFUSED, ids=[words for _, words in REFUSED])
def test_anything_else_is_one_typed_error_with_a_short_storable_reason(line, words):
    with pytest.raises(UntrustedOutput) as caught:
        parse_line(line, max_bytes=MAX)
    assert words in caught.value.reason
    assert isinstance(caught.value, ValueError)
    assert len(caught.value.reason) < 300
    assert storable_text(caught.value.reason) == caught.value.reason


def test_brackets_inside_strings_are_not_nesting():
    line = b'{"type":"error","message":"' + b"[{" * 5000 + b'"}'
    assert parse_line(line, max_bytes=MAX)["message"].startswith("[{[{")


def test_depth_is_bounded_for_any_max_depth():
    assert parse_line(nested(3), max_bytes=MAX, max_depth=3)["action"] == [[1]]
    with pytest.raises(UntrustedOutput, match="nested deeper than 2 levels"):
        parse_line(nested(3), max_bytes=MAX, max_depth=2)


@pytest.mark.parametrize(("text", "stored"), [
    ("plain ascii", "plain ascii"),
    ("nul\x00here", "nul\ufffdhere"),
    ("lone \ud800 high and \udfff low", "lone \ufffd high and \ufffd low"),
    ("pair 😀 kept, é kept", "pair 😀 kept, é kept"),
    (b"bytes \xff\xfe \xc0\xaf ok \x00", "bytes \ufffd\ufffd \ufffd\ufffd ok \ufffd"),
    (b"utf-8 \xc3\xa9", "utf-8 é"),
])
def test_storable_text_replaces_nul_surrogates_and_invalid_utf8(text, stored):
    result = storable_text(text)
    assert result == stored
    result.encode("utf-8")


def test_storable_text_caps_long_text_and_says_so():
    capped = storable_text("x" * 5000 + "\ud800", limit=REASON_CHARS)
    assert len(capped) <= REASON_CHARS
    assert capped.startswith("x" * 900)
    assert capped.endswith(f"[... {5001 - (REASON_CHARS - 32)} characters cut]")
    assert storable_text("short", limit=REASON_CHARS) == "short"
    assert len(storable_text("y" * 100, limit=10)) == 10


def deep_list(depth: int) -> list:
    value: list = []
    for _ in range(depth):
        value = [value]
    return value


class Unsortable:
    """Compares like nothing else and cannot be encoded."""

    def __eq__(self, other):
        raise TypeError("no comparing me")

    __hash__ = None


@pytest.mark.parametrize("action", [
    deep_list(5000),
    {"a": deep_list(3000)},
    {1: "x", "b": 2},  # keys json cannot sort together
    {"set"},
    Unsortable(),
    float("nan"),
    "x" * 1_000_000,
    [1] * 100_000,
], ids=["deep-list", "deep-in-dict", "unsortable-keys", "set", "raising-eq", "nan", "huge-string", "long-list"])
def test_find_action_raises_only_illegal_action_with_a_short_message(action):
    legal = [[[1, 2]], {"a": [1]}, "x", 3]
    with pytest.raises(engines.IllegalAction) as caught:
        engines.find_action(legal, action)
    assert len(str(caught.value)) < 400


def test_find_action_still_finds_equal_json():
    legal = [[1, 2], {"b": 1, "a": 2}, 3]
    assert engines.find_action(legal, (1, 2)) is legal[0]
    assert engines.find_action(legal, {"a": 2, "b": 1}) is legal[1]
    with pytest.raises(engines.IllegalAction, match="illegal action true"):
        engines.find_action([1], True)
