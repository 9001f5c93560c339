"""``bots.log_capture``: a seat's whole log within its cap (:class:`LogBuffer`) and its log decision by
decision within the same cap (:class:`DecisionLog`): what is kept, what is dropped and how it is said."""

from __future__ import annotations

from bots.log_capture import DecisionLog, LogBuffer


def test_a_log_under_its_cap_is_kept_whole():
    buffer = LogBuffer(100)
    buffer.feed(b"hello ")
    buffer.feed(b"world\n")
    assert buffer.text() == "hello world\n" and buffer.dropped == 0


def test_a_long_log_keeps_its_head_and_tail_and_counts_the_middle():
    buffer = LogBuffer(10)
    buffer.feed(b"abcdefgh")
    buffer.feed(b"ijklmnopqrst")
    assert buffer.head == b"abcde" and buffer.tail == b"pqrst" and buffer.dropped == 10
    assert buffer.text() == "abcde\n[... 10 bytes of log dropped ...]\npqrst"


def test_an_odd_cap_gives_the_extra_byte_to_the_tail():
    buffer = LogBuffer(5)
    buffer.feed(b"0123456789")
    assert (len(buffer.head), len(buffer.tail), buffer.dropped) == (2, 3, 5)


def test_invalid_utf8_is_replaced():
    buffer = LogBuffer(100)
    buffer.feed(b"ok \xff\xfe end")
    assert buffer.text() == "ok \ufffd\ufffd end"


def test_decisions_under_the_cap_keep_their_own_text():
    log = DecisionLog(100)
    first = log.open(0)
    log.feed(b"one\n")
    first.ms = 12
    log.open(3)
    log.feed(b"two\n")
    log.open(5)
    assert log.to_json() == [{"step": 0, "ms": 12, "log": "one\n"}, {"step": 3, "ms": 0, "log": "two\n"},
                             {"step": 5, "ms": 0, "log": ""}]


def test_text_goes_to_the_decision_opened_last():
    log = DecisionLog(100)
    log.open(0)
    log.open(1)
    log.feed(b"late")
    assert [record["log"] for record in log.to_json()] == ["", "late"]


def test_past_the_cap_the_first_and_latest_text_is_kept_and_the_middle_says_what_it_lost():
    log = DecisionLog(20)  # 10 bytes of head, 10 of tail
    for step, text in enumerate([b"aaaaaaaa\n", b"bbbbbbbb\n", b"cccccccc\n", b"dddddddd\n"]):
        log.open(step)
        log.feed(text)
    records = log.to_json()
    assert records[0]["log"] == "aaaaaaaa\n"
    assert records[1]["log"].startswith("b\n[... 8 bytes of log dropped: the seat's log cap of 20 bytes")
    # Decision 2 kept only its last byte: its notice has no head to follow, so it starts the text.
    assert records[2]["log"].startswith("[... 8 bytes") and records[2]["log"].endswith("reached ...]\n\n")
    assert records[3]["log"] == "dddddddd\n"
    kept = sum(len(record.head) + len(record.tail) for record in log.records)
    assert kept == 20 and sum(record.dropped for record in log.records) == 16


def test_a_notice_after_a_cut_line_starts_on_a_new_line():
    log = DecisionLog(4)
    log.open(0)
    log.feed(b"abcdefgh")
    text = log.to_json()[0]["log"]
    assert text.startswith("ab\n[... 4 bytes of log dropped") and text.endswith("...]\ngh")


def test_one_huge_decision_loses_its_middle():
    log = DecisionLog(10)
    log.open(7)
    log.feed(b"x" * 1000 + b"END")
    record = log.records[0]
    assert record.dropped == 1000 + 3 - 10 and bytes(record.tail).endswith(b"END")
