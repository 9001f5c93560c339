"""What runs inside the sandbox: load one bot and speak the JSON-lines protocol for it.

The referee and the bot process exchange one JSON object per line (docs/bots.md, "The protocol")::

    referee -> bot  {"type": "start", "game", "seat", "players", "options", "move_ms", "bank_ms",
                     "match_ms"}
    bot -> referee  {"type": "ready"}
    referee -> bot  {"type": "act", "observation", "legal_actions", "time_left_ms"}
    bot -> referee  {"type": "action", "action": ...}
    referee -> bot  {"type": "end", "scores", "ranking"}          (no answer; the process exits)

Time: each decision may take ``move_ms``, and more from a bank of ``bank_ms`` per match; all of a seat's
decisions together may take ``match_ms``. ``time_left_ms`` is what this decision may take: ``move_ms`` plus
the bank left, never more than the match time left. A bot that runs out forfeits with ``timeout``. An
``act`` that takes a ``time_left_ms`` argument is given it.

When the bot cannot go on the SDK answers ``{"type": "error", "kind": "crash" | "memory" | "bad_output",
"message"}`` instead and exits (``bad_output``: ``act`` returned a value that is not JSON). The protocol travels on private descriptors: before the bot's module is imported,
file descriptors 0 and 1 are moved out of the way, standard input becomes ``/dev/null`` and standard
output joins standard error, which is the bot's log. So whatever the bot prints goes to its log, and
reading ``sys.stdin`` cannot steal the referee's messages. Before every message to the referee the SDK
flushes the bot's standard output and error, so what the bot printed while deciding, a line without its
newline too, is in its log before its answer leaves: the referee files it under that decision.

This module imports only the standard library, :mod:`bots.loader` and (when present) orjson, an allowed
package of the sandbox, because it is loaded into the sandbox's zygote and, in the fresh-interpreter mode,
copied into the sandbox's runtime folder.
"""

from __future__ import annotations

import fcntl
import json
import os
import sys
import traceback

from bots.loader import BotLoadError, bind, load_module, wants_time_left

try:
    # An allowed package of the sandbox, faster than json at parsing the referee's observations.
    from orjson import loads as _parse_line
except ImportError:  # the standard library does the same, slower

    def _parse_line(line: bytes):
        # Decoded first: ``json.loads`` of bytes would guess among UTF-8/16/32.
        return json.loads(line.decode())

# What ``json.dumps(message, separators=(",", ":"))`` does, with the encoder made once rather than at every
# answer.
_encode = json.JSONEncoder(separators=(",", ":")).encode

# Longest line the SDK reads from the referee; observations are far smaller.
MAX_MESSAGE_BYTES = 64 * 1024 * 1024
# Traceback text sent back to the referee (the whole traceback also goes to the log).
MAX_ERROR_CHARS = 2000


class _Streams:
    """The channel's reader and the bot's standard streams as Python objects, each over a descriptor
    number (see :func:`prepare_streams`)."""

    def __init__(self, reader_fd: int) -> None:
        self.reader_fd = reader_fd
        self.reader = os.fdopen(reader_fd, "rb", buffering=1 << 16)
        # Line-buffered logs survive a kill at the end of the match.
        self.stdout = open(1, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)  # noqa: SIM115
        self.stderr = open(2, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)  # noqa: SIM115
        self.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115


def prepare_streams() -> _Streams:
    """The channel's Python objects made ahead of need, for the sandbox's shell while it waits for its
    bot (made on the bot's clock they would lengthen its start): over descriptors of the kind the
    bot's will be, a pipe's read end for the reader (its number, at least 5, is kept: the shell moves the
    protocol's input there), /dev/null at 0 and a pipe's write end at 1 and 2, where the shell puts the
    bot's pipes. Objects over a descriptor number read and write whatever it refers to when they do."""
    read_end, write_end = os.pipe()
    reader_fd = fcntl.fcntl(read_end, fcntl.F_DUPFD_CLOEXEC, 5)
    os.close(read_end)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.close(devnull)
    os.dup2(write_end, 1)
    os.dup2(write_end, 2)
    os.close(write_end)
    return _Streams(reader_fd)


class _Channel:
    """The protocol descriptors, moved away from 0 and 1 so the bot cannot disturb them by accident.

    ``streams`` (:func:`prepare_streams`) are the Python objects made ahead; otherwise they are made now."""

    def __init__(self, streams: _Streams | None = None) -> None:
        if streams is None:
            self.reader = os.fdopen(os.dup(0), "rb", buffering=1 << 16)
        else:
            os.dup2(0, streams.reader_fd, inheritable=False)
            self.reader = streams.reader
        self.writer_fd = os.dup(1)
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.close(devnull)
        os.dup2(2, 1)
        if streams is None:
            # Line-buffered logs survive a kill at the end of the match.
            sys.stdout = open(1, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)  # noqa: SIM115
            sys.stderr = open(2, "w", encoding="utf-8", errors="replace", buffering=1, closefd=False)  # noqa: SIM115
            sys.stdin = open(0, encoding="utf-8", closefd=False)  # noqa: SIM115
        else:
            sys.stdout, sys.stderr, sys.stdin = streams.stdout, streams.stderr, streams.stdin

    def receive(self) -> dict | None:
        line = self.reader.readline(MAX_MESSAGE_BYTES)
        if not line:
            return None
        return _parse_line(line)

    def send(self, message: dict) -> None:
        _flush_output()
        data = (_encode(message) + "\n").encode()
        view = memoryview(data)
        while view:
            written = os.write(self.writer_fd, view)
            view = view[written:]


def _flush_output() -> None:
    """Flush whatever the bot's ``sys.stdout`` and ``sys.stderr`` hold (the bot may have replaced them:
    one whose flush fails is the bot's business, never a reason not to answer)."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001, S110 - any object the bot put there
            pass


def _error(kind: str, exc: BaseException) -> dict:
    text = "".join(traceback.format_exception(exc))
    sys.stderr.write(text)
    sys.stderr.flush()
    summary = "".join(traceback.format_exception_only(exc)).strip()
    # A lone surrogate in the message would travel as an escape the referee refuses as bad output: shown
    # as its own escape text instead, the report stays a crash report.
    summary = summary.encode("utf-8", "backslashreplace").decode("utf-8")
    return {"type": "error", "kind": kind, "message": summary[-MAX_ERROR_CHARS:]}


def _fault_kind(exc: BaseException) -> str:
    return "memory" if isinstance(exc, MemoryError) else "crash"


def serve(bot_path: str, streams: _Streams | None = None) -> int:
    """Run the protocol for the bot at ``bot_path`` (a ``.py`` file or a folder with ``bot.py``), on
    descriptors 0 (in) and 1 (out), with ``streams`` made ahead by :func:`prepare_streams` if given.

    Returns the process exit status: 0 after ``end``, 1 after reporting an error.
    """
    channel = _Channel(streams)
    act = None
    timed = False
    while True:
        message = channel.receive()
        if message is None:
            return 0
        kind = message.get("type")
        if kind == "start":
            try:
                module = load_module(bot_path)
                act = bind(module, game=message["game"], seat=message["seat"], players=message["players"],
                           options=message.get("options") or {})
            except BotLoadError as exc:
                channel.send({"type": "error", "kind": "crash", "message": str(exc)})
                return 1
            except BaseException as exc:  # noqa: BLE001 - the bot's import may raise anything, SystemExit too
                channel.send(_error(_fault_kind(exc), exc))
                return 1
            timed = wants_time_left(act)
            channel.send({"type": "ready"})
        elif kind == "act":
            if act is None:
                channel.send({"type": "error", "kind": "crash", "message": "act before start"})
                return 1
            try:
                if timed:
                    action = act(message["observation"], message["legal_actions"],
                                 time_left_ms=message.get("time_left_ms"))
                else:
                    action = act(message["observation"], message["legal_actions"])
            except BaseException as exc:  # noqa: BLE001 - any failure of the bot's code is its fault to report
                channel.send(_error(_fault_kind(exc), exc))
                return 1
            try:
                channel.send({"type": "action", "action": action})
            except (TypeError, ValueError) as exc:
                channel.send({"type": "error", "kind": "bad_output",
                              "message": f"the action is not JSON: {exc}"})
                return 1
        elif kind == "end":
            return 0


def main(argv: list[str] | None = None) -> None:
    """Entry point of a fresh interpreter: ``python -m bots.sdk BOT_PATH``."""
    argv = sys.argv[1:] if argv is None else argv
    status = serve(argv[0] if argv else ".")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(status)


if __name__ == "__main__":
    main()
