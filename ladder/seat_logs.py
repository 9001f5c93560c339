"""A seat's log and its decision records as one compressed value: the ``Seat.logs`` column.

The referee hands over two texts per seat, each within the seat's ``log_bytes``: the whole log, and the
decisions' records ``{"step", "ms", "log"}`` with what the bot printed while deciding. The second is for
the most part the first cut into pieces, so storing both would store the log twice. :func:`pack` stores
the whole log once and each decision's text as pieces of it (anything a piece cannot describe, such as
the notice of text dropped by the cap, as literal text), then compresses the lot with zlib;
:func:`unpack` gives back exactly what was packed, for any text and any records.

Format, version 1 (the first byte of the value names its version, so that a later layout is read next to
the older ones: a match-wide value holding the actions as well would be a version 2 with more sections in
its header)::

    byte 0     1
    byte 1...  zlib stream of:  HEADER  b"\\n"  TEXT
    HEADER     compact JSON (ASCII, so holding no newline):
               {"log": <code points of the whole log>, "decisions": [<record>, ...]}
    TEXT       UTF-8 (lone surrogates passed through): the whole log, then every literal, in order
    <record>   [skip, ms, piece, ...] for a record {"step": int, "ms": int, "log": str}, whose step is the
               previous such record's plus one plus ``skip`` (the first's: ``skip``), since a seat's
               steps rise by small amounts; the record's text is its pieces in order, each one of
                 n > 0       the next n code points of the whole log, from where the last such piece ended
                             (the start of the log at first, across records)
                 n < 0       the next -n code points of the literals
                 [start, n]  n code points of the whole log from ``start`` (and the next ``n > 0``
                             piece goes on from there)
               or {"raw": record} for any other record, kept as it is (JSON)

An empty log without records is no value at all (``None``, a NULL column): a seat not played yet, or a
silent one.
"""

from __future__ import annotations

import bisect
import json
import zlib
from dataclasses import dataclass, field

import orjson

__all__ = ["FORMAT_VERSION", "SeatLogs", "pack", "unpack"]

#: The version byte :func:`pack` writes.
FORMAT_VERSION = 1

#: zlib's default: nearly as small as its best on logs, in far less time than level 9.
_LEVEL = 6
#: Code points ahead of the current place in the log searched for where a record's text goes on; farther
#: jumps are found through the index of line starts.
_WINDOW = 1 << 16
#: Code points a jump must match to be taken: shorter text is cheaper as a literal than a wrong jump.
_MIN_JUMP = 16
#: At most this much of a record's text is searched for at once.
_KEY = 64
#: Records with exactly these keys (in any order: jsonb keeps its own) are stored as pieces; any other
#: record is kept whole.
_RECORD_KEYS = frozenset(("step", "ms", "log"))


@dataclass(frozen=True)
class SeatLogs:
    """What a seat printed: its whole ``log``, and its ``decisions`` records in order."""

    log: str = ""
    decisions: list = field(default_factory=list)


def pack(log: str, decisions: list) -> bytes | None:
    """``log`` and ``decisions`` (``[{"step", "ms", "log"}, ...]``; records of another shape are kept as
    they are, which needs them to be JSON) as one compressed value, ``None`` for an empty log without
    records. :func:`unpack` gives back equal values."""
    if not isinstance(log, str):
        raise TypeError(f"a seat's log is text, not {type(log).__name__}")
    if not log and not decisions:
        return None
    encoder = _Encoder(log)
    header = {"log": len(log), "decisions": [encoder.record(record) for record in decisions]}
    text = "".join([log, *encoder.literals])
    payload = b"%s\n%s" % (_header_json(header), text.encode("utf-8", "surrogatepass"))
    return bytes([FORMAT_VERSION]) + zlib.compress(payload, _LEVEL)


def _header_json(header: dict) -> bytes:
    """The header as compact ASCII JSON: orjson's where it writes ASCII (always, for a header of records of
    the usual shape, which are numbers only; faster than ``json``, and a worker packs every seat
    it plays), else ``json``'s, which escapes the rest."""
    try:
        text = orjson.dumps(header)
    except TypeError:  # orjson.JSONEncodeError is one: lone surrogates, integers past 64 bits
        text = None
    if text is None or not text.isascii():
        return json.dumps(header, separators=(",", ":")).encode("ascii")
    return text


def unpack(value: bytes | memoryview | None) -> SeatLogs:
    """The log and records :func:`pack` made ``value`` of (``None``: an empty log, no records).
    ValueError for a value that is not one (an unknown version, a damaged stream)."""
    if value is None:
        return SeatLogs()
    value = bytes(value)
    if not value or value[0] != FORMAT_VERSION:
        raise ValueError(f"not a seat log of format {FORMAT_VERSION}: starts with {value[:1]!r}")
    try:
        header, _, text = zlib.decompress(value[1:]).partition(b"\n")
        header = json.loads(header)
        text = text.decode("utf-8", "surrogatepass")
        size = header["log"]
        log = text[:size]
        decoder = _Decoder(log, text, size)
        decisions = [decoder.record(entry) for entry in header["decisions"]]
    except (zlib.error, ValueError, KeyError, TypeError, IndexError) as error:
        raise ValueError(f"a damaged seat log: {error}") from error
    if len(log) != size or decoder.literal != len(text):
        raise ValueError("a damaged seat log: its text does not add up")
    return SeatLogs(log, decisions)


def _compact(record) -> bool:
    # A length test before the set comparison: it turns most other records away without building a view.
    return (isinstance(record, dict) and len(record) == 3 and record.keys() == _RECORD_KEYS
            and type(record["step"]) is int and type(record["ms"]) is int and isinstance(record["log"], str))


class _Encoder:
    """Cuts records' texts into pieces of one log. Records follow the log's order, so each text is first
    looked for where the last one ended, then a little ahead, then anywhere a line starts; what is found
    nowhere is literal. Every text is described exactly, whatever it is: only the size depends on the
    search."""

    def __init__(self, log: str) -> None:
        self.log = log
        self.cursor = 0
        self.step = -1
        self.literals: list[str] = []
        self._line_starts: dict[str, list[int]] | None = None

    def record(self, record) -> list | dict:
        if not _compact(record):
            return {"raw": record}
        step, text = record["step"], record["log"]
        skip = step - self.step - 1
        self.step = step
        # Most decisions print nothing: no search to run, no pieces to merge.
        return [skip, record["ms"], *self._pieces(text)] if text else [skip, record["ms"]]

    def _pieces(self, text: str) -> list:
        pieces: list = []
        at = 0
        while at < len(text):
            same = _common_prefix(text, at, self.log, self.cursor)
            if same:
                _append(pieces, same)
                self.cursor += same
                at += same
                continue
            start = self._jump(text, at)
            if start is not None:
                same = _common_prefix(text, at, self.log, start)
                pieces.append([start, same])
                self.cursor = start + same
                at += same
                continue
            # Found nowhere: literal up to the end of the line, where the next search starts.
            end = text.find("\n", at) + 1 or len(text)
            self.literals.append(text[at:end])
            _append(pieces, at - end)
            at = end
        return pieces

    def _jump(self, text: str, at: int) -> int | None:
        """Where else in the log ``text[at:]`` goes on for at least :data:`_MIN_JUMP` code points."""
        key = text[at:at + _KEY]
        if len(key) < _MIN_JUMP:
            return None
        start = self.log.find(key, self.cursor, self.cursor + _WINDOW + len(key))
        if start >= 0:
            return start
        candidates = self._index().get(key[:_MIN_JUMP], ())
        if not candidates:
            return None
        # The first after the current place, else the first of all.
        return candidates[bisect.bisect_left(candidates, self.cursor) % len(candidates)]

    def _index(self) -> dict[str, list[int]]:
        """The positions of the log's line starts by their first :data:`_MIN_JUMP` code points (built
        once, when a record's text is not near the current place: after text the cap dropped)."""
        if self._line_starts is None:
            index: dict[str, list[int]] = {}
            log, start = self.log, 0
            while start < len(log):
                key = log[start:start + _MIN_JUMP]
                if len(key) == _MIN_JUMP:
                    index.setdefault(key, []).append(start)
                start = log.find("\n", start) + 1 or len(log)
            self._line_starts = index
        return self._line_starts


def _append(pieces: list, n: int) -> None:
    """Add a piece of ``n`` (log if positive, literal if negative), merged into the last of its kind."""
    if pieces and isinstance(pieces[-1], int) and (pieces[-1] > 0) == (n > 0):
        pieces[-1] += n
    else:
        pieces.append(n)


def _common_prefix(a: str, i: int, b: str, j: int) -> int:
    """Length of the longest common prefix of ``a[i:]`` and ``b[j:]``, in time about linear in it."""
    n = min(len(a) - i, len(b) - j)
    if n <= 0 or a[i] != b[j]:
        return 0
    if a.startswith(b[j:j + n], i):
        return n
    # Galloping, then bisecting: ``low`` code points are known to match, ``high`` known not to.
    low, high = 1, n
    while low * 2 < high and a.startswith(b[j:j + low * 2], i):
        low *= 2
    high = min(high, low * 2)
    while high - low > 1:
        mid = (low + high) // 2
        if a.startswith(b[j:j + mid], i):
            low = mid
        else:
            high = mid
    return low


class _Decoder:
    def __init__(self, log: str, text: str, literal: int) -> None:
        self.log, self.text = log, text
        self.cursor = 0
        self.step = -1
        self.literal = literal

    def record(self, entry) -> dict:
        if isinstance(entry, dict):
            return entry["raw"]
        skip, ms, *pieces = entry
        self.step += 1 + skip
        parts = []
        for piece in pieces:
            if isinstance(piece, list):
                self.cursor, n = piece
                parts.append(self._log(n))
            elif piece > 0:
                parts.append(self._log(piece))
            else:
                end = self.literal - piece
                if end > len(self.text):
                    raise ValueError("a literal past the end of the text")
                parts.append(self.text[self.literal:end])
                self.literal = end
        return {"step": self.step, "ms": ms, "log": "".join(parts)}

    def _log(self, n: int) -> str:
        end = self.cursor + n
        if self.cursor < 0 or n <= 0 or end > len(self.log):
            raise ValueError("a piece outside the log")
        piece = self.log[self.cursor:end]
        self.cursor = end
        return piece
