"""The statements that finish a round robin when its last match is recorded, as plain SQL: run by
``round_robins.tournament_finish_if_done`` inside the recording's transaction."""

from __future__ import annotations

from ladder.core.database import statement_text, table_name
from ladder.models import Match, Tournament


@statement_text
def tournament_hold_sql() -> str:
    """Params: tournament id, tournament id, queued. Locks the tournament's row unless one of its matches is
    queued (a queued match cannot finish behind the caller's back, so there is nothing to hold it for)."""
    return (
        f"SELECT t.id FROM {table_name(Tournament)} t WHERE t.id = %s "
        f"AND NOT EXISTS (SELECT 1 FROM {table_name(Match)} m WHERE m.tournament_id = %s AND m.status = %s) "
        "FOR UPDATE OF t"
    )


@statement_text
def tournament_finish_sql() -> str:
    """Params: finished, now, now, tournament id, round robin, running, tournament id, queued, running. Marks a
    running round robin finished when none of its matches is queued or running; its creator's id when it
    did. Run after :func:`tournament_hold_sql` in the same transaction, as a statement of its own: it then
    sees every recording that held the row before, committed (its own snapshot is taken once the lock is
    granted)."""
    return (
        f"UPDATE {table_name(Tournament)} SET status = %s, finished_at = %s, updated_at = %s "
        f"WHERE id = %s AND kind = %s AND status = %s AND NOT EXISTS (SELECT 1 FROM {table_name(Match)} m "
        "WHERE m.tournament_id = %s AND m.status IN (%s, %s)) RETURNING created_by_id"
    )
