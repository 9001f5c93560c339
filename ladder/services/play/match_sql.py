"""The statements of a worker's hot path (claim a match, record its result) as plain SQL.

Every match a worker plays costs it a claim and a recording; at tens of matches per second per machine,
building those queries with the ORM cost as much CPU as playing the match's protocol, and every round
trip to the database adds its latency to the match. So these few statements are written once, here, run
on ``ladder.core.database``'s cursors (prepared by the server), and those that do not depend on each
other go in one round trip (``database.statements_batched``). Table and column names come from the
models, parameters are always bound, never formatted into the text.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

from django.db import connection

from ladder.core.database import array_placeholder, column_name, rows_source, statement_text, table_name
from ladder.models import Bot, BotVersion, Game, Match, MatchSetup, Seat, Tournament


def db_token(value):
    """An attempt token (UUID) as a parameter of these statements."""
    return Match._meta.get_field("attempt_token").get_db_prep_value(value, connection)


@statement_text
def claim_sql() -> str:
    """Params: running, token, lease end, now, worker, now, match id, queued, running, now, queued,
    running. The database serialises concurrent claims on the row; the second one matches no row. A
    held rotation of a rated deal (an earlier rotation of its deal still queued or running:
    ``ladder.services.tournaments.rotations``) matches no row either, whatever message brought the claim; the
    ``deal IS NULL`` test first keeps that look off every other match."""
    match, index = table_name(Match), column_name("index")
    return (
        f"UPDATE {match} SET status = %s, attempts = attempts + 1, attempt_token = %s, lease_expires_at = %s, "
        "started_at = %s, worker = %s, updated_at = %s "
        "WHERE id = %s AND (status = %s OR (status = %s AND lease_expires_at < %s)) "
        f"AND ({match}.deal IS NULL OR NOT EXISTS (SELECT 1 FROM {match} p JOIN {table_name(Tournament)} t "
        f"ON t.id = p.tournament_id WHERE p.tournament_id = {match}.tournament_id AND p.deal = {match}.deal "
        f"AND p.{index} < {match}.{index} AND p.status IN (%s, %s) AND t.rated))"
    )


@statement_text
def claim_many_sql() -> str:
    """Params: match ids, their tokens (arrays, same order), queued, running, now, queued, running,
        running, lease end, now, worker, now. Claims, as :func:`claim_sql` does one by one, every match of the
    list that can be claimed, each under its own token, and reads them back in the same statement: rows
    as :func:`claimed_match_sql`'s, each led by its match id, in match then seat order, for the claimed
    matches only.

    The rows are locked in id order, so that two workers whose lists overlap (a message sent again) never
    wait on each other in opposite orders. A row another transaction holds is waited for, as a single
    claim waits, and looked at again once it is free: skipped, a match held a moment by anything else (its
    message being marked sent, the reconciler) would be lost to a message already taken. What is read
    back comes from the claimed rows themselves (``RETURNING``), their setups and seats from their own
    tables."""
    match, index, a = table_name(Match), column_name("index"), array_placeholder()
    return (
        f"WITH v AS (SELECT * FROM unnest({a}::bigint[], {a}::uuid[]) AS v (id, token)), "
        f"c AS (SELECT m.id FROM {match} m JOIN v ON v.id = m.id "
        "WHERE (m.status = %s OR (m.status = %s AND m.lease_expires_at < %s)) "
        f"AND (m.deal IS NULL OR NOT EXISTS (SELECT 1 FROM {match} p JOIN {table_name(Tournament)} t "
        f"ON t.id = p.tournament_id WHERE p.tournament_id = m.tournament_id AND p.deal = m.deal "
        f"AND p.{index} < m.{index} AND p.status IN (%s, %s) AND t.rated)) "
        "ORDER BY m.id FOR UPDATE OF m), "
        f"u AS (UPDATE {match} SET status = %s, attempts = attempts + 1, attempt_token = v.token, "
        "lease_expires_at = %s, started_at = %s, worker = %s, updated_at = %s "
        f"FROM c JOIN v ON v.id = c.id WHERE {match}.id = c.id "
        f"RETURNING {match}.id, {match}.game_id, {match}.players, {match}.seed, {match}.setup_id) "
        "SELECT u.id, g.slug, u.players, u.seed, su.options, su.limits, s.position, b.name, s.bot_version_id, "
        f"bv.sha256 FROM u JOIN {table_name(Game)} g ON g.id = u.game_id "
        f"LEFT JOIN {table_name(MatchSetup)} su ON su.id = u.setup_id "
        f"LEFT JOIN {table_name(Seat)} s ON s.match_id = u.id "
        f"LEFT JOIN {table_name(Bot)} b ON b.id = s.bot_id "
        f"LEFT JOIN {table_name(BotVersion)} bv ON bv.id = s.bot_version_id "
        "ORDER BY u.id, s.position"
    )


@statement_text
def renew_leases_sql() -> str:
    """Params: lease end, match ids, their tokens (arrays, same order), running. Rows:
    the ids of the matches still running under their tokens, whose leases it extended. Bound on the
    client (the heartbeat's thread runs it on a Django cursor of the connection lent to it)."""
    match = table_name(Match)
    return (
        f"UPDATE {match} SET lease_expires_at = %s "
        "FROM unnest(%s::bigint[], %s::uuid[]) AS v (id, token) "
        f"WHERE {match}.id = v.id AND {match}.status = %s AND {match}.attempt_token = v.token "
        f"RETURNING {match}.id"
    )


@statement_text
def renew_lease_sql() -> str:
    """Params: lease end, match id, running, token. Matches no row unless the match is still running
    under the token."""
    return (
        f"UPDATE {table_name(Match)} SET lease_expires_at = %s "
        "WHERE id = %s AND status = %s AND attempt_token = %s"
    )


@statement_text
def claimed_match_sql() -> str:
    """Params: match id. Rows: game slug, players, seed, options, limits (its setup's; NULLs for a match
    without one), then the seat's position, bot name, version id and code checksum (NULLs for a match
    without seats), in seat order."""
    return (
        f"SELECT g.slug, m.players, m.seed, su.options, su.limits, s.position, b.name, s.bot_version_id, v.sha256 "
        f"FROM {table_name(Match)} m JOIN {table_name(Game)} g ON g.id = m.game_id "
        f"LEFT JOIN {table_name(MatchSetup)} su ON su.id = m.setup_id "
        f"LEFT JOIN {table_name(Seat)} s ON s.match_id = m.id "
        f"LEFT JOIN {table_name(Bot)} b ON b.id = s.bot_id "
        f"LEFT JOIN {table_name(BotVersion)} v ON v.id = s.bot_version_id "
        "WHERE m.id = %s ORDER BY s.position"
    )


@statement_text
def finish_many_sql() -> str:
    """Finish every match still running under its token, and read back its seats (see
    :func:`finish_many_params`). Rows, in match then seat order: match id, seat id, bot id, game id,
    tournament id, tournament kind, whether it is rated, comparison id, deal, seat position, whether the
    tournament still has queued matches; one row with a NULL seat for a finished match without seats; none
    for a match not running under its token. The reads see the database as before the UPDATE.

    Whether a tournament has queued matches is read once per tournament of the batch (a materialised
    query: as an EXISTS in the select list it ran once per seat), as its newest queued match: one entry
    read from the end of the index on (tournament, status, id), however many are queued: a count reads
    the whole queue, and an EXISTS may scan from the oldest matches while the queued ones are the
    newest."""
    match, seat, tournament, a = table_name(Match), table_name(Seat), table_name(Tournament), array_placeholder()
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
    """The seats' results, rows of :data:`SEAT_RESULT_COLUMNS` (the packed logs: ``ladder.seat_logs.pack``),
    as one UPDATE: a part of ``database.execute_combined``."""
    seat = table_name(Seat)
    source, params = rows_source(Seat, SEAT_RESULT_COLUMNS, rows)
    assignments = ", ".join(f"{column_name(name)} = v.{name}" for name in SEAT_RESULT_COLUMNS[:-1])
    return f"WITH {source} UPDATE {seat} SET {assignments} FROM v WHERE {seat}.{column_name('id')} = v.id", params
