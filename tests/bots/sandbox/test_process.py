"""``bots.sandbox.process``: the host's handle on a running bot, whatever started it: its pipes made
non-blocking, the sandbox's status pipe read for a failure, the defaults of pause, resume and memory, and
``close`` killing the bot and releasing the pipes once."""

from __future__ import annotations

import os

import pytest

from bots.sandbox.process import BotProcess


class PipedProcess(BotProcess):
    """A handle over fresh pipes with nothing at the far end: the test holds the other ends."""

    def __init__(self, with_status: bool = True) -> None:
        # The host writes to_bot and reads the others: it keeps one end of each pipe, the test the other.
        to_bot_far, to_bot = os.pipe()
        self.far = [to_bot_far]
        reads = []
        for _ in range(3 if with_status else 2):
            read_end, write_end = os.pipe()
            reads.append(read_end)
            self.far.append(write_end)
        super().__init__(to_bot, *reads)
        self.kills = 0

    def kill(self) -> None:
        self.kills += 1


@pytest.fixture
def process():
    handle = PipedProcess()
    yield handle
    handle.close()
    for fd in handle.far:
        os.close(fd)


def test_the_host_ends_are_non_blocking(process):
    for fd in (process.to_bot, process.from_bot, process.log, process.status):
        assert not os.get_blocking(fd)
    with pytest.raises(BlockingIOError):
        os.read(process.from_bot, 1)


def test_a_sandbox_failure_is_what_the_status_pipe_says(process):
    status_far = process.far[3]
    os.write(status_far, b"could not mount \xff")
    assert process.sandbox_failure() == "could not mount \ufffd"


def test_no_failure_when_the_status_pipe_was_closed_empty_or_there_is_none(process):
    os.close(process.far[3])
    process.far[3] = os.open(os.devnull, os.O_RDONLY)
    assert process.sandbox_failure() is None
    without = PipedProcess(with_status=False)
    try:
        assert without.status == -1 and without.sandbox_failure() is None
    finally:
        without.close()
        for fd in without.far:
            os.close(fd)


def test_a_status_pipe_with_nothing_yet_is_no_failure(process):
    assert process.sandbox_failure() is None


def test_defaults_pause_nothing_and_see_no_memory_kill(process):
    assert process.pause_mechanism == "none"
    process.pause()
    process.resume()
    assert process.memory_exceeded() is False and process.kills == 0


def test_close_kills_and_releases_the_pipes_once(process):
    fds = (process.to_bot, process.from_bot, process.log, process.status)
    process.close()
    process.close()
    assert process.kills == 2  # kill is safe to repeat, and close always calls it
    for fd in fds:
        with pytest.raises(OSError):
            os.fstat(fd)


def test_the_abstract_handle_needs_a_kill():
    with pytest.raises(TypeError):
        BotProcess(-1, -1, -1)
