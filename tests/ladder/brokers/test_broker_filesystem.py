"""The embedded default's broker (``ladder.brokers.filesystem.Transport``, Kombu's filesystem transport): a message is
never seen half-written, and a message file that cannot be read costs that message only, never the worker.
"""

from __future__ import annotations

import threading

import pytest
from kombu import Connection

from ladder.brokers.filesystem import message_name

QUEUE = "matches"


@pytest.fixture
def channel(tmp_path):
    folder = tmp_path / "broker"
    folder.mkdir()
    options = {"data_folder_in": str(folder), "data_folder_out": str(folder)}
    with Connection("filesystem://localhost/", transport="ladder.brokers.filesystem:Transport",
                    transport_options=options) as connection:
        yield connection.default_channel, folder


def _drain(channel, count: int, timeout_s: float = 20.0) -> list:
    import time
    from queue import Empty

    got, deadline = [], time.monotonic() + timeout_s
    while len(got) < count and time.monotonic() < deadline:
        try:
            got.append(channel._get(QUEUE))
        except Empty:
            time.sleep(0.001)
    return got


def test_a_reader_never_sees_a_message_before_its_writer_finished(channel):
    channel, _folder = channel
    payload = {"body": "x" * 200_000}  # large, so that a non-atomic write is caught half-way
    errors: list[BaseException] = []

    def publish() -> None:
        try:
            for index in range(200):
                channel._put(QUEUE, {**payload, "index": index})
        except BaseException as exc:  # noqa: BLE001 - reported by the assertion below
            errors.append(exc)

    writer = threading.Thread(target=publish)
    writer.start()
    got = _drain(channel, 200)
    writer.join()
    assert not errors
    assert sorted(message["index"] for message in got) == list(range(200))
    assert all(message["body"] == payload["body"] for message in got)


def test_an_unreadable_message_file_is_dropped_and_the_next_one_delivered(channel):
    channel, folder = channel
    # What a publisher that died mid-write (or a stray file) leaves behind, named as sent at the clock's
    # first milliseconds: before the good one whatever the machine's uptime.
    (folder / message_name(QUEUE, 0)).write_bytes(b"")
    (folder / message_name(QUEUE, 1)).write_bytes(b'{"body": ')
    channel._put(QUEUE, {"body": "whole"})
    assert channel._get(QUEUE) == {"body": "whole"}
    assert not list(folder.glob(f"*.{QUEUE}.msg"))


def test_no_temporary_file_is_left_behind(channel):
    channel, folder = channel
    channel._put(QUEUE, {"body": 1})
    assert [p.name.endswith(f".{QUEUE}.msg") for p in folder.iterdir()] == [True]


@pytest.mark.parametrize("earlier, later", [(9_999, 10_000), (999, 1_000_000), (1, 2_000_000),
                                            (99_999_999, 100_000_000)])
def test_message_names_sort_in_clock_order_across_powers_of_ten(earlier, later):
    assert message_name(QUEUE, earlier) < message_name(QUEUE, later)


def test_messages_leave_in_the_order_they_were_sent_when_the_clock_passes_a_power_of_ten(channel):
    channel, folder = channel
    for clock_ms, body in ((10_000, "second"), (9_999, "first"), (10_001, "third")):
        (folder / message_name(QUEUE, clock_ms)).write_text(f'{{"body": "{body}"}}')
    assert [channel._get(QUEUE)["body"] for _ in range(3)] == ["first", "second", "third"]
