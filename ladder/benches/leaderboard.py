"""How the leaderboard's certainty keeps up with a growing history, measured side by side in one run
(``manage.py bench``).

A generated history of finished rated two-player Kingdomino ladder matches between ``bots`` bots of known
strengths (each result drawn from the Elo curve, the online Elo applied as the recorder applies it, seats,
ratings and pair records; no rating history, which the leaderboard does not read) is built at each size of ``sizes``, and at each one, best of ``repeats`` (5):

* ``leaderboard.api_ms.<size>``: ``GET /api/leaderboards/kingdomino/``, the fit included (its cache
  emptied before each request); ``leaderboard.api_cached_ms.<size>``: the same read again before any new
  result, when the fit is remembered;
* ``leaderboard.pace_ms.<size>``: the ladder's pace on the game's page (matches of the last ten minutes);
* ``leaderboard.history_fit_ms.<size>``: what a fit over the whole history would cost per request (every
  rated seat read and summed per pair, then the same fit): what the pair records save;
* ``leaderboard.api_ratio``, ``.pace_ratio`` and ``.history_fit_ratio``: largest size over smallest (1
  means the time does not grow with the history).

The fit alone on fields of 20, 100 and 200 bots where every pair met: ``leaderboard.fit_ms.bots_<n>``.

And, on the largest history, the recorder's cost of keeping the pair records:
``leaderboard.record_ms.with_pairs`` / ``.without_pairs`` (``match_record_result`` of a rated match, the
pair records' writes left out in the second; alternating batches) and their ``record_ratio``.

Like the pipeline's figures, everything runs in a scratch database (Django's test-database machinery)
that is dropped afterwards.
"""

from __future__ import annotations

import random
import statistics
import time
from collections import defaultdict
from contextlib import contextmanager
from datetime import timedelta

from django.db import connection
from django.test import Client
from django.utils import timezone

from ladder.benches.scratch_database import bench_bots, scratch_database

BENCH_GAME = "kingdomino"
HOST = "127.0.0.1"


def bench_leaderboard(*, sizes: tuple[int, ...] = (10_000, 100_000), bots: int = 20, repeats: int = 5,
                      record_matches: int = 400) -> dict:
    """The leaderboard figures as a flat dict (module docstring); ``sizes`` ascending."""
    from ladder.selectors.leaderboards import _certainty, ladder_pace

    figures: dict = {}
    with scratch_database():
        history = _History(bots=bots)
        for size in sizes:
            started = time.perf_counter()
            history.grow_to(size)
            figures[f"leaderboard.build_s.{size}"] = round(time.perf_counter() - started, 1)
            client = Client(HTTP_HOST=HOST)
            url = f"/api/leaderboards/{BENCH_GAME}/"
            figures[f"leaderboard.api_ms.{size}"] = _best_ms(repeats, lambda: (_certainty.cache_clear(), _get(client, url)))
            figures[f"leaderboard.api_cached_ms.{size}"] = _best_ms(repeats, lambda: _get(client, url))
            figures[f"leaderboard.pace_ms.{size}"] = _best_ms(repeats, lambda: ladder_pace(game=history.game))
            figures[f"leaderboard.history_fit_ms.{size}"] = _best_ms(repeats, history.fit_from_history)
        small, large = sizes[0], sizes[-1]
        for name in ("api", "pace", "history_fit"):
            figures[f"leaderboard.{name}_ratio"] = round(
                figures[f"leaderboard.{name}_ms.{large}"] / figures[f"leaderboard.{name}_ms.{small}"], 2)
        with_pairs, without_pairs = history.record_costs(record_matches)
        figures["leaderboard.record_ms.with_pairs"] = round(with_pairs, 2)
        figures["leaderboard.record_ms.without_pairs"] = round(without_pairs, 2)
        figures["leaderboard.record_ratio"] = round(with_pairs / without_pairs, 3)
        figures["leaderboard.bots"] = bots
        for field in FIELD_SIZES:
            figures[f"leaderboard.fit_ms.bots_{field}"] = _best_ms(repeats, _field_fit(field))
    return figures


#: Fields of the pure fit's figures: it grows with the square of the bots, not with the history.
FIELD_SIZES = (20, 100, 200)


def _field_fit(bots: int):
    """The fit alone (``board_certainty``) on a field of ``bots`` bots where every pair met 10 times."""
    from ladder.ratings.confidence import board_certainty

    rng = random.Random(bots)
    pairs = [(a, b, 10.0, float(rng.randint(0, 10))) for a in range(bots) for b in range(a + 1, bots)]
    elos = dict.fromkeys(range(bots), 1500.0)
    return lambda: board_certainty(list(range(bots)), elos, pairs)


def _get(client: Client, url: str) -> None:
    response = client.get(url)
    if response.status_code != 200:
        raise RuntimeError(f"{url} answered {response.status_code}: {response.content[:300]!r}")


def _best_ms(repeats: int, run) -> float:
    best = float("inf")
    for _ in range(repeats):
        started = time.perf_counter()
        run()
        best = min(best, time.perf_counter() - started)
    return round(best * 1000.0, 1)


class _History:
    """The generated history: bots of spread strengths, matches added in bulk."""

    def __init__(self, *, bots: int) -> None:
        from ladder.models import Game
        from ladder.services.tournaments.ladder import ladder_tournament_get

        self.game = Game.objects.get(slug=BENCH_GAME)
        self.tournament = ladder_tournament_get(game=self.game)
        self.rng = random.Random(31)
        self.bots, self.versions, self.strength, self.elo = [], {}, {}, {}
        for i, (bot, version) in enumerate(bench_bots(self.game, bots)):
            self.versions[bot.id] = version
            self.bots.append(bot)
            self.strength[bot.id] = 400.0 * (i / max(1, bots - 1) - 0.5)  # -200 .. +200 Elo
            self.elo[bot.id] = 1500.0
        self.record = defaultdict(lambda: [0, 0])  # bot id -> [games, wins]
        self.size = 0

    def grow_to(self, size: int, batch: int = 10_000) -> None:
        """Add finished matches with their seats up to ``size``, then bring the ratings and pair records
        up to date. Rows go in by plain INSERTs (the ORM's bulk_create spends most of its time preparing
        values: minutes for a million seats); the rating history is left out, as the leaderboard does not
        read it."""
        from django.core.management.color import no_style

        from ladder.models import Match, MatchSetup, Rating, Seat
        from ladder.ratings.elo import expected_score
        from ladder.services.ratings.pair_records import pair_records_rebuild

        start = timezone.now() - timedelta(days=30)
        setup = MatchSetup.objects.for_parts(options=self.game.default_options, limits={}).id
        match_sql, seat_sql = _insert_sql(Match, _MATCH_COLUMNS), _insert_sql(Seat, _SEAT_COLUMNS)
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM {_table(Match)}")
            next_id = cursor.fetchone()[0] + 1
        while self.size < size:
            count = min(batch, size - self.size)
            matches, seats = [], []
            for i in range(count):
                match_id, index = next_id + i, self.size + i
                at = connection.ops.adapt_datetimefield_value(start + timedelta(seconds=index))
                matches.append((match_id, at, at, self.game.id, self.tournament.id, index, 2, index, setup,
                                "[]", Match.Status.FINISHED.value, 0, 0, at, at, 0.1, "", ""))
                a, b = self.rng.sample(self.bots, 2)
                a_wins = self.rng.random() < expected_score(self.strength[a.id], self.strength[b.id])
                delta = 32.0 * ((1.0 if a_wins else 0.0) - expected_score(self.elo[a.id], self.elo[b.id]))
                for position, (bot, place, change) in enumerate(((a, 1 if a_wins else 2, delta),
                                                                 (b, 2 if a_wins else 1, -delta))):
                    before = self.elo[bot.id]
                    self.elo[bot.id] = before + change
                    self.record[bot.id][0] += 1
                    self.record[bot.id][1] += place == 1
                    seats.append((match_id, position, bot.id, self.versions[bot.id].id, 30 - place, place,
                                  Seat.Outcome.OK.value, "", None, before, self.elo[bot.id]))
            with connection.cursor() as cursor:
                cursor.executemany(match_sql, matches)
                cursor.executemany(seat_sql, seats)
            next_id += count
            self.size += count
        with connection.cursor() as cursor:
            for statement in connection.ops.sequence_reset_sql(no_style(), [Match, Seat]):
                cursor.execute(statement)
        for bot in self.bots:
            games, wins = self.record[bot.id]
            Rating.objects.filter(bot=bot, game=self.game).update(elo=self.elo[bot.id], games=games, wins=wins,
                                                                  losses=games - wins)
        pair_records_rebuild(game_id=self.game.id, now=timezone.now())
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")  # the planner's statistics, as a database that grew over time has them

    def grow_fast_to(self, size: int, *, draws: float = 0.02, forfeits: float = 0.01, batch: int = 250_000) -> None:
        """Add finished matches up to ``size`` in bulk SQL (INSERT ... SELECT over generate_series): about a
        minute for a million matches, where :meth:`grow_to` takes several. Each match seats two different bots; the stronger (the later bot) wins more often
        on the Elo curve of their strengths, ``draws`` of the matches share first place and ``forfeits``
        of them end with the second seat's timeout. Then the ratings' records (games, wins, draws,
        losses; the Elo is left as it is, only the reads are measured), the pair records and, where the
        code keeps them, the tournament's standings are brought up to date from the seats. No rating
        history and no actions, which no measured read needs."""
        from django.core.management.color import no_style

        from ladder.models import Match, MatchSetup, Rating, Seat
        from ladder.services.ratings.pair_records import pair_records_rebuild

        bots = [bot.id for bot in self.bots]
        versions = [self.versions[bot_id].id for bot_id in bots]
        count = len(bots)
        setup = MatchSetup.objects.for_parts(options=self.game.default_options, limits={}).id
        with connection.cursor() as cursor:
            cursor.execute(f"SELECT COALESCE(MAX(id), 0) FROM {_table(Match)}")
            next_id = cursor.fetchone()[0] + 1
            cursor.execute("SELECT setseed(%s)", [0.31])
            while self.size < size:
                step = min(batch, size - self.size)
                first, last = next_id, next_id + step - 1
                # Match g is the history's match g - offset; it finished one second after the one before.
                offset = next_id - self.size
                cursor.execute(
                    f"INSERT INTO {_table(Match)} ({', '.join(connection.ops.quote_name(c) for c in _MATCH_COLUMNS)}) "
                    "SELECT g, t, t, %s, %s, g - %s, 2, g - %s, %s, '[]'::jsonb, %s, 0, 1, t, t, "
                    "0.1, '', '' FROM (SELECT g, now() - interval '400 days' + (g - %s) * interval '1 second' AS t "
                    "FROM generate_series(%s::bigint, %s::bigint) g) rows",
                    [self.game.id, self.tournament.id, offset, offset, setup, Match.Status.FINISHED.value,
                     offset, first, last])
                # Two distinct bots per match (a, then b a non-zero step further round the field), the
                # result drawn once per match: 1 a won, 0 b won, 0.5 a draw; a forfeit is b's.
                cursor.execute(
                    f"INSERT INTO {_table(Seat)} ({', '.join(connection.ops.quote_name(c) for c in _SEAT_COLUMNS)}) "
                    "SELECT g, p, (%s::bigint[])[i + 1], (%s::bigint[])[i + 1], "
                    "CASE WHEN place = 1 THEN 30 ELSE 20 END, place, outcome, '', NULL, NULL, NULL FROM ("
                    "SELECT g, p, CASE WHEN p = 0 THEN a ELSE b END AS i, "
                    "CASE WHEN r = 0.5 OR (p = 0) = (r = 1) THEN 1 ELSE 2 END AS place, "
                    "CASE WHEN p = 1 AND forfeit THEN %s ELSE %s END AS outcome FROM ("
                    "SELECT g, a, b, forfeit, CASE WHEN forfeit THEN 1 WHEN u < %s THEN 0.5 "
                    "WHEN u < %s + (1 - %s) / (1 + power(10, (b - a) * 400.0 / GREATEST(%s - 1, 1) / 400)) THEN 1 "
                    "ELSE 0 END AS r FROM ("
                    "SELECT g, a, (a + 1 + floor(random() * (%s - 1))::int) %% %s AS b, random() AS u, "
                    "random() < %s AS forfeit FROM ("
                    "SELECT g, floor(random() * %s)::int AS a FROM generate_series(%s::bigint, %s::bigint) g"
                    ") picked) drawn) results CROSS JOIN (VALUES (0), (1)) positions(p)) seats",
                    [bots, versions, Seat.Outcome.TIMEOUT.value, Seat.Outcome.OK.value, draws, draws, draws, count,
                     count, count, forfeits, count, first, last])
                next_id += step
                self.size += step
            for statement in connection.ops.sequence_reset_sql(no_style(), [Match, Seat]):
                cursor.execute(statement)
            rating, seat, match = _table(Rating), _table(Seat), _table(Match)
            cursor.execute(
                f"UPDATE {rating} r SET games = c.games, wins = c.wins, draws = c.draws, losses = c.games - c.wins "
                "- c.draws FROM (SELECT s.bot_id, COUNT(*) AS games, "
                "SUM(CASE WHEN s.place = 1 AND o.place <> 1 AND s.outcome = 'ok' THEN 1 ELSE 0 END) AS wins, "
                "SUM(CASE WHEN s.place = 1 AND o.place = 1 THEN 1 ELSE 0 END) AS draws "
                f"FROM {seat} s JOIN {seat} o ON o.match_id = s.match_id AND o.position <> s.position "
                f"JOIN {match} m ON m.id = s.match_id WHERE m.tournament_id = %s GROUP BY s.bot_id) c "
                "WHERE r.bot_id = c.bot_id AND r.game_id = %s", [self.tournament.id, self.game.id])
        pair_records_rebuild(game_id=self.game.id, now=timezone.now())
        self._standings_rebuild()
        with connection.cursor() as cursor:
            cursor.execute("ANALYZE")

    def _standings_rebuild(self) -> None:
        """The tournament's stored standings from its seats, where the code keeps them."""
        try:
            from ladder.services.ratings.tournament_records import records_rebuild
        except ImportError:  # code from before the standings were stored: its reads compute them
            return
        records_rebuild(tournament_ids=[self.tournament.id], now=timezone.now())

    def fit_from_history(self) -> None:
        """The fit as a request would have to make it without pair records: every rated seat read and
        summed per pair, then the same fit."""
        from ladder.core.rated_play import RATED_MATCHES
        from ladder.models import Match, Rating, Seat
        from ladder.ratings.bradley_terry import match_pairwise_results
        from ladder.ratings.confidence import board_certainty

        rated = Match.objects.filter(RATED_MATCHES, game=self.game, status=Match.Status.FINISHED)
        by_match = defaultdict(list)
        for match_id, bot_id, place, outcome in (Seat.objects.filter(match__in=rated).order_by("match_id", "position")
                                                 .values_list("match_id", "bot_id", "place", "outcome")):
            by_match[match_id].append((bot_id, place, 0, Seat.outcome_forfeits(outcome)))
        totals = defaultdict(lambda: [0.0, 0.0])
        for a, b, score_a, weight in match_pairwise_results(by_match.values()):
            totals[a, b][0] += weight
            totals[a, b][1] += weight * score_a
        elos = dict(Rating.objects.filter(game=self.game).order_by("-elo").values_list("bot_id", "elo"))
        board_certainty(list(elos), elos, [(a, b, w, s) for (a, b), (w, s) in totals.items()])

    def record_costs(self, matches: int, batch: int = 20) -> tuple[float, float]:
        """Milliseconds per ``match_record_result`` of a rated match, with and without the pair records'
        writes: the median batch of each, in alternating batches so that both see the machine in the same
        state (a busy machine makes single batches jump by half)."""
        spent = {True: [], False: []}
        for round_ in range(2 * max(1, matches // batch)):
            with_pairs = round_ % 2 == 0
            with _pair_writes(enabled=with_pairs):
                spent[with_pairs].append(self._record(batch))
        return (statistics.median(spent[True]) / batch * 1000.0, statistics.median(spent[False]) / batch * 1000.0)

    def _record(self, count: int) -> float:
        from bots.referee import MatchResult, SeatResult
        from ladder.models import Match, Seat
        from ladder.services.play.matches import match_claim, match_record_result

        claims = []
        for _ in range(count):
            a, b = self.rng.sample(self.bots, 2)
            match = Match.objects.create(game=self.game, tournament=self.tournament, index=self.size, players=2,
                                         seed=self.size, options=self.game.default_options)
            self.size += 1
            Seat.objects.bulk_create([Seat(match=match, position=p, bot=bot, bot_version=self.versions[bot.id])
                                      for p, bot in enumerate((a, b))])
            claims.append((match_claim(match_id=match.id, worker="bench"), (a, b)))
        started = time.perf_counter()
        for claim, (a, b) in claims:
            result = MatchResult(game=BENCH_GAME, players=2, seed=claim.seed, options=claim.options, actions=[],
                                 seats=[SeatResult(bot=bot.name, score=0, place=place, outcome="ok", reason="",
                                                   time_used_ms=1, log="") for bot, place in ((a, 1), (b, 2))],
                                 duration_s=0.1)
            match_record_result(match_id=claim.match_id, token=claim.token, result=result)
        return time.perf_counter() - started


_MATCH_COLUMNS = ("id", "created_at", "updated_at", "game_id", "tournament_id", "index", "players", "seed",
                  "setup_id", "actions", "status", "priority", "attempts", "started_at", "finished_at",
                  "duration_s", "worker", "failure_reason")
_SEAT_COLUMNS = ("match_id", "position", "bot_id", "bot_version_id", "score", "place", "outcome", "reason", "logs",
                 "rating_before", "rating_after")


def _table(model) -> str:
    return connection.ops.quote_name(model._meta.db_table)


def _insert_sql(model, columns: tuple[str, ...]) -> str:
    names = ", ".join(connection.ops.quote_name(column) for column in columns)
    return f"INSERT INTO {_table(model)} ({names}) VALUES ({', '.join(['%s'] * len(columns))})"


@contextmanager
def _pair_writes(*, enabled: bool):
    """The recorder with its pair-record writes, or (for the baseline) without them (both ways a result
    reaches the records, the applier's and a recording's own, write ``pair_records.pair_records_parts``)."""
    if enabled:
        yield
        return
    from ladder.services.ratings import pair_records

    original = pair_records.pair_records_parts
    pair_records.pair_records_parts = lambda rows: []
    try:
        yield
    finally:
        pair_records.pair_records_parts = original
