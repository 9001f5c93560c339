"""One seat's end of the protocol, on the referee's side: writing protocol lines to a sandboxed bot and
reading its answers within a deadline (:class:`SeatedBot`), parsing them through :mod:`bots.untrusted`
(:func:`parse_reply`), and the fault that forfeits the seat (:class:`Forfeit`). A fault of the sandbox
itself is a :class:`~bots.sandbox.errors.SandboxFault`, never a forfeit."""

from __future__ import annotations

import os
import select
import time
from dataclasses import dataclass, field

import orjson

from bots.log_capture import DecisionLog, LogBuffer
from bots.match_result import BotSpec
from bots.sandbox.errors import SandboxFault
from bots.sandbox.policy import Limits
from bots.sandbox.process import BotProcess
from bots.untrusted import REASON_CHARS, UntrustedOutput, parse_line, storable_text

_READ_CHUNK = 1 << 16
# Chunks of log read in one go: a bot that writes its log as fast as the referee reads it must not keep
# the referee from its clocks.
_LOG_CHUNKS_PER_DRAIN = 16


def encode_line(message: dict) -> bytes:
    """One protocol line: compact JSON in UTF-8 and a newline.

    orjson writes the same compact JSON as the standard library, faster: every decision sends the whole
    observation, and encoding it is the referee's largest cost per decision. (Engine views are plain JSON
    trees; non-string keys, which ``json`` would turn into strings, are turned likewise. orjson refuses
    them unless told to accept them, which slows every message: so it is told only for a message that has
    one.)
    """
    try:
        return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE)
    except orjson.JSONEncodeError:
        return orjson.dumps(message, option=orjson.OPT_APPEND_NEWLINE | orjson.OPT_NON_STR_KEYS)


class Forfeit(Exception):
    def __init__(self, outcome: str, reason: str) -> None:
        super().__init__(reason)
        self.outcome = outcome
        self.reason = reason


@dataclass
class SeatedBot:
    """A bot in its seat, as the referee sees it: its process and pipes, its log and decision records, its
    clock and its outcome."""

    index: int
    spec: BotSpec
    limits: Limits
    process: BotProcess | None = None
    log: LogBuffer = field(init=False)
    decisions: DecisionLog = field(init=False)
    #: Whether what the log pipe brings also goes to the last decision record (from the first ``act`` on).
    deciding: bool = False
    inbox: bytearray = field(default_factory=bytearray)
    outcome: str = "ok"
    reason: str = ""
    #: Wall-clock seconds of all its decisions so far; kept unrounded because match time is charged from it.
    time_used_s: float = 0.0
    bank_left_ms: int = 0
    start_deadline: float = 0.0
    log_open: bool = True

    def __post_init__(self) -> None:
        self.log = LogBuffer(self.limits.log_bytes)
        self.decisions = DecisionLog(self.limits.log_bytes)
        self.bank_left_ms = self.limits.bank_ms

    @property
    def live(self) -> bool:
        return self.outcome == "ok" and self.process is not None

    def drain_log(self) -> None:
        """Read the log that is waiting, without blocking (at most a few chunks: the rest waits)."""
        if self.process is None or not self.log_open:
            return
        for _ in range(_LOG_CHUNKS_PER_DRAIN):
            try:
                data = os.read(self.process.log, _READ_CHUNK)
            except BlockingIOError:
                return
            except OSError:
                self.log_open = False
                return
            if not data:
                self.log_open = False
                return
            self.log.feed(data)
            if self.deciding:
                self.decisions.feed(data)

    def offer(self, line: bytes) -> memoryview:
        """Write what the pipe takes of ``line`` now, without waiting; what is left to :meth:`send_rest`
        (all of it if the bot is gone: that is for :meth:`send_rest` to find out)."""
        pending = memoryview(line)
        try:
            return pending[os.write(self.process.to_bot, pending):]
        except OSError:
            return pending

    def send(self, message: dict, deadline: float) -> None:
        """Write one protocol line, draining the log meanwhile; a full pipe past ``deadline`` times out."""
        self.send_rest(memoryview(encode_line(message)), deadline)

    def send_rest(self, pending: memoryview, deadline: float) -> None:
        """Write ``pending`` as :meth:`send` does."""
        process = self.process
        while pending:
            try:
                written = os.write(process.to_bot, pending)
                pending = pending[written:]
                continue
            except BlockingIOError:
                pass
            except (BrokenPipeError, OSError):
                raise self._ended() from None
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise Forfeit("timeout", "the bot stopped reading its input")
            readers = [process.log] if self.log_open else []
            readable, _, _ = select.select(readers, [process.to_bot], [], remaining)
            if readable:
                self.drain_log()

    def receive(self, deadline: float, late: str) -> dict:
        """The next protocol line from the bot, parsed, or :class:`Forfeit` (SandboxFault if ours); past
        ``deadline`` a ``timeout`` with reason ``late``, judged only after reading what already waits."""
        process = self.process
        limit = self.limits.max_message_bytes
        scanned = 0
        while True:
            # Only the bytes that arrived since the last look can hold the newline.
            newline = self.inbox.find(b"\n", scanned)
            if newline >= 0:
                line = bytes(self.inbox[:newline])
                del self.inbox[: newline + 1]
                return parse_reply(line, limit)
            scanned = len(self.inbox)
            if scanned > limit:
                raise Forfeit("bad_output", f"answer longer than {limit} bytes")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                if self._read_waiting():
                    continue
                raise Forfeit("timeout", late)
            readers = [process.from_bot] + ([process.log] if self.log_open else [])
            readable, _, _ = select.select(readers, [], [], remaining)
            if process.log in readable:
                self.drain_log()
            if process.from_bot in readable:
                self._read_waiting()

    def _read_waiting(self) -> bool:
        """Move what the bot has written into the inbox without blocking; whether anything came (EOF with
        nothing before it ends the bot's turn). Reads no more than one message can be long, plus a chunk,
        and stops at the chunk that ends a line: whatever follows it waits in the pipe as it would in the
        inbox, and a decision then costs one read, not a second one to hear that nothing more came."""
        got = False
        while len(self.inbox) <= self.limits.max_message_bytes:
            try:
                data = os.read(self.process.from_bot, _READ_CHUNK)
            except BlockingIOError:
                return got
            except OSError:
                raise self._ended() from None
            if not data:
                if got:
                    return True
                raise self._ended()
            self.inbox += data
            got = True
            if b"\n" in data:
                return True
        return got

    def check_memory(self) -> None:
        """Forfeit if the kernel had to kill any process of the bot for its memory, even a helper."""
        if self.process.memory_exceeded():
            raise Forfeit("memory", f"the bot exceeded its memory limit of {self.limits.memory_mb} MiB")

    def _ended(self) -> Forfeit:
        """The bot's process is gone: its fault, unless the sandbox reported that it could not start it
        (on its own status pipe, which no code of the bot can write to)."""
        self.drain_log()
        failure = self.process.sandbox_failure()
        if failure:
            raise SandboxFault(failure)
        if self.process.memory_exceeded():
            return Forfeit("memory", f"the bot exceeded its memory limit of {self.limits.memory_mb} MiB")
        return Forfeit("crash", "the bot's process ended without answering")

    def forfeit(self, outcome: str, reason: str) -> None:
        self.outcome = outcome
        self.reason = reason
        self.stop()

    def stop(self) -> None:
        if self.process is not None:
            self.drain_log()
            self.process.kill()
            self.drain_log()
            self.process.close()


def parse_reply(line: bytes, max_bytes: int) -> dict:
    """The protocol message on ``line``; :class:`Forfeit` for anything unusable and for an ``error``
    report (the SDK's, or one a bot forged: either way the seat cannot go on)."""
    try:
        reply = parse_line(line, max_bytes=max_bytes)
    except UntrustedOutput as exc:
        raise Forfeit("bad_output", exc.reason) from None
    if reply["type"] == "error":
        kind = reply.get("kind")
        outcome = kind if isinstance(kind, str) and kind in ("crash", "memory", "bad_output") else "crash"
        message = reply.get("message", "")
        # Depth is bounded by the parser, so str() of any JSON value is safe; only the start is kept.
        message = storable_text(message if isinstance(message, str) else str(message), limit=REASON_CHARS)
        if outcome == "memory":
            reason = f"the bot ran out of memory: {message}"
        else:
            reason = f"the bot raised {message}" if outcome == "crash" else message
        raise Forfeit(outcome, reason)
    return reply
