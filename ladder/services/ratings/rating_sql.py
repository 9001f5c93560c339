"""The statements of the rating applier (``ladder.services.ratings.rating_updates``) as plain SQL: the game's
locks, the read of a batch of pending matches, and the multi-row writes that apply a batch in one
statement per table.

The same text serves both supported databases where it can (a ``WITH v(...) AS (VALUES ...)`` CTE feeds
the multi-row UPDATEs on PostgreSQL and on SQLite); the locks are PostgreSQL's advisory locks, and
SQLite, whose one writer at a time already serialises the applier, has none. Parameters are always
bound, never formatted into the text.

Two advisory locks per game, keyed ``(namespace, game id)``:

* ``APPLY``: held by the game's one applier for the transaction of a batch (``pg_try_advisory_xact_lock``:
  a worker that does not get it leaves the batch to the holder), and by the rebuild's swap and its
  pair-records rebuild, which so hold off the application (never the recording) of results.
* ``RECORD``: taken *shared* by every recording of a rated match of the game (shared locks never wait
  for one another), and exclusively by the rebuild's standings rebuild, which so holds off the game's
  rated recordings (they write the standings) for that transaction.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.db import connection

from ladder.models import Match, PendingRating, Rating, RatingChange, Seat, Tournament
from ladder.services import match_sql

#: The advisory lock namespaces (first key) of the applier and of the recordings.
APPLY_LOCK, RECORD_LOCK = 0x52415441, 0x52454344


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _column(name: str) -> str:
    return connection.ops.quote_name(name)


def has_advisory_locks() -> bool:
    return connection.vendor == "postgresql"


def pending_insert_sql() -> str:
    """Params: match id, game id. Marks a recorded rated match pending; on PostgreSQL the same statement
    takes the game's ``RECORD`` lock shared (so that it joins the recorder's batch as one statement)."""
    insert = f"INSERT INTO {_table(PendingRating)} (match_id, game_id) "
    if has_advisory_locks():
        return insert + f"SELECT %s, g FROM (SELECT CAST(%s AS bigint) AS g, pg_advisory_xact_lock_shared({RECORD_LOCK}, CAST(%s AS integer))) AS held"
    return insert + "VALUES (%s, %s)"


def pending_insert_params(match_id: int, game_id: int) -> list:
    return [match_id, game_id, game_id] if has_advisory_locks() else [match_id, game_id]


def pending_insert_many_sql() -> str:
    """Params: match ids (an array), game id, game id. :func:`pending_insert_sql` for many matches of one
    game in one statement (PostgreSQL), the game's ``RECORD`` lock taken shared once."""
    return (f"INSERT INTO {_table(PendingRating)} (match_id, game_id) "
            "SELECT m, held.g FROM (SELECT CAST(%s AS bigint) AS g, "
            f"pg_advisory_xact_lock_shared({RECORD_LOCK}, CAST(%s AS integer))) AS held, "
            "unnest(%s::bigint[]) AS m")


def try_apply_lock_sql() -> str:
    """Params: game id. One row: whether this transaction now holds the game's ``APPLY`` lock."""
    return f"SELECT pg_try_advisory_xact_lock({APPLY_LOCK}, CAST(%s AS integer))"


def apply_lock_sql() -> str:
    """Params: game id. Waits for the game's ``APPLY`` lock."""
    return f"SELECT pg_advisory_xact_lock({APPLY_LOCK}, CAST(%s AS integer))"


def record_lock_sql() -> str:
    """Params: game id. Waits for the game's ``RECORD`` lock, exclusive: rated recordings in flight finish
    first, new ones wait."""
    return f"SELECT pg_advisory_xact_lock({RECORD_LOCK}, CAST(%s AS integer))"


def pending_batch_sql() -> str:
    """Params: game id, batch size. Rows: pending id, match id, seat id, bot id, place, outcome, then the
    seat's bot's rating row (:data:`RATING_COLUMNS`, all None where the row is missing), for the game's
    first ``batch size`` pending matches in pending order, each match's seats in seat order.

    One statement, read from the pending rows to their seats and on to the seats' ratings, each step a
    lateral lookup by an index on what the last one found (``OFFSET 0`` keeps the planner from folding the
    seats' lookup into a join it may plan as a scan of the table when its statistics are stale), so the
    rows read are the batch's, however many matches its bots have played; and the seats and ratings come
    from one snapshot. Elsewhere (SQLite, no LATERAL) the same rows by plain joins."""
    ratings = ', '.join(f'r.{column}' for column in RATING_COLUMNS)
    pending = (f"(SELECT id, match_id, game_id FROM {_table(PendingRating)} WHERE game_id = %s "
               "ORDER BY id LIMIT %s) p")
    if connection.vendor != "postgresql":
        return (
            f"SELECT p.id, p.match_id, s.id, s.bot_id, s.place, s.outcome, {ratings} FROM {pending} "
            f"JOIN {_table(Seat)} s ON s.match_id = p.match_id "
            f"LEFT JOIN {_table(Rating)} r ON r.game_id = p.game_id AND r.bot_id = s.bot_id "
            "ORDER BY p.id, s.position"
        )
    return (
        f"SELECT p.id, p.match_id, s.id, s.bot_id, s.place, s.outcome, {ratings} FROM {pending} "
        f"CROSS JOIN LATERAL (SELECT id, bot_id, place, outcome, position FROM {_table(Seat)} "
        f"WHERE match_id = p.match_id OFFSET 0) s "
        f"LEFT JOIN LATERAL (SELECT {', '.join(RATING_COLUMNS)} FROM {_table(Rating)} "
        f"WHERE game_id = p.game_id AND bot_id = s.bot_id) r ON true ORDER BY p.id, s.position"
    )


def pending_exists_sql() -> str:
    """Params: game id. One row if the game has a pending match, none otherwise."""
    return f"SELECT 1 FROM {_table(PendingRating)} WHERE game_id = %s LIMIT 1"


def pending_games_among_sql() -> str:
    """Params: game ids (an array). Rows: those of the games that have a pending match."""
    return (f"SELECT g FROM unnest(%s::bigint[]) AS g "
            f"WHERE EXISTS (SELECT 1 FROM {_table(PendingRating)} p WHERE p.game_id = g)")


RATING_COLUMNS = ("id", "bot_id", "elo", "games", "wins", "draws", "losses")


def inline_locks_sql() -> str:
    """Params: match ids (an array). For each game of a rated tournament among those matches: its id,
    whether this transaction now holds the game's ``APPLY`` lock (tried, never waited for), and whether
    the game has pending matches; the game's ``RECORD`` lock taken shared first (as
    :func:`pending_insert_sql` takes it). The recording sends it before the statements that read the
    ratings, so that they read them under the lock (each statement its own snapshot)."""
    return (
        f"SELECT g, pg_advisory_xact_lock_shared({RECORD_LOCK}, CAST(g AS integer)) IS NULL, "
        f"pg_try_advisory_xact_lock({APPLY_LOCK}, CAST(g AS integer)), "
        f"EXISTS (SELECT 1 FROM {_table(PendingRating)} p WHERE p.game_id = g) "
        f"FROM (SELECT DISTINCT m.game_id AS g FROM {_table(Match)} m JOIN {_table(Tournament)} t "
        "ON t.id = m.tournament_id WHERE m.id = ANY(%s::bigint[]) AND t.rated ORDER BY m.game_id) AS games"
    )


def inline_ratings_sql() -> str:
    """Params: match ids (an array). Rows: game id then :data:`RATING_COLUMNS`, the rating rows of the bots
    seated in those matches of rated tournaments, each looked up by its index (``OFFSET 0``: see
    :func:`pending_batch_sql`)."""
    return (
        f"SELECT m.game_id, {', '.join(f'r.{column}' for column in RATING_COLUMNS)} "
        f"FROM {_table(Match)} m JOIN {_table(Tournament)} t ON t.id = m.tournament_id AND t.rated "
        f"CROSS JOIN LATERAL (SELECT bot_id FROM {_table(Seat)} WHERE match_id = m.id OFFSET 0) s "
        f"JOIN {_table(Rating)} r ON r.game_id = m.game_id AND r.bot_id = s.bot_id "
        "WHERE m.id = ANY(%s::bigint[])"
    )


def pending_games_sql() -> str:
    """No params. Rows: the games with pending matches."""
    return f"SELECT DISTINCT game_id FROM {_table(PendingRating)}"


def ratings_read_sql(bots: int) -> str:
    """Params: game id, then ``bots`` bot ids. Rows (:data:`RATING_COLUMNS`): their rating rows."""
    return (f"SELECT {', '.join(RATING_COLUMNS)} FROM {_table(Rating)} "
            f"WHERE game_id = %s AND bot_id IN ({', '.join(['%s'] * bots)})")


def history_sql(*, after: bool) -> str:
    """Params: game id, change id, finished. Rows: match id, change id, seat id, bot id, place, outcome, the
    change's before, after and delta, the seat's rating_before and rating_after, for every history row of
    the game's finished rated matches up to that change id (``after``: past it), in the order the matches were applied (their first
    history row), each match's seats in seat order."""
    change, seat = _table(RatingChange), _table(Seat)
    before, after_, delta = _column("before"), _column("after"), _column("delta")
    compare = ">" if after else "<="
    return (
        f"SELECT c.match_id, c.id, c.seat_id, c.bot_id, s.place, s.outcome, c.{before}, c.{after_}, c.{delta}, "
        f"s.rating_before, s.rating_after FROM {change} c JOIN {seat} s ON s.id = c.seat_id "
        f"JOIN (SELECT match_id, MIN(id) AS first FROM {change} WHERE game_id = %s GROUP BY match_id) o "
        f"ON o.match_id = c.match_id JOIN {_table(Match)} m ON m.id = c.match_id "
        f"JOIN {_table(Tournament)} t ON t.id = m.tournament_id "
        f"WHERE c.id {compare} %s AND m.status = %s AND t.rated ORDER BY o.first, s.position"
    )


def never_rated_insert_sql(rated_sql: str) -> str:
    """Params: those of ``rated_sql`` (the ids of the game's finished rated matches). Marks pending, by
    finish time then id, the matches it selects that have no history and are not pending."""
    match = _table(Match)
    return (
        f"INSERT INTO {_table(PendingRating)} (match_id, game_id) "
        f"SELECT m.id, m.game_id FROM {match} m WHERE m.id IN ({rated_sql}) "
        f"AND NOT EXISTS (SELECT 1 FROM {_table(RatingChange)} c WHERE c.match_id = m.id) "
        f"AND NOT EXISTS (SELECT 1 FROM {_table(PendingRating)} p WHERE p.match_id = m.id) "
        "ORDER BY m.finished_at, m.id"
    )


def _max_params() -> int:
    return min(connection.features.max_query_params or 30000, 30000)


def _chunks(rows: Sequence[tuple]) -> list[Sequence[tuple]]:
    """``rows`` cut so that no statement binds more parameters than the database takes."""
    if not rows:
        return []
    size = max(1, _max_params() // len(rows[0]))
    return [rows[start:start + size] for start in range(0, len(rows), size)]


def _update_from_values(model, columns: Sequence[str], rows: Sequence[tuple], extra: str = "",
                        extra_params: Sequence = ()) -> list[tuple[str, list]]:
    """Statements setting ``columns`` of the rows of ``model`` from ``rows`` (``(id, *values)``), each of
    many rows in one UPDATE (on PostgreSQL all of them: ``match_sql.rows_source``). ``extra``: more
    ``column = %s`` assignments, with ``extra_params``."""
    table = _table(model)
    names = ["id", *columns]
    assignments = ", ".join(f"{_column(name)} = v.{name}" for name in columns) + extra
    return [(f"WITH {source} UPDATE {table} SET {assignments} FROM v WHERE {table}.id = v.id", [*params, *extra_params])
            for source, params in _sources(model, names, rows)]


def _sources(model, columns: Sequence[str], rows: Sequence[tuple]) -> list[tuple[str, list]]:
    """``rows`` as row sources (``match_sql.rows_source``): one where rows travel as arrays, else one per
    chunk of as many rows as a statement can bind."""
    if not rows:
        return []
    if match_sql.arrays_supported():
        return [match_sql.rows_source(model, columns, rows)]
    return [match_sql.rows_source(model, columns, chunk) for chunk in _chunks(rows)]


def ratings_update(rows: Sequence[tuple], now) -> list[tuple[str, list]]:
    """``rows``: (rating id, elo, games, wins, draws, losses); ``now`` as a parameter."""
    return _update_from_values(Rating, ("elo", "games", "wins", "draws", "losses"), rows,
                               extra=f", {_column('updated_at')} = %s", extra_params=[now])


CHANGE_COLUMNS = ("seat_id", "match_id", "bot_id", "game_id", "before", "after", "delta", "created_at")


def changes_insert(rows: Sequence[tuple]) -> list[tuple[str, list]]:
    """``rows`` of :data:`CHANGE_COLUMNS`, inserted in their order (so their ids follow it)."""
    names = ", ".join(_column(name) for name in CHANGE_COLUMNS)
    return [(f"WITH {source} INSERT INTO {_table(RatingChange)} ({names}) SELECT {', '.join(CHANGE_COLUMNS)} FROM v",
             params) for source, params in _sources(RatingChange, CHANGE_COLUMNS, rows)]


def changes_update(rows: Sequence[tuple]) -> list[tuple[str, list]]:
    """``rows``: (change id, before, after, delta)."""
    return _update_from_values(RatingChange, ("before", "after", "delta"), rows)


def seats_update(rows: Sequence[tuple]) -> list[tuple[str, list]]:
    """``rows``: (seat id, rating_before, rating_after)."""
    return _update_from_values(Seat, ("rating_before", "rating_after"), rows)


def pending_delete(ids: Sequence[int]) -> list[tuple[str, list]]:
    if match_sql.arrays_supported():
        return [(f"DELETE FROM {_table(PendingRating)} WHERE id = ANY(%s::bigint[])", [list(ids)])] if ids else []
    return [(f"DELETE FROM {_table(PendingRating)} WHERE id IN ({', '.join(['%s'] * len(chunk))})",
             [value for (value,) in chunk]) for chunk in _chunks([(i,) for i in ids])]
