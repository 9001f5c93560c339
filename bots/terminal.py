"""Text for a terminal: what a bot or a file controls, shown without being obeyed.

A bot's name, its log, its error and a match bundle's fields reach ``play``'s human report as they were
written; printed raw, an ESC sequence in them would move the cursor, clear the screen, set the window's
title or colours, a CR would overwrite what came before on the line, BEL would ring, and the C1 controls
(U+0080 to U+009F) are ESC sequences of their own to many terminals. :func:`printable` escapes them.
"""

from __future__ import annotations

__all__ = ["printable"]

_NAMED = {"\t": "\\t", "\n": "\\n", "\r": "\\r"}


def printable(text: str) -> str:
    """``text`` with every character that is not printable escaped as Python escapes it in a string
    literal (``\\x1b``, ``\\r``, ``\\x9b``, ``\\u202e``, ``\\udcff``): controls, C1 controls, format
    characters such as the bidirectional overrides, line and paragraph separators, lone surrogates (which
    no UTF-8 terminal could be sent anyway). The result is one line of printable characters and spaces.
    Backslashes are left as they are: the report is for reading, not for parsing back.
    """
    if text.isprintable():
        return text  # the common case, one C call
    return "".join(char if char.isprintable() else _escape(char) for char in text)


def _escape(char: str) -> str:
    code = ord(char)
    if char in _NAMED:
        return _NAMED[char]
    if code < 0x100:
        return f"\\x{code:02x}"
    if code < 0x10000:
        return f"\\u{code:04x}"
    return f"\\U{code:08x}"
