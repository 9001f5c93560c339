"""What a connection sends PostgreSQL and what it gets back, message by message (libpq's own trace of the
wire protocol): how many statements and round trips a piece of work costs, as the server sees them (Django's
query log misses what psycopg sends by itself, such as a transaction's BEGIN, and does not say which
statements travelled together)."""

from __future__ import annotations

import contextlib
import dataclasses
import tempfile
from collections.abc import Iterator

from django.db import connection


@dataclasses.dataclass
class ProtocolTrace:
    """The messages traced: one line each, ``F`` (sent) or ``B`` (received), then the length, the message
    type and its fields, as libpq writes them."""

    lines: list[str] = dataclasses.field(default_factory=list)

    def sent(self, kind: str) -> list[str]:
        """The messages of type ``kind`` (``Parse``, ``Execute``, ``Sync``, ...) the client sent."""
        return [line for line in self.lines if line.split("\t")[:1] == ["F"] and line.split("\t")[2:3] == [kind]]

    @property
    def statements(self) -> int:
        """Statements run: one ``Execute`` each in the extended protocol (a prepared statement is parsed
        once, executed every time), one ``Query`` each in the simple one (Django's cursors, unpipelined)."""
        return len(self.sent("Execute")) + len(self.sent("Query"))

    @property
    def round_trips(self) -> int:
        """Batches the client sent and then waited for: one ``Sync`` each in the extended protocol (the end
        of a pipeline, or of a statement sent alone), one ``Query`` each in the simple one."""
        return len(self.sent("Sync")) + len(self.sent("Query"))

    def parsed(self, text: str) -> bool:
        """Whether a statement whose text starts with ``text`` was sent."""
        return any(f'"{text}' in line for line in self.sent("Parse") + self.sent("Query"))


@contextlib.contextmanager
def protocol_traced() -> Iterator[ProtocolTrace]:
    """Trace the default connection (PostgreSQL, psycopg) for the length of a ``with`` block."""
    import psycopg

    connection.ensure_connection()
    pgconn = connection.connection.pgconn
    trace = ProtocolTrace()
    with tempfile.TemporaryFile() as file:
        pgconn.trace(file.fileno())
        pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS | psycopg.pq.Trace.REGRESS_MODE)
        try:
            yield trace
        finally:
            pgconn.untrace()
            file.seek(0)
            trace.lines.extend(file.read().decode("utf-8", "replace").splitlines())
