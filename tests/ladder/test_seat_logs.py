"""The seat log codec (``ladder.seat_logs``): a log and its decision records packed once, compressed, and
unpacked exactly, whatever the text; the decisions' texts cost next to nothing beside the log they come
from."""

from __future__ import annotations

import json
import os
import zlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bots.log_capture import DecisionLog, LogBuffer
from bots.referee import SeatResult
from ladder.seat_logs import FORMAT_VERSION, SeatLogs, pack, unpack

# Any code point, lone surrogates and NUL included, and more often than chance the ones a referee's text is
# made of: U+FFFD (what invalid UTF-8, NUL and surrogates become), newlines, and multi-byte characters.
characters = st.one_of(st.characters(exclude_categories=()), st.sampled_from("\ufffd\ufffd\x00\n\n\né€😀"))
texts = st.text(characters, max_size=300)
ints = st.integers(min_value=-(2**70), max_value=2**70)


def roundtrip(log: str, decisions: list) -> SeatLogs:
    return unpack(pack(log, decisions))


@st.composite
def logs_with_decisions(draw) -> tuple[str, list[dict]]:
    """A log and records whose texts are mostly its pieces, in order, with text of their own between them
    (as a capped record's notice), some of them empty, some repeated or out of order."""
    log = draw(texts)
    cuts = sorted(draw(st.lists(st.integers(min_value=0, max_value=len(log)), max_size=12)))
    bounds = [0, *cuts, len(log)]
    decisions = []
    for start, end in zip(bounds, bounds[1:], strict=False):
        text = log[start:end]
        if draw(st.booleans()):
            text = draw(texts) + text if draw(st.booleans()) else text + draw(texts)
        decisions.append({"step": draw(ints), "ms": draw(ints), "log": text})
    if decisions and draw(st.booleans()):
        decisions.append(dict(draw(st.sampled_from(decisions))))
    return log, draw(st.permutations(decisions)) if draw(st.booleans()) else decisions


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(logs_with_decisions())
def test_a_log_and_its_decisions_come_back_exactly(case):
    log, decisions = case
    assert roundtrip(log, decisions) == SeatLogs(log, decisions)


@settings(max_examples=200, deadline=None)
@given(texts, st.lists(st.fixed_dictionaries({"step": ints, "ms": ints, "log": texts}), max_size=8))
def test_texts_unrelated_to_the_log_come_back_exactly(log, decisions):
    assert roundtrip(log, decisions) == SeatLogs(log, decisions)


odd_records = st.recursive(
    st.none() | st.booleans() | ints | st.text(characters, max_size=8),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(["step", "ms", "log", "x"]), inner,
                                                                 max_size=4),
    max_leaves=8,
)


@settings(max_examples=200, deadline=None)
@given(texts, st.lists(odd_records, max_size=5))
def test_records_of_any_other_shape_are_kept_as_they_are(log, decisions):
    assert roundtrip(log, decisions) == SeatLogs(log, decisions)


@settings(max_examples=200, deadline=None)
@given(texts, st.lists(odd_records, max_size=5))
def test_the_header_is_ascii_json_whatever_the_records_hold(log, decisions):
    value = pack(log, decisions)
    if value is None:
        return
    header, newline, _text = zlib.decompress(value[1:]).partition(b"\n")
    assert newline and header.isascii()
    assert json.loads(header)["log"] == len(log)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.data())
def test_what_the_referee_records_comes_back_exactly(data):
    """Bytes as a bot's pipe brings them (invalid UTF-8, characters split between reads, NUL), through the
    referee's own buffers under a cap, then made storable as the referee does."""
    limit = data.draw(st.integers(min_value=0, max_value=400))
    chunks = st.binary(max_size=90) | st.sampled_from([b"\xe2\x82", b"\xac\n", b"\x00", b"\xff\xfe", "é😀\n".encode()])
    whole, records = LogBuffer(limit), DecisionLog(limit)
    for chunk in data.draw(st.lists(chunks, max_size=4)):  # import and start: the whole log only
        whole.feed(chunk)
    for step in range(data.draw(st.integers(min_value=0, max_value=12))):
        records.open(step)
        for chunk in data.draw(st.lists(chunks, max_size=5)):
            whole.feed(chunk)
            records.feed(chunk)
    seat = SeatResult(bot="b", score=0, place=1, outcome="ok", reason="", time_used_ms=0, log=whole.text(),
                      decisions=records.to_json())
    assert roundtrip(seat.log, seat.decisions) == SeatLogs(seat.log, seat.decisions)


def test_nothing_printed_is_no_value_at_all():
    assert pack("", []) is None
    assert unpack(None) == SeatLogs("", [])
    assert unpack(pack("", [{"step": 0, "ms": 3, "log": ""}])) == SeatLogs("", [{"step": 0, "ms": 3, "log": ""}])


def test_the_value_names_its_format_and_another_is_refused():
    value = pack("hello\n", [{"step": 0, "ms": 1, "log": "hello\n"}])
    assert value[0] == FORMAT_VERSION == 1
    with pytest.raises(ValueError, match="format 1"):
        unpack(bytes([2]) + value[1:])
    with pytest.raises(ValueError, match="damaged"):
        unpack(value[:-3])


def _noise_lines(size: int) -> str:
    """Hex lines: text that zlib halves and no more, so that a second copy of it would show."""
    return "".join(f"{os.urandom(31).hex()}\n" for _ in range(size // 63 + 1))[:size]


def test_decisions_cut_from_the_log_cost_next_to_nothing_beside_it():
    preamble = "loading the bot\n"
    texts = [_noise_lines(3000) for _ in range(40)]
    log = preamble + "".join(texts)
    decisions = [{"step": 2 * n, "ms": n, "log": text} for n, text in enumerate(texts)]
    packed = pack(log, decisions)
    log_alone = len(zlib.compress(log.encode()))
    assert len(packed) < log_alone * 1.02 + 10 * len(decisions)
    assert unpack(packed) == SeatLogs(log, decisions)


def test_a_capped_log_and_its_capped_decisions_are_stored_about_once():
    """The referee's buffers when a bot prints the cap in every decision: the log keeps its head and tail,
    the records the first and the last decisions' text, and every record in between a notice."""
    limit = 1 << 16
    whole, records = LogBuffer(limit), DecisionLog(limit)
    whole.feed(b"loading the bot\n")
    for step in range(60):
        records.open(step)
        text = _noise_lines(limit).encode()
        whole.feed(text)
        records.feed(text)
    log, decisions = whole.text(), records.to_json()
    packed = pack(log, decisions)
    log_alone = len(zlib.compress(log.encode()))
    assert log_alone < limit * 0.6
    assert len(packed) < log_alone * 1.1 + 16 * len(decisions)
    assert unpack(packed) == SeatLogs(log, decisions)


def test_records_far_from_where_the_last_one_ended_are_found_at_a_line_start():
    """Past the search window ahead, a record's text is still found, where a line of the log starts."""
    ahead = _noise_lines(200_000)
    target = _noise_lines(5000)
    log = ahead + target
    packed = pack(log, [{"step": 0, "ms": 0, "log": target}])
    assert len(packed) < len(zlib.compress(log.encode())) * 1.02 + 32
    assert unpack(packed).decisions[0]["log"] == target
