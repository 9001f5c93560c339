"""The statements of a worker's hot path (claim a match, record its result) as plain SQL.

Every match a worker plays costs it a claim and a recording; at tens of matches per second per machine,
building those queries with the ORM cost as much CPU as playing the match's protocol, and every round
trip to the database adds its latency to the match. So these few statements are written once, here,
for both supported databases (PostgreSQL and SQLite: the same text), and :func:`statements_batched`
sends those that do not depend on each other in one round trip. Table and column names come from the models, parameters are always bound, never formatted
into the text.
"""

from __future__ import annotations

import contextlib
import functools
import json
import uuid
from collections.abc import Sequence
from functools import cache

from django.db import DEFAULT_DB_ALIAS, connection, connections

from ladder.models import Bot, BotVersion, Game, Match, MatchSetup, Seat, Tournament


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _column(name: str) -> str:
    return connection.ops.quote_name(name)


@contextlib.contextmanager
def statements_batched():
    """Send the statements executed inside in as few round trips as the driver allows: psycopg 3's
    pipeline mode sends them without waiting for each answer (results are read after the block, or
    make it wait when read inside); other databases, and a libpq older than 14, run them one by one.
    Errors surface at the latest when the block ends, inside the caller's transaction.

    Where the block's statements are the first of a transaction Django opened (an atomic block whose
    transaction has not begun on the server), its BEGIN and its settings go with them
    (:func:`_begun_in_batch`)."""
    if not _pipelines_supported():
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
    from psycopg.pq import TransactionStatus

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
    text = _settings_text()
    if text:
        cursor.execute(text, prepare=False)


def statement_cursor():
    """A cursor for the statements of this module, which run thousands of times with the same text.

    On PostgreSQL, unless a pooler in transaction mode sits in between (``settings.DATABASE_POOLER``),
    the server binds its parameters, so that psycopg prepares a statement the ``prepare_threshold``-th
    time the connection sends its text (settings.py) and the server then skips parsing and planning it:
    they were about half of the server's time per recorded match. Django's own cursors bind on the client
    (the text sent holds the values: never the same twice, never prepared). Elsewhere, Django's cursor.
    Either way a Django cursor wrapper: the execute wrappers (workers/app.py) and the query log see it,
    though the log holds no text (``None``) for a run of an already prepared statement, whose text psycopg
    does not send again."""
    if not _prepares_statements():
        return connection.cursor()
    from django.db.backends.postgresql.base import ServerBindingCursor

    connection.ensure_connection()
    with connection.wrap_database_errors:
        return connection._prepare_cursor(ServerBindingCursor(connection.connection))


def _prepares_statements() -> bool:
    return connection.vendor == "postgresql" and connection.settings_dict["OPTIONS"].get("prepare_threshold") is not None


def _pipelines_supported() -> bool:
    return _vendor_pipelines(connection.vendor)


@cache
def _vendor_pipelines(vendor: str) -> bool:
    """Whether the driver of ``vendor`` pipelines statements (asked once: the libpq in use never changes)."""
    if vendor != "postgresql":
        return False
    import psycopg

    return psycopg.Pipeline.is_supported()


_WITHOUT_FLUSH_WAIT = "SELECT set_config('synchronous_commit', 'off', true)"
_GENERIC_PLANS = "set_config('plan_cache_mode', 'force_generic_plan', true)"


def transaction_settings(cursor) -> None:
    """At the start of a transaction of these statements: the transaction's settings, in one statement,
    each the transaction's own (``set_config(..., true)``, as ``SET LOCAL``: the commit undoes it, never
    the session's, so a pooler in transaction mode passes no setting on to another client):

    * on a worker's connection (:func:`commit_without_flush_wait`), no wait for the WAL flush at its
      commit;
    * where statements are prepared (:func:`statement_cursor`), one plan for each prepared statement, made
      for any parameters, instead of one more at each execution. The server's own choice kept planning
      some of them at every run: their rows arrive as arrays whose lengths change the estimates of a plan
      made for the values, so the plan made for any values looked dearer than it is (the finish of a
      message's matches was planned anew at every recording, about a fifth of that statement's time).
      Their plans are the same index lookups whatever the arrays hold.

    Nothing where neither applies. Each setting sent as a statement of its own cost a worker's process a
    send to the server and the server a statement, twice in every claim and recording.

    A transaction begun with a batch of statements (:func:`statements_batched`) gets them with its BEGIN;
    this is for a batch that is a transaction of its own (:func:`implicit_transactions`)."""
    text = _settings_text()
    if text:
        cursor.execute(text)


def _settings_text() -> str | None:
    """:func:`transaction_settings`'s statement for this connection, None if it sets nothing."""
    parts = []
    if _commits_without_flush_wait():
        parts.append(_WITHOUT_FLUSH_WAIT)
    if _prepares_statements():
        parts.append(_GENERIC_PLANS if parts else f"SELECT {_GENERIC_PLANS}")
    return ", ".join(parts) or None


def _commits_without_flush_wait() -> bool:
    return connection.vendor == "postgresql" and transaction_without_flush_wait in connection.execute_wrappers


def implicit_transactions() -> bool:
    """Whether statements sent together (:func:`statements_batched`) outside any transaction run as one
    implicit transaction of their own: pipelined, in autocommit (no atomic block open), the server runs
    everything up to the pipeline's end in one transaction and commits it there, atomically (an error
    rolls all of it back), without a BEGIN or a COMMIT sent."""
    return _pipelines_supported() and not connection.in_atomic_block


def commit_batched(cursor) -> bool:
    """Inside :func:`statements_batched`, end the transaction with the batch's last statement instead of
    a round trip of its own; True if it did. Only where batches are pipelined (elsewhere the caller's
    ``transaction.atomic`` commits as usual) and only in the outermost atomic block (whose commit is
    then a no-op): an enclosing transaction must stay open. A failed statement of the batch makes the
    server skip the COMMIT, so the caller's atomic block still rolls everything back."""
    if not _pipelines_supported() or len(connection.atomic_blocks) != 1:
        return False
    cursor.execute("COMMIT")
    return True


def execute_many(sql: str, params: list[tuple]) -> None:
    """One parametrised statement for each of a few rows. Executed one by one rather than with
    ``executemany``: inside :func:`statements_batched` they then join the caller's batch, while psycopg's
    ``executemany`` opens a pipeline of its own whose end waits for the server."""
    with statement_cursor() as cursor:
        for row in params:
            cursor.execute(sql, row)


def arrays_supported() -> bool:
    """Whether rows can travel as one array per column (:func:`rows_source`): PostgreSQL."""
    return connection.vendor == "postgresql"


def array_placeholder() -> str:
    """The placeholder of an array parameter: binary (``%b``) where the server binds the parameters
    (:func:`statement_cursor`), which spares psycopg quoting every element into text (the packed logs
    above all); text (``%s``) where the client binds them."""
    return "%b" if _prepares_statements() else "%s"


def rows_source(model, columns: Sequence[str], rows: Sequence[tuple], *, name: str = "v") -> tuple[str, list]:
    """``rows`` (tuples of ``columns`` of ``model``) as a named row source for a ``WITH`` clause:
    ``name (columns) AS (...)`` and its parameters. On PostgreSQL one array per column
    (``unnest(%s::type[], ...)``, the types those of the model's columns), so that the text is the same
    whatever the number of rows: psycopg parses it once and the connection prepares it; elsewhere a
    multi-row ``VALUES``. Rows keep their order."""
    if arrays_supported():
        params = [list(column) for column in zip(*rows, strict=True)] if rows else [[] for _ in columns]
        return _arrays_source(model, tuple(columns), name, array_placeholder()), params
    row = "(" + ", ".join(["%s"] * len(columns)) + ")"
    return (f"{name} ({', '.join(columns)}) AS (VALUES {', '.join([row] * len(rows))})",
            [value for values in rows for value in values])


@functools.lru_cache(maxsize=256)
def _arrays_source(model, columns: tuple[str, ...], name: str, placeholder: str) -> str:
    """:func:`rows_source`'s text on PostgreSQL, built once per shape (it asks the model for every type)."""
    types = [model._meta.get_field(column).db_type(connection) for column in columns]
    arrays = ", ".join(f"{placeholder}::{db_type}[]" for db_type in types)
    return f"{name} ({', '.join(columns)}) AS (SELECT * FROM unnest({arrays}))"


def db_datetime(value):
    """A timezone-aware datetime as a parameter of these statements."""
    return connection.ops.adapt_datetimefield_value(value)


def db_token(value):
    """An attempt token (UUID) as a parameter of these statements."""
    return Match._meta.get_field("attempt_token").get_db_prep_value(value, connection)


def db_json(model, field: str, value):
    """``value`` as a parameter for the JSON column ``field`` of ``model``."""
    return model._meta.get_field(field).get_db_prep_value(value, connection)


def from_db_json(value):
    """A JSON column read by these statements (drivers hand it over as text)."""
    return json.loads(value) if isinstance(value, str | bytes) else value


def _statement(build):
    """Decorate a function building a statement's text: the text is built once per database vendor
    (names are quoted by the vendor's rules) and way of binding (:func:`array_placeholder`), then reused."""
    by_vendor = cache(lambda vendor, binds_on_server: build())

    @functools.wraps(build)
    def text() -> str:
        return by_vendor(connection.vendor, _prepares_statements())

    return text


@_statement
def claim_sql() -> str:
    """Params: running, token, lease end, now, worker, now, match id, queued, running, now, queued,
    running. The database serialises concurrent claims on the row; the second one matches no row. A
    held rotation of a rated deal (an earlier rotation of its deal still queued or running:
    ``ladder.services.tournaments.rotations``) matches no row either, whatever message brought the claim; the
    ``deal IS NULL`` test first keeps that look off every other match."""
    match, index = _table(Match), _column("index")
    return (
        f"UPDATE {match} SET status = %s, attempts = attempts + 1, attempt_token = %s, lease_expires_at = %s, "
        "started_at = %s, worker = %s, updated_at = %s "
        "WHERE id = %s AND (status = %s OR (status = %s AND lease_expires_at < %s)) "
        f"AND ({match}.deal IS NULL OR NOT EXISTS (SELECT 1 FROM {match} p JOIN {_table(Tournament)} t "
        f"ON t.id = p.tournament_id WHERE p.tournament_id = {match}.tournament_id AND p.deal = {match}.deal "
        f"AND p.{index} < {match}.{index} AND p.status IN (%s, %s) AND t.rated))"
    )


@_statement
def claim_many_sql() -> str:
    """PostgreSQL only (:func:`combined`). Params: match ids, their tokens (arrays, same order), queued,
    running, now, queued, running, running, lease end, now, worker, now. Claims, as :func:`claim_sql` does one by
    one, every match of the list that can be claimed, each under its own token, and reads them back in the
    same statement: rows as :func:`claimed_match_sql`'s, each led by its match id, in match then seat order,
    for the claimed matches only.

    The rows are locked in id order, so that two workers whose lists overlap (a message sent again) never
    wait on each other in opposite orders. A row another transaction holds is waited for, as a single
    claim waits, and looked at again once it is free: skipped, a match held a moment by anything else (its
    message being marked sent, the reconciler) would be lost to a message already taken. What is read
    back comes from the claimed rows themselves (``RETURNING``), their setups and seats from their own
    tables."""
    match, index, a = _table(Match), _column("index"), array_placeholder()
    return (
        f"WITH v AS (SELECT * FROM unnest({a}::bigint[], {a}::uuid[]) AS v (id, token)), "
        f"c AS (SELECT m.id FROM {match} m JOIN v ON v.id = m.id "
        "WHERE (m.status = %s OR (m.status = %s AND m.lease_expires_at < %s)) "
        f"AND (m.deal IS NULL OR NOT EXISTS (SELECT 1 FROM {match} p JOIN {_table(Tournament)} t "
        f"ON t.id = p.tournament_id WHERE p.tournament_id = m.tournament_id AND p.deal = m.deal "
        f"AND p.{index} < m.{index} AND p.status IN (%s, %s) AND t.rated)) "
        "ORDER BY m.id FOR UPDATE OF m), "
        f"u AS (UPDATE {match} SET status = %s, attempts = attempts + 1, attempt_token = v.token, "
        "lease_expires_at = %s, started_at = %s, worker = %s, updated_at = %s "
        f"FROM c JOIN v ON v.id = c.id WHERE {match}.id = c.id "
        f"RETURNING {match}.id, {match}.game_id, {match}.players, {match}.seed, {match}.setup_id) "
        "SELECT u.id, g.slug, u.players, u.seed, su.options, su.limits, s.position, b.name, s.bot_version_id, "
        f"bv.sha256 FROM u JOIN {_table(Game)} g ON g.id = u.game_id "
        f"LEFT JOIN {_table(MatchSetup)} su ON su.id = u.setup_id "
        f"LEFT JOIN {_table(Seat)} s ON s.match_id = u.id "
        f"LEFT JOIN {_table(Bot)} b ON b.id = s.bot_id "
        f"LEFT JOIN {_table(BotVersion)} bv ON bv.id = s.bot_version_id "
        "ORDER BY u.id, s.position"
    )


@_statement
def renew_leases_sql() -> str:
    """PostgreSQL only. Params: lease end, match ids, their tokens (arrays, same order), running. Rows:
    the ids of the matches still running under their tokens, whose leases it extended. Bound on the
    client (the heartbeat's thread runs it on a Django cursor of the connection lent to it)."""
    match = _table(Match)
    return (
        f"UPDATE {match} SET lease_expires_at = %s "
        "FROM unnest(%s::bigint[], %s::uuid[]) AS v (id, token) "
        f"WHERE {match}.id = v.id AND {match}.status = %s AND {match}.attempt_token = v.token "
        f"RETURNING {match}.id"
    )


@_statement
def renew_lease_sql() -> str:
    """Params: lease end, match id, running, token. Matches no row unless the match is still running
    under the token."""
    return (
        f"UPDATE {_table(Match)} SET lease_expires_at = %s "
        "WHERE id = %s AND status = %s AND attempt_token = %s"
    )


@_statement
def claimed_match_sql() -> str:
    """Params: match id. Rows: game slug, players, seed, options, limits (its setup's; NULLs for a match
    without one), then the seat's position, bot name, version id and code checksum (NULLs for a match
    without seats), in seat order."""
    return (
        f"SELECT g.slug, m.players, m.seed, su.options, su.limits, s.position, b.name, s.bot_version_id, v.sha256 "
        f"FROM {_table(Match)} m JOIN {_table(Game)} g ON g.id = m.game_id "
        f"LEFT JOIN {_table(MatchSetup)} su ON su.id = m.setup_id "
        f"LEFT JOIN {_table(Seat)} s ON s.match_id = m.id "
        f"LEFT JOIN {_table(Bot)} b ON b.id = s.bot_id "
        f"LEFT JOIN {_table(BotVersion)} v ON v.id = s.bot_version_id "
        "WHERE m.id = %s ORDER BY s.position"
    )


@_statement
def finish_sql() -> str:
    """Params: actions (``ladder.packed_actions.pack``), finished, now, duration, now, match id, running,
    token. Matches no row unless the match is still running under the token; otherwise it takes the match
    row's lock."""
    return (
        f"UPDATE {_table(Match)} SET actions_packed = %s, status = %s, finished_at = %s, duration_s = %s, "
        "attempt_token = NULL, lease_expires_at = NULL, failure_reason = '', updated_at = %s "
        "WHERE id = %s AND status = %s AND attempt_token = %s"
    )


@_statement
def tournament_hold_sql() -> str:
    """Params: tournament id, tournament id, queued. Locks the tournament's row unless one of its matches is
    queued (a queued match cannot finish behind the caller's back, so there is nothing to hold it for)."""
    return (
        f"SELECT t.id FROM {_table(Tournament)} t WHERE t.id = %s AND NOT EXISTS (SELECT 1 FROM {_table(Match)} m "
        "WHERE m.tournament_id = %s AND m.status = %s) FOR UPDATE OF t"
    )


@_statement
def tournament_finish_sql() -> str:
    """Params: finished, now, now, tournament id, round robin, running, tournament id, queued, running. Marks a
    running round robin finished when none of its matches is queued or running; its creator's id when it
    did. Run after :func:`tournament_hold_sql` in the same transaction, as a statement of its own: it then
    sees every recording that held the row before, committed (its own snapshot is taken once the lock is
    granted)."""
    return (
        f"UPDATE {_table(Tournament)} SET status = %s, finished_at = %s, updated_at = %s "
        f"WHERE id = %s AND kind = %s AND status = %s AND NOT EXISTS (SELECT 1 FROM {_table(Match)} m "
        "WHERE m.tournament_id = %s AND m.status IN (%s, %s)) RETURNING created_by_id"
    )


def combined() -> bool:
    """Whether the recording's statements are combined (:func:`finish_many_sql`, :func:`execute_combined`):
    where data-modifying statements can run inside a WITH (PostgreSQL). Elsewhere they run one by one."""
    return connection.vendor == "postgresql"


@_statement
def finish_many_sql() -> str:
    """Finish every match still running under its token, and read back its seats (see
    :func:`finish_many_params`). Rows, in match then seat order: match id, seat id, bot id, game id,
    tournament id, tournament kind, whether it is rated, comparison id, deal, seat position, whether the
    tournament still has queued matches; one row with a NULL seat for a finished match without seats; none
    for a match not running under its token. The reads see the database as before the UPDATE.

    Whether a tournament has queued matches is read once per tournament of the batch (a materialised
    query: as an EXISTS in the select list it ran once per seat), as its newest queued match: one entry
    read from the end of the index on (tournament, status, id), however many are queued. (A count of
    them read the whole queue, 12 ms a recording with 25,000 queued in the ladder's tournament; an
    EXISTS is costed as stopping at the first match found, which for the ladder's tournament, most of
    the table, made a scan from the oldest matches look cheap, while the queued ones are the newest: a
    scan from the newest end finds them first.)"""
    match, seat, tournament, a = _table(Match), _table(Seat), _table(Tournament), array_placeholder()
    return (
        f"WITH v AS (SELECT * FROM unnest({a}::bigint[], {a}::uuid[], {a}::bytea[], {a}::double precision[]) "
        "AS v (id, token, actions, duration)), "
        f"finished AS (UPDATE {match} SET actions_packed = v.actions, status = %s, finished_at = %s, "
        "duration_s = v.duration, attempt_token = NULL, lease_expires_at = NULL, failure_reason = '', "
        f"updated_at = %s FROM v WHERE {match}.id = v.id AND {match}.status = %s "
        f"AND {match}.attempt_token = v.token "
        f"RETURNING {match}.id, {match}.game_id, {match}.tournament_id, {match}.comparison_id, {match}.deal), "
        f"queued AS MATERIALIZED (SELECT d.tournament_id, (SELECT q.id FROM {match} q "
        "WHERE q.tournament_id = d.tournament_id AND q.status = %s ORDER BY q.id DESC LIMIT 1) IS NOT NULL "
        "AS left_queued "
        "FROM (SELECT DISTINCT tournament_id FROM finished WHERE tournament_id IS NOT NULL) d) "
        "SELECT f.id, s.id, s.bot_id, f.game_id, f.tournament_id, t.kind, t.rated, f.comparison_id, f.deal, "
        "s.position, COALESCE(qt.left_queued, false) "
        f"FROM finished f LEFT JOIN {seat} s ON s.match_id = f.id LEFT JOIN {tournament} t ON t.id = f.tournament_id "
        "LEFT JOIN queued qt ON qt.tournament_id = f.tournament_id "
        "ORDER BY f.id, s.position"
    )


def finish_many_params(results: Sequence, *, finished: str, running: str, queued: str, now) -> list:
    """:func:`finish_many_sql`'s parameters for ``results`` (``recording.PackedResult``, one per match)."""
    return [[result.match_id for result in results],
            [db_token(uuid.UUID(result.token)) for result in results],
            [result.actions for result in results],
            [result.duration_s for result in results],
            finished, now, now, running, queued]


SEAT_RESULT_COLUMNS = ("score", "place", "outcome", "reason", "time_used_ms", "logs", "rating_before", "rating_after",
                       "id")


def seat_results_part(rows: list[tuple]) -> tuple[str, list]:
    """The seats' results, rows of :data:`SEAT_RESULT_COLUMNS` (:func:`seat_result_sql`'s params), as one
    UPDATE: a part of :func:`execute_combined`."""
    seat = _table(Seat)
    source, params = rows_source(Seat, SEAT_RESULT_COLUMNS, rows)
    assignments = ", ".join(f"{_column(name)} = v.{name}" for name in SEAT_RESULT_COLUMNS[:-1])
    return f"WITH {source} UPDATE {seat} SET {assignments} FROM v WHERE {seat}.{_column('id')} = v.id", params


def execute_combined(parts: list[tuple[str, list]]) -> None:
    """Run data-modifying statements (``(sql, params)``, none with a RETURNING of its own) as one statement
    (PostgreSQL: each one a WITH query), in the order given: each is read by the outer SELECT in turn,
    so rows are locked in the same order as the statements one by one would lock them. Reads nothing
    back, so that it joins the caller's batch (:func:`statements_batched`)."""
    if not parts:
        return
    names = [f"w{i}" for i in range(len(parts))]
    sql = ("WITH " + ", ".join(f"{name} AS ({part} RETURNING 1)" for name, (part, _) in zip(names, parts, strict=True))
           + " SELECT " + ", ".join(f"(SELECT COUNT(*) FROM {name})" for name in names))
    with statement_cursor() as cursor:
        cursor.execute(sql, [value for _, params in parts for value in params])


@_statement
def seats_sql() -> str:
    """Params: match id. Rows: seat id, bot id, game id, tournament id, tournament kind, whether the
    tournament is rated, comparison id, deal, seat position, in seat order. A comparison's match has no
    tournament: NULL tournament id, kind and rated (unrated)."""
    return (
        f"SELECT s.id, s.bot_id, m.game_id, m.tournament_id, t.kind, t.rated, m.comparison_id, m.deal, s.position "
        f"FROM {_table(Seat)} s "
        f"JOIN {_table(Match)} m ON m.id = s.match_id LEFT JOIN {_table(Tournament)} t ON t.id = m.tournament_id "
        "WHERE s.match_id = %s ORDER BY s.position"
    )


@_statement
def seat_result_sql() -> str:
    """Params: score, place, outcome, reason, time used, logs (``ladder.seat_logs.pack``), rating before,
    rating after, seat id."""
    return (
        f"UPDATE {_table(Seat)} SET score = %s, place = %s, outcome = %s, reason = %s, time_used_ms = %s, "
        "logs = %s, rating_before = %s, rating_after = %s WHERE id = %s"
    )


@_statement
def queued_left_sql() -> str:
    """Params: queued, match id. One row: whether any match of the match's tournament is still queued."""
    return (
        f"SELECT EXISTS (SELECT 1 FROM {_table(Match)} WHERE status = %s "
        f"AND tournament_id = (SELECT tournament_id FROM {_table(Match)} WHERE id = %s))"
    )


def commit_without_flush_wait(sender, connection, **_) -> None:
    """On a worker's new PostgreSQL connection: every transaction it opens commits without waiting for
    PostgreSQL's WAL flush (:func:`transaction_without_flush_wait`).

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
    if connection.vendor == "postgresql" and transaction_without_flush_wait not in connection.execute_wrappers:
        connection.execute_wrappers.append(transaction_without_flush_wait)


def transaction_without_flush_wait(execute, sql, params, many, context):
    """A Django execute wrapper: before the first statement of a transaction, ``SET LOCAL
    synchronous_commit TO off`` (sent along with it where statements are pipelined, so no round trip of
    its own). A transaction begun with a batch of statements (:func:`statements_batched`) is under way
    before its first statement reaches this wrapper, which sends nothing: the batch sets it."""
    from psycopg.pq import TransactionStatus

    database = context["connection"]
    if database.in_atomic_block and database.connection.info.transaction_status == TransactionStatus.IDLE:
        # The driver's own cursor: through Django's, this wrapper would run again.
        context["cursor"].cursor.execute("SET LOCAL synchronous_commit TO off", prepare=False)
    return execute(sql, params, many, context)


def insert_rows(model, objects: Sequence, *, returning: Sequence[str] = ()) -> list[tuple]:
    """PostgreSQL only (:func:`arrays_supported`). Insert ``objects`` (unsaved instances of ``model``) in one
    statement whose text is the same for any number of rows: every concrete column but the primary key, as
    Django's ``bulk_create`` writes it (each field's ``pre_save``, defaults and ``auto_now`` included),
    travelling as one array per column (:func:`rows_source`). Django's ``bulk_create`` spells out a
    placeholder per value instead, which cost more than the database's work for a tournament's matches
    and seats. Returns the ``returning`` columns of the rows inserted, in no promised order."""
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
    names = ", ".join(_column(field.column) for field in fields)
    sql = f"WITH {source} INSERT INTO {_table(model)} ({names}) SELECT {', '.join(attnames)} FROM v"
    if returning:
        sql += " RETURNING " + ", ".join(_column(column) for column in returning)
    with statement_cursor() as cursor:
        cursor.execute(sql, params)
        return cursor.fetchall() if returning else []


@functools.lru_cache(maxsize=16)
def _insert_fields(model) -> list:
    return [field for field in model._meta.concrete_fields if not field.primary_key]
