"""The pair records (``PairRecord``): every rated pairwise result of a game, summed per pair of bots.

They are what the leaderboard's confidence fit reads (``ladder.selectors.leaderboards``), so its cost
follows the number of bots, not of matches. The rating applier adds a batch's pairs in the transaction
that applies its Elo (:func:`pair_rows`, written by :func:`pair_records_parts` with the rating rows), and
:func:`pair_records_rebuild` recomputes them from the history in one statement (``rebuild_ratings``).

The pairwise reading of a match is the ratings' one (``ladder.ratings.elo.pairwise_scores``): places decide, equal
places draw, a forfeited seat loses to every seat that played on and draws with another forfeited one,
and each pair of an N-player match weighs 2/N. Both paths below apply that rule and a test holds them
equal.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from django.db import connection

from ladder.core.database import db_datetime, rows_source, table_name
from ladder.core.rated_play import rating_matches
from ladder.models import Match, PairRecord, Seat
from ladder.ratings.elo import pairwise_scores

PAIR_COLUMNS = ("game_id", "bot_low_id", "bot_high_id", "wins", "draws", "losses", "weight", "score", "updated_at")


def pair_rows(*, game_id: int, bot_ids: Sequence[int], places: Sequence[int], forfeited: Sequence[bool],
              now) -> list[tuple]:
    """One row of :data:`PAIR_COLUMNS` per pair of different bots among one match's seats (in seat order):
    the counts one result adds, from the lower bot id's side. ``now`` as a statement parameter
    (:func:`database.db_datetime`)."""
    scores = pairwise_scores(list(places), list(forfeited))
    weight = 2.0 / len(bot_ids)
    rows = []
    for i, low in enumerate(bot_ids):
        for j, high in enumerate(bot_ids):
            if low < high:
                score = scores[i][j]
                rows.append((game_id, low, high, int(score == 1.0), int(score == 0.5), int(score == 0.0),
                             weight, weight * score, now))
    return rows


def pair_rows_summed(rows: Iterable[tuple]) -> list[tuple]:
    """Rows of :data:`PAIR_COLUMNS` (or of the same shape: a key of three, five counts, a time) with the
    rows of one key summed into one, in the order their keys first appear: one multi-row upsert may touch
    a row once. The time kept is the first row's."""
    summed: dict[tuple, list] = {}
    for key_a, low, high, wins, draws, losses, weight, score, now in rows:
        total = summed.setdefault((key_a, low, high), [key_a, low, high, 0, 0, 0, 0.0, 0.0, now])
        for index, value in ((3, wins), (4, draws), (5, losses), (6, weight), (7, score)):
            total[index] += value
    return [tuple(total) for total in summed.values()]


def pair_records_parts(rows: list[tuple]) -> list[tuple[str, list]]:
    """Add :func:`pair_rows` (of any number of matches) to the records: one multi-row upsert, a part of
    ``database.execute_combined`` with the rating rows, written by the game's one rating applier or by a
    recording that applies its own ratings under the game's lock, so two batches never add to a row at
    once. Rows of one pair are summed first, since one statement may touch a row once."""
    pairs = pair_rows_summed(rows)
    if not pairs:
        return []
    source, params = rows_source(PairRecord, PAIR_COLUMNS, pairs)
    return [(_upsert_sql(source), params)]


def _upsert_sql(source: str) -> str:
    """Inserts each pair's row of ``source`` (``database.rows_source`` of :data:`PAIR_COLUMNS`), or adds
    to it."""
    table = table_name(PairRecord)
    names = ", ".join(PAIR_COLUMNS)
    added = ", ".join(f"{column} = {table}.{column} + excluded.{column}"
                      for column in ("wins", "draws", "losses", "weight", "score"))
    return (
        f"WITH {source} INSERT INTO {table} ({names}) SELECT {names} FROM v "
        f"ON CONFLICT (game_id, bot_low_id, bot_high_id) DO UPDATE SET {added}, updated_at = excluded.updated_at"
    )


def pair_records_rebuild(*, game_id: int, now) -> int:
    """Replace the game's pair records with the sums over its finished rated matches, in one INSERT ...
    SELECT (seconds for a million matches, where reading them into Python would take minutes). Returns
    the pairs written. Run inside the caller's transaction (``rating_rebuild.rebuild_sums``)."""
    rated_sql, rated_params = rating_matches(game_id=game_id).query.sql_with_params()
    PairRecord.objects.filter(game_id=game_id).delete()
    with connection.cursor() as cursor:
        cursor.execute(_rebuild_sql(rated_sql), [db_datetime(now), *rated_params])
        return cursor.rowcount


def _rebuild_sql(rated_sql: str) -> str:
    """The pairs of the matches ``rated_sql`` selects (their ids), summed; params: now, then its own."""
    seat, match = table_name(Seat), table_name(Match)
    forfeit = "{0}.outcome NOT IN ('', '" + Seat.Outcome.OK.value + "')"
    a_out, b_out = forfeit.format("a"), forfeit.format("b")
    return (
        f"INSERT INTO {table_name(PairRecord)} ({', '.join(PAIR_COLUMNS)}) "
        "SELECT game_id, low, high, SUM(CASE WHEN s = 1.0 THEN 1 ELSE 0 END), SUM(CASE WHEN s = 0.5 THEN 1 ELSE 0 END), "
        "SUM(CASE WHEN s = 0.0 THEN 1 ELSE 0 END), SUM(w), SUM(w * s), %s FROM ("
        "SELECT m.game_id AS game_id, a.bot_id AS low, b.bot_id AS high, 2.0 / m.players AS w, "
        f"CASE WHEN {a_out} AND {b_out} THEN 0.5 WHEN {a_out} THEN 0.0 WHEN {b_out} THEN 1.0 "
        "WHEN a.place < b.place THEN 1.0 WHEN a.place = b.place THEN 0.5 ELSE 0.0 END AS s "
        f"FROM {match} m JOIN {seat} a ON a.match_id = m.id JOIN {seat} b ON b.match_id = m.id AND a.bot_id < b.bot_id "
        f"WHERE m.id IN ({rated_sql})) pairs GROUP BY game_id, low, high"
    )
