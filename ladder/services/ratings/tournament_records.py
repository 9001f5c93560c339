"""A tournament's standings, head-to-head records and finished-match count, kept as results are recorded.

The tournament's pages and routes read these rows (``ladder.selectors.tournaments``) instead of every
finished match, so that they answer as fast after a million matches as after ten. Three tables
(``ladder.models``): ``TournamentStanding`` (one bot's line of the table), ``TournamentHeadToHead`` (the
pairwise results of two bots) and ``TournamentTally`` (matches finished).

Two paths write them, and a test holds them equal to the tables ``ladder.ratings.tables`` computes from
the matches:

* :func:`match_record_rows` and :func:`records_parts` (its writes as parts of one statement): what one
  match adds, written by the recorder
  (``ladder.services.play.matches.match_record_result``) in the transaction, and the batch, that stores the
  result. A match is recorded once (its claim's token), so it is counted once however often it was
  retried.
* :func:`records_rebuild`: the rows recomputed from the history in three INSERT ... SELECT statements, for
  a changed or imported history (and, frozen, by the migration that created the tables).

The rules are those of ``standings`` and ``crosstable``: only matches of two or more seats
count; points by place are N-1 .. 0 for places 1..N with shared places sharing; a forfeited seat ranks
below every seat that played on (sharing the last places with the other forfeits), loses to each of them
and draws another forfeit; a bot's results against a seat it holds itself do not count; each pair of an
N-player match weighs 2/N in the fit. A bot's first appearance (lowest match id, then seat) orders bots
whose records tie, as the table computed from the matches in id order does.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable, Sequence
from functools import cache

from django.db import connection

from ladder.core.database import db_datetime, rows_source, table_name
from ladder.models import Match, Seat, TournamentHeadToHead, TournamentStanding, TournamentTally
from ladder.ratings.elo import pairwise_scores
from ladder.ratings.tables import PlacedSeat, match_points
from ladder.services.ratings import pair_records

STANDING_COLUMNS = ("tournament_id", "bot_id", "games", "points", "wins", "draws", "losses", "forfeits", "score",
                    "first_match_id", "first_position", "updated_at")
HEAD_TO_HEAD_COLUMNS = ("tournament_id", "bot_low_id", "bot_high_id", "wins", "draws", "losses", "weight", "score",
                        "updated_at")


def match_record_rows(*, tournament_id: int, match_id: int, seats: Sequence[tuple], now) -> tuple[list, list]:
    """What one finished match adds: ``(standings, head_to_head)``, rows of :data:`STANDING_COLUMNS` and
    :data:`HEAD_TO_HEAD_COLUMNS`, each sorted by its key (the order :func:`records_parts` locks them in).

    ``seats`` are ``(position, bot_id, place, score, forfeited)`` in seat order; a seat without a place is
    read as last and one without a score as 0, as the tables read the stored seats. ``now`` as a statement
    parameter (:func:`database.db_datetime`). Nothing for a match of fewer than two seats."""
    if len(seats) < 2:
        return [], []
    placed = [PlacedSeat(bot_id, place or len(seats), score or 0, bool(forfeited))
              for _position, bot_id, place, score, forfeited in seats]
    points = match_points(placed)
    scores = pairwise_scores([seat.place for seat in placed], [seat.forfeited for seat in placed])
    lines: dict[int, list] = {}
    for i, ((position, bot_id, *_), seat) in enumerate(zip(seats, placed, strict=True)):
        line = lines.setdefault(bot_id, [0, 0.0, 0, 0, 0, 0, 0, position])
        line[0] += 1
        line[1] += points[i]
        for j, other in enumerate(placed):
            if j != i and other.bot_id != bot_id:
                line[{1.0: 2, 0.5: 3, 0.0: 4}[scores[i][j]]] += 1
        line[5] += int(seat.forfeited)
        line[6] += int(seat.score)
        line[7] = min(line[7], position)
    standings = [(tournament_id, bot_id, *line[:7], match_id, line[7], now) for bot_id, line in sorted(lines.items())]
    pairs = pair_records.pair_rows(game_id=tournament_id, bot_ids=[seat.bot_id for seat in placed],
                                   places=[seat.place for seat in placed],
                                   forfeited=[seat.forfeited for seat in placed], now=now)
    return standings, sorted(pairs, key=lambda row: row[1:3])


def records_parts(*, tournament_id: int, standings: list[tuple], head_to_head: list[tuple],
                  matches: int = 1) -> list[tuple[str, list]]:
    """Add ``matches`` finished matches of ``tournament_id`` (their :func:`match_record_rows`, summed per
    row: :func:`standings_merged`, :func:`head_to_head_merged`) to its rows, and count them: multi-row
    upserts, parts of ``database.execute_combined`` (one statement with the recorder's other writes).

    Rows are locked in a fixed order (standings by bot, then pairs, then the tally last), so concurrent
    recordings of one tournament wait for each other instead of deadlocking; the tally, the one row every
    recording of a tournament shares, is taken last, just before the commit. Each row appears once (one
    standing per bot, one record per pair), as a multi-row ON CONFLICT needs."""
    parts = [_from_rows(sql, model, columns, rows)
             for sql, model, columns, rows in ((_standing_upsert_sql(), TournamentStanding, STANDING_COLUMNS, standings),
                                               (_head_to_head_upsert_sql(), TournamentHeadToHead, HEAD_TO_HEAD_COLUMNS,
                                                head_to_head))
             if rows]
    return [*parts, (_tally_upsert_sql(), [tournament_id, matches])]


def standings_merged(rows: Iterable[tuple]) -> list[tuple]:
    """Rows of :data:`STANDING_COLUMNS` of several matches of one tournament, one per bot: the counts
    summed, the first appearance the earliest (lowest match id, then seat), sorted by bot (the lock
    order)."""
    merged: dict[tuple, list] = {}
    for row in rows:
        key = row[:2]
        total = merged.get(key)
        if total is None:
            merged[key] = list(row)
            continue
        for index in range(2, 9):
            total[index] += row[index]
        if (row[9], row[10]) < (total[9], total[10]):
            total[9], total[10] = row[9], row[10]
    return [tuple(merged[key]) for key in sorted(merged)]


def head_to_head_merged(rows: Iterable[tuple]) -> list[tuple]:
    """Rows of :data:`HEAD_TO_HEAD_COLUMNS` of several matches of one tournament, one per pair, summed
    and sorted by pair (the lock order)."""
    return sorted(pair_records.pair_rows_summed(rows), key=lambda row: row[1:3])


def _from_rows(sql: str, model, columns: Sequence[str], rows: list[tuple]) -> tuple[str, list]:
    """A one-row ``INSERT ... VALUES (...) ON CONFLICT ...`` statement for every row of ``rows``, read from
    ``database.rows_source`` (whose text is the same for any number of rows)."""
    head, _, tail = sql.partition(" VALUES ")
    _one, _, rest = tail.partition(")")
    source, params = rows_source(model, columns, rows)
    return f"WITH {source} {head} SELECT {', '.join(columns)} FROM v{rest}", params


@cache
def _standing_upsert_sql() -> str:
    """Params: :data:`STANDING_COLUMNS`."""
    table = table_name(TournamentStanding)
    added = ", ".join(f"{column} = {table}.{column} + excluded.{column}"
                      for column in ("games", "points", "wins", "draws", "losses", "forfeits", "score"))
    earlier = f"excluded.first_match_id < {table}.first_match_id"
    return (
        f"INSERT INTO {table} ({', '.join(STANDING_COLUMNS)}) VALUES ({', '.join(['%s'] * len(STANDING_COLUMNS))}) "
        f"ON CONFLICT (tournament_id, bot_id) DO UPDATE SET {added}, "
        # Every expression reads the row as it was, so both columns test the same old first match.
        f"first_position = CASE WHEN {earlier} THEN excluded.first_position ELSE {table}.first_position END, "
        f"first_match_id = CASE WHEN {earlier} THEN excluded.first_match_id ELSE {table}.first_match_id END, "
        "updated_at = excluded.updated_at"
    )


@cache
def _head_to_head_upsert_sql() -> str:
    """Params: :data:`HEAD_TO_HEAD_COLUMNS`."""
    table = table_name(TournamentHeadToHead)
    added = ", ".join(f"{column} = {table}.{column} + excluded.{column}"
                      for column in ("wins", "draws", "losses", "weight", "score"))
    return (
        f"INSERT INTO {table} ({', '.join(HEAD_TO_HEAD_COLUMNS)}) "
        f"VALUES ({', '.join(['%s'] * len(HEAD_TO_HEAD_COLUMNS))}) "
        f"ON CONFLICT (tournament_id, bot_low_id, bot_high_id) DO UPDATE SET {added}, updated_at = excluded.updated_at"
    )


@cache
def _tally_upsert_sql() -> str:
    """Params: tournament id, matches finished."""
    table = table_name(TournamentTally)
    return (f"INSERT INTO {table} (tournament_id, finished) VALUES (%s, %s) "
            f"ON CONFLICT (tournament_id) DO UPDATE SET finished = {table}.finished + excluded.finished")


# --- From the history ----------------------------------------------------------------------------------


def records_rebuild(*, tournament_ids: Sequence[int] | None = None, now) -> None:
    """Replace the rows of the tournaments ``tournament_ids`` (None: every tournament) with those computed
    from their finished matches, in three INSERT ... SELECT statements (seconds for a million matches).
    Run inside the caller's transaction; concurrent recordings of those tournaments must be held off by
    the caller (a recording that commits between the delete and the insert is counted twice)."""
    scope, params = "", []
    if tournament_ids is not None:
        ids = list(tournament_ids)
        if not ids:
            return
        scope = f" AND m.tournament_id IN ({', '.join(['%s'] * len(ids))})"
        params = ids
    for model in (TournamentStanding, TournamentHeadToHead, TournamentTally):
        rows = model.objects.all()
        if tournament_ids is not None:
            rows = rows.filter(tournament_id__in=params)
        rows._raw_delete(rows.db)
    at = db_datetime(now)
    finished = Match.Status.FINISHED.value
    with connection.cursor() as cursor, _without_nested_loops(cursor):
        for build in (rebuild_standings_sql, rebuild_head_to_head_sql):
            cursor.execute(build(scope, tables=_tables()), [finished, *params, at])
        cursor.execute(rebuild_tally_sql(scope, tables=_tables()), [finished, *params])


@contextlib.contextmanager
def _without_nested_loops(cursor):
    """Inside, PostgreSQL plans ``cursor``'s statements without nested loops; the setting before is put
    back on the way out (the caller's transaction goes on), and a failed transaction drops it anyway.

    The rebuild joins every seat of the tournaments to the other seats of its match through a
    materialised query, which has no index: as a nested loop that join reads all the seats once per seat.
    The planner chooses it when the statistics of the match table say the tournaments have a match or
    two (a tournament newer than the last ANALYZE, a history loaded in bulk): 20,000 seats then took 80
    seconds instead of a fraction of one. A bulk rebuild never wants a nested loop over those rows."""
    cursor.execute("SELECT current_setting('enable_nestloop'), set_config('enable_nestloop', 'off', true)")
    before = cursor.fetchone()[0]
    yield
    cursor.execute("SELECT set_config('enable_nestloop', %s, true)", [before])


def _tables() -> dict[str, str]:
    return {name: table_name(model) for name, model in (
        ("Match", Match), ("Seat", Seat), ("TournamentStanding", TournamentStanding),
        ("TournamentHeadToHead", TournamentHeadToHead), ("TournamentTally", TournamentTally))}


def _placed_cte(scope: str, tables: dict[str, str]) -> str:
    """``placed``: every seat of a finished tournament match of two or more seats with its match's seat
    count ``n``, ``f`` 1 for a forfeit, its place (last for a seat without one) and score (0 without).
    Params: the finished status, then those of ``scope``."""
    return (
        "WITH seated AS (SELECT m.tournament_id AS tournament_id, s.match_id AS match_id, s.position AS position, "
        "s.bot_id AS bot_id, COALESCE(s.score, 0) AS score, s.place AS place, "
        f"CASE WHEN s.outcome NOT IN ('', '{Seat.Outcome.OK.value}') THEN 1 ELSE 0 END AS f, "
        "COUNT(*) OVER (PARTITION BY s.match_id) AS n "
        f"FROM {tables['Seat']} s JOIN {tables['Match']} m ON m.id = s.match_id "
        f"WHERE m.status = %s AND m.tournament_id IS NOT NULL{scope}), "
        "placed AS (SELECT tournament_id, match_id, position, bot_id, score, f, n, COALESCE(place, n) AS place "
        "FROM seated WHERE n >= 2) "
    )


# a's pairwise score against b: the rule of pairwise_scores.
_SCORE = ("CASE WHEN a.f = 1 AND b.f = 1 THEN 0.5 WHEN a.f = 1 THEN 0.0 WHEN b.f = 1 THEN 1.0 "
          "WHEN a.place < b.place THEN 1.0 WHEN a.place = b.place THEN 0.5 ELSE 0.0 END")


def rebuild_standings_sql(scope: str, *, tables: dict[str, str]) -> str:
    """The standings of the finished matches ``scope`` selects. Params: finished, ``scope``'s, now.

    Per seat: ``ahead`` counts the seats ranked above it and ``tied`` those sharing its rank (forfeits
    share the last one), so its points are N-1-ahead-tied/2, the average of the places it shares."""
    ahead = "CASE WHEN (b.f = 0 AND a.f = 1) OR (b.f = 0 AND a.f = 0 AND b.place < a.place) THEN 1 ELSE 0 END"
    tied = "CASE WHEN (b.f = 1 AND a.f = 1) OR (b.f = 0 AND a.f = 0 AND b.place = a.place) THEN 1 ELSE 0 END"
    other = "b.bot_id <> a.bot_id"
    columns = ", ".join(STANDING_COLUMNS)
    return (
        _placed_cte(scope, tables)
        + ", seat_lines AS (SELECT a.tournament_id AS tournament_id, a.match_id AS match_id, "
        "a.position AS position, a.bot_id AS bot_id, a.score AS score, a.f AS f, "
        f"a.n - 1 - SUM({ahead}) - SUM({tied}) / 2.0 AS points, "
        f"SUM(CASE WHEN {other} AND {_SCORE} = 1.0 THEN 1 ELSE 0 END) AS wins, "
        f"SUM(CASE WHEN {other} AND {_SCORE} = 0.5 THEN 1 ELSE 0 END) AS draws, "
        f"SUM(CASE WHEN {other} AND {_SCORE} = 0.0 THEN 1 ELSE 0 END) AS losses "
        "FROM placed a JOIN placed b ON b.match_id = a.match_id AND b.position <> a.position "
        "GROUP BY a.tournament_id, a.match_id, a.position, a.bot_id, a.score, a.f, a.n), "
        "lines AS (SELECT tournament_id, bot_id, COUNT(*) AS games, SUM(points) AS points, SUM(wins) AS wins, "
        "SUM(draws) AS draws, SUM(losses) AS losses, SUM(f) AS forfeits, SUM(score) AS score, "
        "MIN(match_id) AS first_match_id FROM seat_lines GROUP BY tournament_id, bot_id) "
        f"INSERT INTO {tables['TournamentStanding']} ({columns}) "
        "SELECT l.tournament_id, l.bot_id, l.games, l.points, l.wins, l.draws, l.losses, l.forfeits, l.score, "
        f"l.first_match_id, (SELECT MIN(s.position) FROM {tables['Seat']} s "
        "WHERE s.match_id = l.first_match_id AND s.bot_id = l.bot_id), %s FROM lines l"
    )


def rebuild_head_to_head_sql(scope: str, *, tables: dict[str, str]) -> str:
    """The head-to-head records of the finished matches ``scope`` selects. Params: finished, ``scope``'s,
    now."""
    return (
        _placed_cte(scope, tables)
        + ", pairs AS (SELECT a.tournament_id AS tournament_id, a.bot_id AS low, b.bot_id AS high, "
        f"2.0 / a.n AS w, {_SCORE} AS s "
        "FROM placed a JOIN placed b ON b.match_id = a.match_id AND a.bot_id < b.bot_id) "
        f"INSERT INTO {tables['TournamentHeadToHead']} ({', '.join(HEAD_TO_HEAD_COLUMNS)}) "
        "SELECT tournament_id, low, high, SUM(CASE WHEN s = 1.0 THEN 1 ELSE 0 END), "
        "SUM(CASE WHEN s = 0.5 THEN 1 ELSE 0 END), SUM(CASE WHEN s = 0.0 THEN 1 ELSE 0 END), SUM(w), SUM(w * s), %s "
        "FROM pairs GROUP BY tournament_id, low, high"
    )


def rebuild_tally_sql(scope: str, *, tables: dict[str, str]) -> str:
    """Every tournament's count of finished matches, for those ``scope`` selects. Params: finished,
    ``scope``'s."""
    return (
        f"INSERT INTO {tables['TournamentTally']} (tournament_id, finished) "
        f"SELECT m.tournament_id, COUNT(*) FROM {tables['Match']} m "
        f"WHERE m.status = %s AND m.tournament_id IS NOT NULL{scope} GROUP BY m.tournament_id"
    )
