"""What the command prints: the server's text (other users' names, bots' logs and errors) shown, never obeyed.

Names, usernames, validation messages, logs and error details reach ``botladder`` as their authors wrote
them. Printed raw, an ESC or CSI (``\\x9b``) sequence would set the window's title, clear the screen or
move the cursor, a CR would overwrite the start of its line, a bidirectional override (U+202E) would
reverse what follows. Every line the command writes for a person passes :func:`printable` in
:class:`Output`, its one way to stdout and stderr; JSON goes out as ASCII JSON (:func:`ascii_json_line`).

:func:`printable` is the twin of ``bots.terminal.printable`` (what ``manage.py play`` escapes with): the
command may import nothing of the server's (and ships without it), so it has its own, and
``tests/cli/test_terminal_escaping.py`` holds the two to the same output for every code point.
"""

from __future__ import annotations

import json
import sys

__all__ = ["Output", "ascii_json_line", "printable"]


def printable(text: str) -> str:
    """``text`` as one line of printable characters: every character ``str.isprintable`` refuses (C0 and
    C1 controls, DEL, format characters such as U+202E, line and paragraph separators, lone surrogates)
    written as a Python string literal writes it (``\\x1b``, ``\\r``, ``\\u202e``, ``\\udcff``)."""
    if text.isprintable():
        return text
    # repr escapes exactly the characters isprintable refuses, and never one it accepts.
    return "".join(char if char.isprintable() else repr(char)[1:-1] for char in text)


def ascii_json_line(line: bytes) -> bytes:
    """One JSON document of the server's (no newline) as JSON a terminal shows without obeying: the line as
    it is when it holds printable ASCII alone, else re-encoded with every other character escaped."""
    if line.isascii() and all(32 <= byte < 127 for byte in line):
        return line
    return json.dumps(json.loads(line), separators=(",", ":")).encode("ascii")


class Output:
    """Where a subcommand's results go: lines for a person, or one JSON document with ``--json``."""

    def __init__(self, as_json: bool) -> None:
        self.as_json = as_json
        self._progress_shown = False

    def result(self, data, lines: list[str]) -> None:
        """``data`` as JSON with ``--json``, else ``lines``, each one line on the terminal (a newline in one
        is shown as ``\\n``, never a line of its own that the server's text could forge)."""
        self.end_progress()
        if self.as_json:
            self.json(data)
        else:
            sys.stdout.write("".join(printable(line) + "\n" for line in lines))

    def json(self, data) -> None:
        # ensure_ascii (the default) escapes every control, non-ASCII character and lone surrogate.
        sys.stdout.write(json.dumps(data, indent=2, sort_keys=True, ensure_ascii=True) + "\n")

    def progress(self, line: str) -> None:
        """One progress line on stderr: redrawn in place on a terminal, one line per change otherwise."""
        if self.as_json and not sys.stderr.isatty():
            return
        if sys.stderr.isatty():
            sys.stderr.write("\r\033[K" + printable(line))
            self._progress_shown = True
        else:
            sys.stderr.write(printable(line) + "\n")
        sys.stderr.flush()

    def end_progress(self) -> None:
        if self._progress_shown:
            sys.stderr.write("\n")
            self._progress_shown = False

    def error(self, lines: list[str]) -> None:
        """An error for a person on stderr, its first line after ``botladder:``."""
        self.end_progress()
        sys.stderr.write("".join(printable(line) + "\n" for line in ["botladder: " + lines[0], *lines[1:]]))
