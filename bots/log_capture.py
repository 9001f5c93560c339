"""A seat's log as the referee keeps it: the whole log within its cap (:class:`LogBuffer`), and what was
printed decision by decision within the same cap (:class:`DecisionLog`)."""

from __future__ import annotations

from dataclasses import dataclass, field


class LogBuffer:
    """A bot's log capped at ``limit`` bytes: the head and the tail are kept, the middle is counted."""

    def __init__(self, limit: int) -> None:
        self.head_limit = limit // 2
        self.tail_limit = limit - self.head_limit
        self.head = bytearray()
        self.tail = bytearray()
        self.dropped = 0

    def feed(self, data: bytes) -> None:
        room = self.head_limit - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if not data:
            return
        self.tail += data
        excess = len(self.tail) - self.tail_limit
        if excess > 0:
            self.dropped += excess
            del self.tail[:excess]

    def text(self) -> str:
        middle = f"\n[... {self.dropped} bytes of log dropped ...]\n".encode() if self.dropped else b""
        return bytes(self.head + middle + self.tail).decode("utf-8", errors="replace")


_CUT_NOTICE = "[... {dropped} bytes of log dropped: the seat's log cap of {limit} bytes is reached ...]\n"


@dataclass
class _Decision:
    step: int
    ms: int = 0
    head: bytearray = field(default_factory=bytearray)
    tail: bytearray = field(default_factory=bytearray)
    dropped: int = 0

    def text(self, limit: int) -> str:
        notice = b""
        if self.dropped:
            notice = _CUT_NOTICE.format(dropped=self.dropped, limit=limit).encode()
            if self.head and not self.head.endswith(b"\n"):
                notice = b"\n" + notice
        return bytes(self.head + notice + self.tail).decode("utf-8", errors="replace")


class DecisionLog:
    """What a seat printed, decision by decision, in ``limit`` bytes for all its decisions together.

    Like :class:`LogBuffer`, the head and the tail are kept: the first decisions' text up to half the cap,
    the latest decisions' text up to the other half. As text comes in, the oldest text past the head is
    dropped from the start, so the decisions in between lose theirs; each record that lost bytes says how
    many (a notice that is not counted against the cap: the number of records is bounded by the game's
    length). Text is fed to the record opened last.
    """

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.head_left = limit // 2
        self.tail_limit = limit - limit // 2
        self.tail_size = 0
        self.records: list[_Decision] = []
        # The oldest record that may still hold bytes in the tail: trimming never looks further back.
        self._oldest = 0

    def open(self, step: int) -> _Decision:
        record = _Decision(step)
        self.records.append(record)
        return record

    def feed(self, data: bytes) -> None:
        record = self.records[-1]
        if self.head_left > 0:
            taken = data[: self.head_left]
            record.head += taken
            self.head_left -= len(taken)
            data = data[len(taken):]
        if not data:
            return
        record.tail += data
        self.tail_size += len(data)
        while self.tail_size > self.tail_limit:
            oldest = self.records[self._oldest]
            cut = min(len(oldest.tail), self.tail_size - self.tail_limit)
            del oldest.tail[:cut]
            oldest.dropped += cut
            self.tail_size -= cut
            if not oldest.tail and self._oldest < len(self.records) - 1:
                self._oldest += 1

    def to_json(self) -> list[dict]:
        """The records as ``{"step", "ms", "log"}``, in order (texts decoded, invalid UTF-8 replaced)."""
        return [{"step": r.step, "ms": r.ms, "log": r.text(self.limit)} for r in self.records]
