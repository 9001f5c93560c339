"""Applying Elo to recorded matches: incrementally (exactly once per match, inside the transaction that
records it) and from scratch (``rebuild_ratings``). Both go through :func:`seat_rating_deltas`, so the
rebuild reproduces the incremental ratings exactly. Only rated matches move ratings
(``ladder.services.rated_play``). The same two paths keep the game's pair records
(``ladder.services.pair_records``), which the leaderboard's confidence fit reads.
"""

from __future__ import annotations

from collections.abc import Sequence

from django.conf import settings
from django.db import transaction
from django.db.models import F, Min
from django.utils import timezone

from ladder.models import Match, Rating, RatingChange, Seat
from ladder.services import match_sql, pair_records, ratings, tournament_records
from ladder.services.games import game_get
from ladder.services.rated_play import RATED_MATCHES


def seat_rating_deltas(
    *, elos: Sequence[float], games: Sequence[int], places: Sequence[int], forfeited: Sequence[bool]
) -> list[float]:
    """Elo change per seat for one match, with each seat's K from its number of games so far."""
    if len(elos) < 2:
        return [0.0] * len(elos)
    ks = [
        ratings.k_factor(
            played,
            k=settings.RATING_K,
            provisional_k=settings.RATING_PROVISIONAL_K,
            provisional_games=settings.RATING_PROVISIONAL_GAMES,
        )
        for played in games
    ]
    return ratings.elo_deltas(list(elos), list(places), ks, list(forfeited))


def seat_record(*, place: int, places: Sequence[int], forfeited: bool) -> str:
    """"win" for sole first place, "draw" for shared first place, "loss" otherwise (and on forfeit)."""
    if forfeited or place != 1:
        return "loss"
    return "win" if list(places).count(1) == 1 else "draw"


_RECORD_FIELD = {"win": "wins", "draw": "draws", "loss": "losses"}


def _forfeited(seat) -> bool:
    return Seat.outcome_forfeits(seat.outcome)


def ratings_compute(*, game_id: int, match_id: int, seats: Sequence,
                    locked: list[tuple] | None = None) -> tuple[list[tuple], list[tuple], list[tuple]]:
    """The rating updates, history rows and pair-record additions of one finished match, as parameters
    of :func:`ratings_write`.

    ``seats`` are the match's seats in seat order: objects with ``id``, ``bot_id``, ``place`` and
    ``outcome`` (Seat instances, or the recorder's lighter rows); each one's ``rating_before`` and
    ``rating_after`` are set in memory only, for a caller that saves the seats with the rest of the
    result. ``locked`` are the bots' rating rows (:data:`match_sql.RATING_COLUMNS`) if the caller has
    already read and locked them (:func:`match_sql.locked_ratings_sql`); otherwise they are locked here.

    The caller holds the transaction that records the result (and the match row lock). Rating rows are
    locked in bot-id order, the same order in every transaction, so concurrent workers neither lose
    updates nor deadlock. The unique history row per seat makes a second application fail loudly.
    """
    bot_ids = sorted({seat.bot_id for seat in seats})
    rows = _rows_by_bot(locked) if locked is not None else _locked_ratings(game_id, bot_ids)
    if len(rows) < len(bot_ids):
        # Every bot gets its rating row when it is created; this only covers rows deleted by hand.
        for bot_id in set(bot_ids) - set(rows):
            Rating.objects.get_or_create(bot_id=bot_id, game_id=game_id)
        rows = _locked_ratings(game_id, bot_ids)
    places = [seat.place for seat in seats]
    deltas = seat_rating_deltas(
        elos=[rows[s.bot_id]["elo"] for s in seats],
        games=[rows[s.bot_id]["games"] for s in seats],
        places=places,
        forfeited=[_forfeited(s) for s in seats],
    )
    now = match_sql.db_datetime(timezone.now())
    changes = []
    for seat, delta in zip(seats, deltas, strict=True):
        row = rows[seat.bot_id]
        before, after = row["elo"], row["elo"] + delta
        record = seat_record(place=seat.place, places=places, forfeited=_forfeited(seat))
        # Absolute values are safe: the row is locked until the transaction ends.
        row["elo"] = after
        row["games"] += 1
        row[_RECORD_FIELD[record]] += 1
        seat.rating_before, seat.rating_after = before, after
        changes.append((seat.id, match_id, seat.bot_id, game_id, before, after, delta, now))
    updates = [(r["elo"], r["games"], r["wins"], r["draws"], r["losses"], now, r["id"]) for r in rows.values()]
    pairs = pair_records.pair_rows(game_id=game_id, bot_ids=[s.bot_id for s in seats], places=places,
                                   forfeited=[_forfeited(s) for s in seats], now=now)
    return updates, changes, pairs


def ratings_write(updates: list[tuple], changes: list[tuple], pairs: list[tuple] = ()) -> None:
    """Write what :func:`ratings_compute` gave. Reads nothing back, so that a caller batching statements
    (:func:`match_sql.statements_batched`) sends them with its other writes in one round trip."""
    match_sql.execute_many(match_sql.rating_update_sql(), updates)
    match_sql.execute_many(match_sql.change_insert_sql(), changes)
    pair_records.pair_records_write(list(pairs))


def _rows_by_bot(rows: list[tuple]) -> dict[int, dict]:
    return {row[1]: dict(zip(match_sql.RATING_COLUMNS, row, strict=True)) for row in rows}


def _locked_ratings(game_id: int, bot_ids: list[int]) -> dict[int, dict]:
    """The bots' rating rows as plain dicts, locked in bot-id order."""
    return _rows_by_bot(list(
        Rating.objects.select_for_update().filter(game_id=game_id, bot_id__in=bot_ids).order_by("bot_id")
        .values_list(*match_sql.RATING_COLUMNS)
    ))


@transaction.atomic
def ratings_rebuild(*, game_slug: str) -> int:
    """Recompute every rating of a game from its finished rated matches, in the order they were first
    applied (their oldest history row; matches never rated come last, by finish time), its pair
    records and its tournaments' standings (``tournament_records``; recordings of its unrated
    tournaments, which lock no rating row, should be held off meanwhile). Returns the matches replayed. Seats of unrated matches lose any rating they carry (from
    before the rule).

    Equals the incremental result: matches that share a bot are replayed in the order their rating rows
    were locked, and matches that share none commute.
    """
    game = game_get(slug=game_slug)
    rating_rows = {
        row.bot_id: row for row in Rating.objects.select_for_update().filter(game=game).order_by("bot_id")
    }
    matches = list(
        Match.objects.filter(RATED_MATCHES, game=game, status=Match.Status.FINISHED)
        .annotate(first_change=Min("rating_changes__id"))
        .order_by(F("first_change").asc(nulls_last=True), "finished_at", "id")
    )
    seats_by_match: dict[int, list[Seat]] = {}
    for seat in Seat.objects.filter(match__in=[m.id for m in matches]).order_by("match_id", "position"):
        seats_by_match.setdefault(seat.match_id, []).append(seat)
    RatingChange.objects.filter(game=game).delete()
    Seat.objects.filter(match__game=game).exclude(match__in=Match.objects.filter(RATED_MATCHES)).exclude(
        rating_before=None, rating_after=None
    ).update(rating_before=None, rating_after=None)

    state: dict[int, dict] = {}
    for bot_id in {s.bot_id for seats in seats_by_match.values() for s in seats} | set(rating_rows):
        state[bot_id] = {"elo": ratings.INITIAL_RATING, "games": 0, "wins": 0, "draws": 0, "losses": 0}
    changes: list[RatingChange] = []
    touched_seats: list[Seat] = []
    for match in matches:
        seats = seats_by_match.get(match.id, [])
        places = [s.place for s in seats]
        deltas = seat_rating_deltas(
            elos=[state[s.bot_id]["elo"] for s in seats],
            games=[state[s.bot_id]["games"] for s in seats],
            places=places,
            forfeited=[_forfeited(s) for s in seats],
        )
        for seat, delta in zip(seats, deltas, strict=True):
            entry = state[seat.bot_id]
            before, after = entry["elo"], entry["elo"] + delta
            entry["elo"] = after
            entry["games"] += 1
            entry[_RECORD_FIELD[seat_record(place=seat.place, places=places, forfeited=_forfeited(seat))]] += 1
            seat.rating_before, seat.rating_after = before, after
            touched_seats.append(seat)
            changes.append(RatingChange(seat=seat, match=match, bot_id=seat.bot_id, game=game,
                                        before=before, after=after, delta=delta))
    Seat.objects.bulk_update(touched_seats, ["rating_before", "rating_after"], batch_size=1000)
    RatingChange.objects.bulk_create(changes, batch_size=1000)
    for bot_id, entry in state.items():
        Rating.objects.update_or_create(bot_id=bot_id, game=game, defaults=entry)
    pair_records.pair_records_rebuild(game_id=game.id, now=timezone.now())
    # The standings read the same results: recomputed with them, so a history changed by hand is read
    # the same way by every table.
    tournament_records.records_rebuild(tournament_ids=list(game.tournaments.values_list("id", flat=True)),
                                       now=timezone.now())
    return len(matches)
