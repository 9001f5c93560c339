"""The database plumbing every domain's plain SQL runs on: PostgreSQL through psycopg 3.

What only the driver knows lives here and nowhere else: whether libpq pipelines statements
(:func:`pipelines_supported`), whether the server binds and prepares them (:func:`prepares_statements`:
not behind a pooler in transaction mode, ``settings.DATABASE_POOLER``), whether the connection commits
without waiting for the WAL flush (:func:`commit_without_flush_wait`). On top of it: statements sent
together in one round trip (:func:`statements_batched`) and committed with the last of them
(:func:`commit_batched`), the transaction's settings sent with its first statement
(:func:`transaction_settings`), rows travelling as one array per column so that a statement's text is the
same for any number of rows (:func:`rows_source`, :func:`insert_rows`), data-modifying statements run as
one (:func:`execute_combined`), and parameters as the columns store them (:func:`db_datetime`,
:func:`db_json`). Table and column names come from the models, quoted (:func:`table_name`,
:func:`column_name`); parameters are always bound, never formatted into the text.
"""

from __future__ import annotations

import contextlib
import functools
import json
from collections.abc import Sequence
from functools import cache

import psycopg
from django.db import DEFAULT_DB_ALIAS, connection, connections
from psycopg.pq import TransactionStatus


def table_name(model) -> str:
    """The quoted name of ``model``'s table."""
    return connection.ops.quote_name(model._meta.db_table)


def column_name(name: str) -> str:
    """``name`` quoted as a column's name."""
    return connection.ops.quote_name(name)


@contextlib.contextmanager
def statements_batched():
    """Send the statements executed inside in as few round trips as the driver allows: psycopg 3's
    pipeline mode sends them without waiting for each answer (results are read after the block, or
    make it wait when read inside); with a libpq older than 14, which has no pipeline mode, they run one
    by one. Errors surface at the latest when the block ends, inside the caller's transaction.

    Where the block's statements are the first of a transaction Django opened (an atomic block whose
    transaction has not begun on the server), its BEGIN and its settings go with them
    (:func:`_begun_in_batch`)."""
    if not pipelines_supported():
        yield
        return
    connection.ensure_connection()
    raw = connection.connection
    begin = _transaction_not_begun(raw)
    if begin:
        # psycopg would begin it alone: in a pipeline it sends its BEGIN, then waits for the answer (to
        # know the transaction's state), a round trip of its own before the batch's. Told that the
        # connection commits by itself, it sends none; the batch's first statement is the BEGIN.
        raw.autocommit = True
    # Errors of batched statements surface when the pipeline ends, outside the cursor's own translation:
    # translated here, so callers see Django's exceptions (IntegrityError, ...) either way.
    with connection.wrap_database_errors, raw.pipeline():
        if begin:
            _begun_in_batch(raw)
        yield


def _transaction_not_begun(raw) -> bool:
    """Whether Django holds an atomic block open on the connection whose transaction the server has not
    begun (no statement sent since: psycopg would send its BEGIN before the next one)."""
    return (connection.in_atomic_block and not raw.autocommit
            and raw.info.transaction_status == TransactionStatus.IDLE)


def _begun_in_batch(raw) -> None:
    """Begin the transaction with the batch's first statements (inside :func:`statements_batched`, psycopg
    told the connection commits by itself): the BEGIN, then the transaction's settings
    (:func:`transaction_settings`; the execute wrapper, which sends its own before a transaction's first
    statement when psycopg begins it, sees a transaction under way and sends none). The atomic block
    still ends it as any other: its COMMIT or ROLLBACK goes out if the transaction is still open
    (psycopg's ``commit()`` and ``rollback()`` look at the server's state, not at that flag), and Django
    then turns autocommit on, as it always does when its outermost block ends."""
    cursor = raw.cursor()
    cursor.execute("BEGIN", prepare=False)
    text = transaction_settings_text()
    if text:
        cursor.execute(text, prepare=False)


def statement_cursor():
    """A cursor for statements that run thousands of times with the same text (a worker's hot path).

    Unless a pooler in transaction mode sits in between (``settings.DATABASE_POOLER``), the server binds
    its parameters, so that psycopg prepares a statement the ``prepare_threshold``-th time the connection
    sends its text (settings.py) and the server then skips parsing and planning it: they were about half
    of the server's time per recorded match. Django's own cursors bind on the client (the text sent holds
    the values: never the same twice, never prepared); behind such a pooler, Django's cursor. Either way a
    Django cursor wrapper: the execute wrappers (workers/app.py) and the query log see it, though the log
    holds no text (``None``) for a run of an already prepared statement, whose text psycopg does not send
    again."""
    if not prepares_statements():
        return connection.cursor()
    from django.db.backends.postgresql.base import ServerBindingCursor

    connection.ensure_connection()
    with connection.wrap_database_errors:
        return connection._prepare_cursor(ServerBindingCursor(connection.connection))


def prepares_statements() -> bool:
    """Whether :func:`statement_cursor` binds on the server, which prepares its statements (settings.py
    sets ``prepare_threshold`` None behind a pooler in transaction mode, where a prepared statement would
    live in a server connection the next transaction may not get)."""
    return connection.settings_dict["OPTIONS"].get("prepare_threshold") is not None


@cache
def pipelines_supported() -> bool:
    """Whether libpq pipelines statements (14 or later; asked once: the libpq in use never changes)."""
    return psycopg.Pipeline.is_supported()


_WITHOUT_FLUSH_WAIT = "SELECT set_config('synchronous_commit', 'off', true)"
_GENERIC_PLANS = "set_config('plan_cache_mode', 'force_generic_plan', true)"


def transaction_settings(cursor) -> None:
    """At the start of a transaction of hot-path statements: the transaction's settings, in one
    statement, each the transaction's own (``set_config(..., true)``, as ``SET LOCAL``: the commit undoes
    it, never the session's, so a pooler in transaction mode passes no setting on to another client):

    * on a worker's connection (:func:`commit_without_flush_wait`), no wait for the WAL flush at its
      commit;
    * where statements are prepared (:func:`statement_cursor`), one plan for each prepared statement, made
      for any parameters, instead of one more at each execution: their rows arrive as arrays whose
      lengths change a custom plan's estimates, so the server's own choice would keep planning them
      anew, while their plans are the same index lookups whatever the arrays hold.

    Nothing where neither applies. One statement for both, not one each: each is a round trip, in every
    claim and recording.

    A transaction begun with a batch of statements (:func:`statements_batched`) gets them with its BEGIN;
    this is for a batch that is a transaction of its own (:func:`implicit_transactions`)."""
    text = transaction_settings_text()
    if text:
        cursor.execute(text)


def transaction_settings_text() -> str | None:
    """:func:`transaction_settings`'s statement for this connection, None if it sets nothing."""
    parts = []
    if transaction_without_flush_wait in connection.execute_wrappers:
        parts.append(_WITHOUT_FLUSH_WAIT)
    if prepares_statements():
        parts.append(_GENERIC_PLANS if parts else f"SELECT {_GENERIC_PLANS}")
    return ", ".join(parts) or None


def implicit_transactions() -> bool:
    """Whether statements sent together (:func:`statements_batched`) outside any transaction run as one
    implicit transaction of their own: pipelined, in autocommit (no atomic block open), the server runs
    everything up to the pipeline's end in one transaction and commits it there, atomically (an error
    rolls all of it back), without a BEGIN or a COMMIT sent."""
    return pipelines_supported() and not connection.in_atomic_block


def commit_batched(cursor) -> bool:
    """Inside :func:`statements_batched`, end the transaction with the batch's last statement instead of
    a round trip of its own; True if it did. Only where batches are pipelined (without a pipeline the
    caller's ``transaction.atomic`` commits as usual) and only in the outermost atomic block (whose
    commit is then a no-op): an enclosing transaction must stay open. A failed statement of the batch
    makes the server skip the COMMIT, so the caller's atomic block still rolls everything back."""
    if not pipelines_supported() or len(connection.atomic_blocks) != 1:
        return False
    cursor.execute("COMMIT")
    return True


def execute_combined(parts: list[tuple[str, list]]) -> None:
    """Run data-modifying statements (``(sql, params)``, none with a RETURNING of its own) as one statement
    (each one a WITH query), in the order given: each is read by the outer SELECT in turn, so rows are
    locked in the same order as the statements one by one would lock them. Reads nothing back, so that it
    joins the caller's batch (:func:`statements_batched`)."""
    if not parts:
        return
    names = [f"w{i}" for i in range(len(parts))]
    sql = ("WITH " + ", ".join(f"{name} AS ({part} RETURNING 1)" for name, (part, _) in zip(names, parts, strict=True))
           + " SELECT " + ", ".join(f"(SELECT COUNT(*) FROM {name})" for name in names))
    with statement_cursor() as cursor:
        cursor.execute(sql, [value for _, params in parts for value in params])


def array_placeholder() -> str:
    """The placeholder of an array parameter: binary (``%b``) where the server binds the parameters
    (:func:`statement_cursor`), which spares psycopg quoting every element into text (the packed logs
    above all); text (``%s``) where the client binds them."""
    return "%b" if prepares_statements() else "%s"


def rows_source(model, columns: Sequence[str], rows: Sequence[tuple], *, name: str = "v") -> tuple[str, list]:
    """``rows`` (tuples of ``columns`` of ``model``) as a named row source for a ``WITH`` clause:
    ``name (columns) AS (...)`` and its parameters, one array per column (``unnest(%s::type[], ...)``,
    the types those of the model's columns), so that the text is the same whatever the number of rows:
    psycopg parses it once and the connection prepares it. Rows keep their order."""
    params = [list(column) for column in zip(*rows, strict=True)] if rows else [[] for _ in columns]
    return _arrays_source(model, tuple(columns), name, array_placeholder()), params


@functools.lru_cache(maxsize=256)
def _arrays_source(model, columns: tuple[str, ...], name: str, placeholder: str) -> str:
    """:func:`rows_source`'s text, built once per shape (it asks the model for every type)."""
    types = [model._meta.get_field(column).db_type(connection) for column in columns]
    arrays = ", ".join(f"{placeholder}::{db_type}[]" for db_type in types)
    return f"{name} ({', '.join(columns)}) AS (SELECT * FROM unnest({arrays}))"


def statement_text(build):
    """Decorate a function building a statement's text: the text is built once per way of binding
    (:func:`array_placeholder`), then reused."""
    by_binding = cache(lambda binds_on_server: build())

    @functools.wraps(build)
    def text() -> str:
        return by_binding(prepares_statements())

    return text


def db_datetime(value):
    """A timezone-aware datetime as a statement parameter."""
    return connection.ops.adapt_datetimefield_value(value)


def db_json(model, field: str, value):
    """``value`` as a parameter for the JSON column ``field`` of ``model``."""
    return model._meta.get_field(field).get_db_prep_value(value, connection)


def from_db_json(value):
    """A JSON column read by plain SQL (the driver may hand it over as text)."""
    return json.loads(value) if isinstance(value, str | bytes) else value


def commit_without_flush_wait(sender, connection, **_) -> None:
    """On a worker's new connection: every transaction it opens commits without waiting for PostgreSQL's
    WAL flush (:func:`transaction_without_flush_wait`).

    Connected in each worker process (``workers.app``) and in the recording bench's recorders. A worker
    commits twice per match (claim, result); waiting for each WAL flush is a large part of its time per
    match. Without the wait, a crash of PostgreSQL itself (not of a worker) can lose the last
    fraction of a second of commits, never corrupt them, and the match pipeline is built for exactly
    that: a lost claim or result leaves the match queued or running under an expired lease, and the
    reconciler plays it again. Web requests (uploads, accounts) keep the default.

    Set per transaction (``SET LOCAL``), never for the session: behind a pooler in transaction mode the
    next transaction may run on a server connection another client set otherwise, or leave one set for
    the web tier. Statements in autocommit mode (the lease renewals) keep the default.
    """
    if transaction_without_flush_wait not in connection.execute_wrappers:
        connection.execute_wrappers.append(transaction_without_flush_wait)


def transaction_without_flush_wait(execute, sql, params, many, context):
    """A Django execute wrapper: before the first statement of a transaction, ``SET LOCAL
    synchronous_commit TO off`` (sent along with it where statements are pipelined, so no round trip of
    its own). A transaction begun with a batch of statements (:func:`statements_batched`) is under way
    before its first statement reaches this wrapper, which sends nothing: the batch sets it."""
    database = context["connection"]
    if database.in_atomic_block and database.connection.info.transaction_status == TransactionStatus.IDLE:
        # The driver's own cursor: through Django's, this wrapper would run again.
        context["cursor"].cursor.execute("SET LOCAL synchronous_commit TO off", prepare=False)
    return execute(sql, params, many, context)


def insert_rows(model, objects: Sequence, *, returning: Sequence[str] = ()) -> list[tuple]:
    """Insert ``objects`` (unsaved instances of ``model``) in one statement whose text is the same for any
    number of rows: every concrete column but the primary key, as Django's ``bulk_create`` writes it
    (each field's ``pre_save``, defaults and ``auto_now`` included), travelling as one array per column
    (:func:`rows_source`). Django's ``bulk_create`` spells out a placeholder per value instead, which cost
    more than the database's work for a tournament's matches and seats. Returns the ``returning`` columns
    of the rows inserted, in no promised order."""
    fields = _insert_fields(model)
    # This thread's connection itself: every attribute read through the ``connection`` proxy is a lookup
    # of the thread's connections, and the fields read several for each value.
    database = connections[DEFAULT_DB_ALIAS]
    rows = [tuple(field.get_db_prep_save(field.pre_save(obj, True), database) for field in fields)
            for obj in objects]
    if not rows:
        return []
    attnames = [field.attname for field in fields]  # the row source's names (its types are the fields')
    source, params = rows_source(model, attnames, rows)
    names = ", ".join(column_name(field.column) for field in fields)
    sql = f"WITH {source} INSERT INTO {table_name(model)} ({names}) SELECT {', '.join(attnames)} FROM v"
    if returning:
        sql += " RETURNING " + ", ".join(column_name(column) for column in returning)
    with statement_cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if returning else []


@functools.lru_cache(maxsize=16)
def _insert_fields(model) -> list:
    return [field for field in model._meta.concrete_fields if not field.primary_key]
