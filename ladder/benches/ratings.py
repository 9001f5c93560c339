"""How fast rated results that share bots get their ratings, measured side by side in one run (``manage.py
bench``).

``threads`` threads, each with its own connection, finish synthetic rated two-player results (no sandbox,
no referee) among ``bots`` bots, so that nearly every pair of results in flight shares a bot:

* ``ratings.applied_per_s.applier``: each result finished and marked pending in one transaction, then
  applied by the game's one applier (``rating_applier.ratings_apply_pending``, in batches), as
  ``match_record_result`` does;
* ``ratings.applied_per_s.row_locks``: the former way, kept here as the baseline: each result finished in
  a transaction that locks its bots' rating rows in bot-id order, applies the same Elo step and writes the
  ratings, history and seats row by row before it commits (so results sharing a bot wait for each other);
* ``ratings.applied_ratio``: the first over the second;
* ``ratings.rebuild_swap_ms``: the rebuild's swap (``rating_rebuild.rebuild_swap``, the part that holds off
  rated results) after the history above, and ``ratings.rebuild_aside_ms`` its first half, which holds
  nothing.

Both variants do the same work besides the ratings (one UPDATE finishing the match; the applier also
keeps the pair records, which the baseline leaves out), so the ratio is the locking's; they run in turns
(A B B A, half the results each time) so that both meet tables of the same size. Everything runs in a scratch database that is dropped afterwards.
"""

from __future__ import annotations

import threading
import time
import uuid
from datetime import timedelta

from django.db import connection, transaction
from django.utils import timezone

from ladder.benches.scratch_database import bench_bots, scratch_database

BENCH_GAME = "kingdomino"


def bench_ratings(*, matches: int = 600, threads: int = 8, bots: int = 6) -> dict:
    """The ratings figures as a flat dict (module docstring)."""
    figures: dict = {}
    with scratch_database():
        field = _Field(bots=bots)
        variants = {"row_locks": _record_with_row_locks, "applier": _record_pending}
        spent = dict.fromkeys(variants, 0.0)
        # In the order A B B A, half the results each time, so that both meet the tables as large.
        for name in ("row_locks", "applier", "applier", "row_locks"):
            work = field.running_matches(matches // 2)
            started = time.perf_counter()
            _run_threads(work, threads, variants[name], field.game.id)
            spent[name] += time.perf_counter() - started
        for name, seconds in spent.items():
            figures[f"ratings.applied_per_s.{name}"] = round(2 * (matches // 2) / seconds, 1)
        figures["ratings.applied_ratio"] = round(
            figures["ratings.applied_per_s.applier"] / figures["ratings.applied_per_s.row_locks"], 2)
        from ladder.services.ratings.rating_rebuild import rebuild_aside, rebuild_swap

        started = time.perf_counter()
        plan = rebuild_aside(game_id=field.game.id)
        figures["ratings.rebuild_aside_ms"] = round((time.perf_counter() - started) * 1000.0, 1)
        started = time.perf_counter()
        rebuild_swap(plan)
        figures["ratings.rebuild_swap_ms"] = round((time.perf_counter() - started) * 1000.0, 1)
        figures["ratings.threads"], figures["ratings.bots"] = threads, bots
    return figures


class _Field:
    def __init__(self, *, bots: int) -> None:
        from ladder.models import Game
        from ladder.services.tournaments.ladder import ladder_tournament_get

        self.game = Game.objects.get(slug=BENCH_GAME)
        self.tournament = ladder_tournament_get(game=self.game)
        made = bench_bots(self.game, bots)
        self.bots = [bot for bot, _version in made]
        self.versions = {bot.id: version for bot, version in made}
        self.index = 0

    def running_matches(self, count: int) -> list[int]:
        """``count`` running matches, each between two of the bots with its places already set."""
        from ladder.models import Match, Seat

        lease = timezone.now() + timedelta(hours=1)
        created = Match.objects.bulk_create([
            Match(game=self.game, tournament=self.tournament, index=self.index + i, players=2, seed=i,
                  status=Match.Status.RUNNING, attempts=1, attempt_token=uuid.uuid4(), lease_expires_at=lease)
            for i in range(count)])
        self.index += count
        seats = []
        for i, match in enumerate(created):
            a, b = self.bots[i % len(self.bots)], self.bots[(i * 7 + 1 + i // len(self.bots)) % len(self.bots)]
            if a.id == b.id:
                b = self.bots[(self.bots.index(a) + 1) % len(self.bots)]
            seats += [Seat(match=match, position=p, bot=bot, bot_version=self.versions[bot.id], place=p + 1,
                           outcome="ok", score=0) for p, bot in enumerate((a, b))]
        Seat.objects.bulk_create(seats)
        return [match.id for match in created]


def _run_threads(work: list[int], threads: int, record, game_id: int) -> None:
    errors: list[BaseException] = []

    def worker(share: list[int]) -> None:
        try:
            for match_id in share:
                record(match_id, game_id)
        except BaseException as exc:  # reported by the caller: a thread's exception would be lost
            errors.append(exc)
        finally:
            connection.close()

    running = [threading.Thread(target=worker, args=(work[i::threads],)) for i in range(threads)]
    for thread in running:
        thread.start()
    for thread in running:
        thread.join()
    if errors:
        raise errors[0]


def _finish(cursor, match_id: int) -> None:
    from ladder.models import Match

    cursor.execute(f"UPDATE {connection.ops.quote_name(Match._meta.db_table)} SET status = %s, finished_at = %s, "
                   "attempt_token = NULL, lease_expires_at = NULL WHERE id = %s", [Match.Status.FINISHED.value, timezone.now(), match_id])


def _record_pending(match_id: int, game_id: int) -> None:
    from ladder.services.ratings.rating_applier import pending_add, ratings_apply_pending

    with transaction.atomic(), connection.cursor() as cursor:
        _finish(cursor, match_id)
        pending_add(match_id=match_id, game_id=game_id)
    ratings_apply_pending(game_id=game_id)


def _record_with_row_locks(match_id: int, game_id: int) -> None:
    """The former recorder's rating path: rows locked in bot-id order inside the recording transaction."""
    from ladder.models import Rating, RatingChange, Seat
    from ladder.ratings.elo import BotRating, RatedSeat, rate_match
    from ladder.services.ratings.rating_applier import k_factors

    q = connection.ops.quote_name
    with transaction.atomic(), connection.cursor() as cursor:
        _finish(cursor, match_id)
        cursor.execute(f"SELECT id, bot_id, place FROM {q(Seat._meta.db_table)} WHERE match_id = %s ORDER BY position",
                       [match_id])
        seats = cursor.fetchall()
        cursor.execute(f"SELECT id, bot_id, elo, games, wins, draws, losses FROM {q(Rating._meta.db_table)} "
                       "WHERE game_id = %s AND bot_id IN (%s, %s) ORDER BY bot_id FOR UPDATE",
                       [game_id, seats[0][1], seats[1][1]])
        rows = {bot_id: (rating_id, BotRating(*values)) for rating_id, bot_id, *values in cursor.fetchall()}
        ratings = {bot_id: rating for bot_id, (_id, rating) in rows.items()}
        steps = rate_match(ratings, [RatedSeat(bot_id, place) for _seat, bot_id, place in seats], k_factors())
        now = timezone.now()
        for bot_id, (rating_id, r) in rows.items():
            cursor.execute(f"UPDATE {q(Rating._meta.db_table)} SET elo = %s, games = %s, wins = %s, draws = %s, "
                           "losses = %s, updated_at = %s WHERE id = %s",
                           [r.elo, r.games, r.wins, r.draws, r.losses, now, rating_id])
        for (seat_id, bot_id, _place), (before, after, delta) in zip(seats, steps, strict=True):
            cursor.execute(f"INSERT INTO {q(RatingChange._meta.db_table)} (seat_id, match_id, bot_id, game_id, "
                           f"{q('before')}, {q('after')}, delta, created_at) VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                           [seat_id, match_id, bot_id, game_id, before, after, delta, now])
            cursor.execute(f"UPDATE {q(Seat._meta.db_table)} SET rating_before = %s, rating_after = %s WHERE id = %s",
                           [before, after, seat_id])
