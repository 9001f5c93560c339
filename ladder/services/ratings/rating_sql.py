"""The statements of the rating applier (``ladder.services.ratings.rating_applier``) as plain SQL: the game's
locks, the read of a batch of pending matches, and the multi-row writes that apply a batch in one
statement per table (rows travel as one array per column: ``database.rows_source``). Parameters are
always bound, never formatted into the text.

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

from ladder.core.database import column_name, rows_source, table_name
from ladder.models import Match, PendingRating, Rating, RatingChange, Seat, Tournament

#: The advisory lock namespaces (first key) of the applier and of the recordings.
APPLY_LOCK, RECORD_LOCK = 0x52415441, 0x52454344


def pending_insert_sql() -> str:
    """Params: match id, game id, game id. Marks a recorded rated match pending, and in the same statement
    takes the game's ``RECORD`` lock shared (so that it joins the recorder's batch as one statement)."""
    return (f"INSERT INTO {table_name(PendingRating)} (match_id, game_id) "
            "SELECT %s, g FROM (SELECT CAST(%s AS bigint) AS g, "
            f"pg_advisory_xact_lock_shared({RECORD_LOCK}, CAST(%s AS integer))) AS held")


def pending_insert_many_sql() -> str:
    """Params: game id, game id, match ids (an array). :func:`pending_insert_sql` for many matches of one
    game in one statement, the game's ``RECORD`` lock taken shared once."""
    return (f"INSERT INTO {table_name(PendingRating)} (match_id, game_id) "
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
    from one snapshot."""
    ratings = ', '.join(f'r.{column}' for column in RATING_COLUMNS)
    pending = (f"(SELECT id, match_id, game_id FROM {table_name(PendingRating)} WHERE game_id = %s "
               "ORDER BY id LIMIT %s) p")
    return (
        f"SELECT p.id, p.match_id, s.id, s.bot_id, s.place, s.outcome, {ratings} FROM {pending} "
        f"CROSS JOIN LATERAL (SELECT id, bot_id, place, outcome, position FROM {table_name(Seat)} "
        f"WHERE match_id = p.match_id OFFSET 0) s "
        f"LEFT JOIN LATERAL (SELECT {', '.join(RATING_COLUMNS)} FROM {table_name(Rating)} "
        f"WHERE game_id = p.game_id AND bot_id = s.bot_id) r ON true ORDER BY p.id, s.position"
    )


def pending_exists_sql() -> str:
    """Params: game id. One row if the game has a pending match, none otherwise."""
    return f"SELECT 1 FROM {table_name(PendingRating)} WHERE game_id = %s LIMIT 1"


def pending_games_among_sql() -> str:
    """Params: game ids (an array). Rows: those of the games that have a pending match."""
    return (f"SELECT g FROM unnest(%s::bigint[]) AS g "
            f"WHERE EXISTS (SELECT 1 FROM {table_name(PendingRating)} p WHERE p.game_id = g)")


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
        f"EXISTS (SELECT 1 FROM {table_name(PendingRating)} p WHERE p.game_id = g) "
        f"FROM (SELECT DISTINCT m.game_id AS g FROM {table_name(Match)} m JOIN {table_name(Tournament)} t "
        "ON t.id = m.tournament_id WHERE m.id = ANY(%s::bigint[]) AND t.rated ORDER BY m.game_id) AS games"
    )


def inline_ratings_sql() -> str:
    """Params: match ids (an array). Rows: game id then :data:`RATING_COLUMNS`, the rating rows of the bots
    seated in those matches of rated tournaments, each looked up by its index (``OFFSET 0``: see
    :func:`pending_batch_sql`)."""
    return (
        f"SELECT m.game_id, {', '.join(f'r.{column}' for column in RATING_COLUMNS)} "
        f"FROM {table_name(Match)} m JOIN {table_name(Tournament)} t ON t.id = m.tournament_id AND t.rated "
        f"CROSS JOIN LATERAL (SELECT bot_id FROM {table_name(Seat)} WHERE match_id = m.id OFFSET 0) s "
        f"JOIN {table_name(Rating)} r ON r.game_id = m.game_id AND r.bot_id = s.bot_id "
        "WHERE m.id = ANY(%s::bigint[])"
    )


def pending_games_sql() -> str:
    """No params. Rows: the games with pending matches."""
    return f"SELECT DISTINCT game_id FROM {table_name(PendingRating)}"


def ratings_read_sql(bots: int) -> str:
    """Params: game id, then ``bots`` bot ids. Rows (:data:`RATING_COLUMNS`): their rating rows."""
    return (f"SELECT {', '.join(RATING_COLUMNS)} FROM {table_name(Rating)} "
            f"WHERE game_id = %s AND bot_id IN ({', '.join(['%s'] * bots)})")


def history_sql(*, after: bool) -> str:
    """Params: game id, change id, finished. Rows: match id, change id, seat id, bot id, place, outcome, the
    change's before, after and delta, the seat's rating_before and rating_after, for every history row of
    the game's finished rated matches up to that change id (``after``: past it), in the order the matches were applied (their first
    history row), each match's seats in seat order."""
    change, seat = table_name(RatingChange), table_name(Seat)
    before, after_, delta = column_name("before"), column_name("after"), column_name("delta")
    compare = ">" if after else "<="
    return (
        f"SELECT c.match_id, c.id, c.seat_id, c.bot_id, s.place, s.outcome, c.{before}, c.{after_}, c.{delta}, "
        f"s.rating_before, s.rating_after FROM {change} c JOIN {seat} s ON s.id = c.seat_id "
        f"JOIN (SELECT match_id, MIN(id) AS first FROM {change} WHERE game_id = %s GROUP BY match_id) o "
        f"ON o.match_id = c.match_id JOIN {table_name(Match)} m ON m.id = c.match_id "
        f"JOIN {table_name(Tournament)} t ON t.id = m.tournament_id "
        f"WHERE c.id {compare} %s AND m.status = %s AND t.rated ORDER BY o.first, s.position"
    )


def never_rated_insert_sql(rated_sql: str) -> str:
    """Params: those of ``rated_sql`` (the ids of the game's finished rated matches). Marks pending, by
    finish time then id, the matches it selects that have no history and are not pending."""
    match = table_name(Match)
    return (
        f"INSERT INTO {table_name(PendingRating)} (match_id, game_id) "
        f"SELECT m.id, m.game_id FROM {match} m WHERE m.id IN ({rated_sql}) "
        f"AND NOT EXISTS (SELECT 1 FROM {table_name(RatingChange)} c WHERE c.match_id = m.id) "
        f"AND NOT EXISTS (SELECT 1 FROM {table_name(PendingRating)} p WHERE p.match_id = m.id) "
        "ORDER BY m.finished_at, m.id"
    )


def _update_from_values(model, columns: Sequence[str], rows: Sequence[tuple], extra: str = "",
                        extra_params: Sequence = ()) -> list[tuple[str, list]]:
    """The statement setting ``columns`` of the rows of ``model`` from ``rows`` (``(id, *values)``), all of
    them in one UPDATE (none for no rows). ``extra``: more ``column = %s`` assignments, with
    ``extra_params``."""
    table = table_name(model)
    names = ["id", *columns]
    assignments = ", ".join(f"{column_name(name)} = v.{name}" for name in columns) + extra
    return [(f"WITH {source} UPDATE {table} SET {assignments} FROM v WHERE {table}.id = v.id", [*params, *extra_params])
            for source, params in _sources(model, names, rows)]


def _sources(model, columns: Sequence[str], rows: Sequence[tuple]) -> list[tuple[str, list]]:
    """``rows`` as a row source (``database.rows_source``), none for no rows."""
    return [rows_source(model, columns, rows)] if rows else []


def ratings_update(rows: Sequence[tuple], now) -> list[tuple[str, list]]:
    """``rows``: (rating id, elo, games, wins, draws, losses); ``now`` as a parameter."""
    return _update_from_values(Rating, ("elo", "games", "wins", "draws", "losses"), rows,
                               extra=f", {column_name('updated_at')} = %s", extra_params=[now])


CHANGE_COLUMNS = ("seat_id", "match_id", "bot_id", "game_id", "before", "after", "delta", "created_at")


def changes_insert(rows: Sequence[tuple]) -> list[tuple[str, list]]:
    """``rows`` of :data:`CHANGE_COLUMNS`, inserted in their order (so their ids follow it)."""
    names, table = ", ".join(column_name(name) for name in CHANGE_COLUMNS), table_name(RatingChange)
    return [(f"WITH {source} INSERT INTO {table} ({names}) SELECT {', '.join(CHANGE_COLUMNS)} FROM v", params)
            for source, params in _sources(RatingChange, CHANGE_COLUMNS, rows)]


def changes_update(rows: Sequence[tuple]) -> list[tuple[str, list]]:
    """``rows``: (change id, before, after, delta)."""
    return _update_from_values(RatingChange, ("before", "after", "delta"), rows)


def seats_update(rows: Sequence[tuple]) -> list[tuple[str, list]]:
    """``rows``: (seat id, rating_before, rating_after)."""
    return _update_from_values(Seat, ("rating_before", "rating_after"), rows)


def pending_delete(ids: Sequence[int]) -> list[tuple[str, list]]:
    return [(f"DELETE FROM {table_name(PendingRating)} WHERE id = ANY(%s::bigint[])", [list(ids)])] if ids else []
