"""The one boundary where what a bot wrote becomes data the host may keep.

Everything a bot sends or prints is hostile until it has passed through here:

* :func:`parse_line` turns one protocol line into a JSON object, with a bounded size and nesting depth,
  or raises :class:`UntrustedOutput` with a short reason. It never raises anything else, whatever the
  bytes: no ``RecursionError`` from a deep line, no ``UnicodeDecodeError``, no lone UTF-16 surrogate in
  a string it returns (orjson refuses the escape ``\\ud800`` unpaired), no NaN or infinity.
* :func:`parse_json` is the same bounded parse for any JSON value from anyone (the REST API's request
  bodies and the site's JSON fields parse through it too), naming what it parsed in its reasons.
* :func:`storable_text` makes any text a bot controls (its error message, a reason quoting its answer,
  its log) storable and printable anywhere: valid UTF-8 without NUL characters (PostgreSQL refuses NUL in
  text and lone surrogates in any UTF-8 encoding), capped in length.

Both are on the referee's hot path (every decision of every match), so the common case costs one C call
each: orjson parses, a bracket count proves the depth bound without walking the value, and ASCII text is
only searched for NUL.
"""

from __future__ import annotations

import re

import orjson

__all__ = ["MAX_DEPTH", "REASON_CHARS", "UntrustedOutput", "parse_json", "parse_line", "quote", "storable_text"]

#: Nesting a protocol message may have. Replies are an object around an action, and the deepest action of
#: any game is a few levels, so this is generous; it stays far below the recursion limit of the encoders
#: and comparisons that handle the action afterwards.
MAX_DEPTH = 64
#: Characters a reason built from a bot's text may have.
REASON_CHARS = 1000
# Characters of a bad line quoted in a reason.
_QUOTE_BYTES = 80
_UNSTORABLE = re.compile("[\x00\ud800-\udfff]")
# Room kept at the end of capped text for the note of how much was cut.
_CUT_MARKER_CHARS = 32


class UntrustedOutput(ValueError):
    """A line from a bot that is not an acceptable protocol message; ``reason`` is short and storable."""

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


def quote(data: bytes) -> str:
    """The start of ``data`` as a Python bytes literal: ASCII, so storable whatever the bytes."""
    suffix = "..." if len(data) > _QUOTE_BYTES else ""
    return f"{bytes(data[:_QUOTE_BYTES])!r}{suffix}"


def parse_line(line: bytes, *, max_bytes: int, max_depth: int = MAX_DEPTH) -> dict:
    """The JSON object on one protocol line (without its newline), or :class:`UntrustedOutput`.

    Refused: more than ``max_bytes`` bytes, anything orjson does not parse as strict JSON in UTF-8 (lone
    surrogate escapes, NaN, numbers out of a double's range, invalid UTF-8 included), nesting deeper than
    ``max_depth``, a value that is not an object, an object whose ``"type"`` is not a string.
    """
    if len(line) > max_bytes:
        raise UntrustedOutput(f"answer longer than {max_bytes} bytes")
    reply = parse_json(line, max_depth=max_depth)
    if not isinstance(reply, dict):
        raise UntrustedOutput(f"the answer is not a JSON object: {quote(line)}")
    if not isinstance(reply.get("type"), str):
        raise UntrustedOutput(f"the answer has no type: {quote(line)}")
    return reply


def parse_json(data: bytes | str, *, max_depth: int = MAX_DEPTH, what: str = "the answer"):
    """The JSON value in ``data``, or :class:`UntrustedOutput` whose reason starts with ``what``.

    Strict JSON in UTF-8 as orjson reads it (no NaN or infinity, no lone surrogate escape, no invalid
    UTF-8), nested at most ``max_depth`` containers deep. Never raises anything else, however deep or
    malformed ``data`` is. Integers beyond 64 bits come back as floats (orjson's reading). The caller
    bounds the size: parsing is linear in it.
    """
    try:
        value = orjson.loads(data)
    except orjson.JSONDecodeError as exc:
        if str(exc).startswith("depth limit exceeded"):
            raise UntrustedOutput(f"{what} is nested deeper than {max_depth} levels") from None
        raw = data.encode("utf-8", errors="replace") if isinstance(data, str) else data
        raise UntrustedOutput(f"{what} is not JSON ({_first_words(exc)}): {quote(raw)}") from None
    # Every level opens with a bracket, so a text with few of them (the common case, counted in C) cannot
    # be too deep. orjson stops by itself at 1024 levels, which is still too deep for the recursive
    # encoders and comparisons the value meets afterwards.
    brackets = data.count("[") + data.count("{") if isinstance(data, str) else data.count(b"[") + data.count(b"{")
    if brackets > max_depth and _deeper_than(value, max_depth):
        raise UntrustedOutput(f"{what} is nested deeper than {max_depth} levels")
    return value


def _deeper_than(value, levels: int) -> bool:
    """Whether the parsed JSON ``value`` nests more than ``levels`` containers deep (recursion is bounded
    by ``levels``)."""
    if isinstance(value, dict):
        value = value.values()
    elif not isinstance(value, list):
        return False
    if levels <= 0:
        return True
    return any(_deeper_than(item, levels - 1) for item in value if isinstance(item, (dict, list)))


def _first_words(exc: Exception) -> str:
    """orjson's message without its position: a short ASCII text."""
    return str(exc).split(":", 1)[0][:100]


def storable_text(text: str | bytes, *, limit: int | None = None) -> str:
    """``text`` as any database and JSON response accept it, at most ``limit`` characters.

    Bytes are decoded as UTF-8, invalid sequences becoming U+FFFD; in text, NUL characters and lone
    surrogates become U+FFFD too. Text longer than ``limit`` keeps its start and says how much was cut.
    """
    if isinstance(text, (bytes, bytearray, memoryview)):
        text = bytes(text).decode("utf-8", errors="replace")
    elif not isinstance(text, str):
        text = str(text)
    if text.isascii():
        if "\x00" in text:
            text = text.replace("\x00", "\ufffd")
    else:
        text = _UNSTORABLE.sub("\ufffd", text)
    if limit is not None and len(text) > limit:
        keep = max(0, limit - _CUT_MARKER_CHARS)
        text = text[:keep] + f" [... {len(text) - keep} characters cut]"[: limit - keep]
    return text
