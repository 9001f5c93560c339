"""What recording a result costs, measured side by side in one run (``manage.py bench --recording``, the
``recording.*`` figures).

Rated ladder matches of one game are scheduled among a field of bots, claimed and recorded through the
real service functions (``ladder.services.play.matches``: ``match_claim``, ``match_record_result``) with
synthetic results of the shape the referee hands over (the actions of matches played in process by the
game's engine, a decision record per decision of each seat; no sandbox, no broker):

* ``recording.recorded_per_s``: results claimed and recorded per second, ``processes`` recorders at once
  (the game's one ladder: every recording adds to its standings, the bots' ratings serialise the
  matches they share);
* ``recording.bare_insert_per_s``: the same rows (a finished match, its seats with their results and
  logs, their rating history) written by bare multi-row INSERTs, 100 matches a statement, one process;
* ``recording.ratio``: recorded over bare (how much of the database's raw pace the recording keeps);
* ``recording.recorded_per_s_grouped``: results recorded per second through the workers' group commit
  (``ladder.services.play.result_group``, Redis only): the matches claimed and their results packed
  beforehand (the playing workers' own work), then :data:`GROUP_THREADS` waiting workers in each of
  ``processes`` processes hand in one result after another, and whichever holds the game's recorder lock records all that wait, up to
  ``RESULTS_GROUP_BATCH`` a transaction; ``recording.grouped_ratio`` that over bare;
* ``recording.recorded_per_s_batched``: results recorded per second by one game's recorder in full
  batches of ``RESULTS_GROUP_BATCH`` (the results claimed and packed beforehand, no waiting workers:
  what the holder of a game's group lock can record when a busy fleet fills its batches), and
  ``recording.batched_ratio`` that over bare;
* ``recording.recorded_per_s_by_message``: results claimed and recorded per second as the workers record
  the matches of their ``run_matches`` messages (``MATCHES_PER_MESSAGE`` claimed in one transaction, their
  results packed and recorded in one), ``processes`` recorders at once; ``recording.by_message_ratio``
  that over bare;
* ``recording.recorded_per_s_unprepared``: the same recordings with no statement prepared (every one
  parsed and planned by the server each time, as behind a pooler in transaction mode), and
  ``recording.prepared_speedup`` recorded over that;
* ``recording.round_trips_per_match`` and ``recording.wire_statements_per_match``: what one recording
  costs on the wire (:meth:`RecordingField.wire_costs`), and ``recording.claim_round_trips_per_message``
  the round trips of a message's claim;
* ``recording.statements_per_match``: the SQL statements of one recording's transaction (Django's own
  log of the connection, COMMIT excluded: a transaction's BEGIN is implicit, never sent as a statement),
  and ``recording.rating_statements_per_match`` those its game's rating applier sends after the commit
  (the ratings, the history, the pair records: ``rating_applier``);
* ``recording.bytes_per_match``: the tables a recording writes (matches, seats, rating history,
  ratings, pair records, the tournament's standings, head to head and tally) with their indexes and
  TOAST, after a VACUUM, over the matches (what the field's bots take before the first match is left
  out);
* ``recording.wal_bytes_per_match``: WAL written while recording (``pg_current_wal_lsn``'s advance over
  the recordings alone, claims included), per match;
* ``recording.bytes_per_match.<game>_<n>p``: the same bytes for other games and table sizes
  (:data:`OTHER_SHAPES`; no timing).

Every recorder, and the bare INSERTs, commit as a worker process does (without waiting for the WAL
flush, unless ``MATCH_SYNCHRONOUS_COMMIT``), and the tables are analysed before each timed run, as a
running deployment's autovacuum keeps them. Everything runs in a scratch database created for the run and
dropped afterwards.
"""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import multiprocessing
import random
import time
import uuid

from django.db import connection, connections, transaction
from django.utils import timezone

from ladder.benches.scratch_database import scratch_database

BENCH_GAME = "kingdomino"
#: Other (game, players) whose stored bytes per match are reported too.
OTHER_SHAPES = (("draftosaurus", 5),)
#: Waiting workers per process handing results to the group commit (a busy fleet's finishing matches).
GROUP_THREADS = 16
#: Matches per statement of the bare INSERTs.
BARE_BATCH = 100


def bench_recording(*, matches: int = 2000, processes: int = 2, bots: int = 20) -> dict:
    """The ``recording.*`` figures as a flat dict (module docstring), in a scratch database."""
    with scratch_database():
        return measure_recording(matches=matches, processes=processes, bots=bots)


def measure_recording(*, matches: int, processes: int = 2, bots: int = 20, other_matches: int = 500) -> dict:
    field = RecordingField(game_slug=BENCH_GAME, bots=bots, players=2)
    statements, rating_statements = field.statements_per_match(samples=20)
    wire = field.wire_costs()
    sizes = field.bytes_and_wal(matches=min(matches, 500))
    # Before the timed runs, whose thousands of matches (and their dead row versions, which a later VACUUM
    # may free or truncate mid-measurement) would blur the few hundred matches these sizes are taken over.
    other_sizes = {}
    for game_slug, players in OTHER_SHAPES:
        other = RecordingField(game_slug=game_slug, bots=max(bots, players + 1), players=players)
        other_sizes[f"recording.bytes_per_match.{game_slug}_{players}p"] = \
            other.bytes_and_wal(matches=other_matches)[0]
    rate = field.recorded_per_s(matches=matches, processes=processes)
    with statements_unprepared():
        unprepared = field.recorded_per_s(matches=matches, processes=processes)
    grouped = field.recorded_per_s_grouped(matches=matches, processes=processes, threads=GROUP_THREADS)
    batched = field.recorded_per_s_batched(matches=matches)
    by_message = field.recorded_per_s_by_message(matches=matches, processes=processes)
    bare = field.bare_insert_per_s(matches=matches)
    figures = {
        "recording.matches": matches,
        "recording.processes": processes,
        "recording.recorded_per_s": round(rate, 1),
        "recording.bare_insert_per_s": round(bare, 1),
        "recording.ratio": round(rate / bare, 3),
        "recording.recorded_per_s_unprepared": round(unprepared, 1),
        "recording.recorded_per_s_grouped": None if grouped is None else round(grouped, 1),
        "recording.grouped_ratio": None if grouped is None else round(grouped / bare, 3),
        "recording.prepared_speedup": round(rate / unprepared, 3),
        "recording.recorded_per_s_batched": round(batched, 1),
        "recording.batched_ratio": round(batched / bare, 3),
        "recording.recorded_per_s_by_message": round(by_message, 1),
        "recording.by_message_ratio": round(by_message / bare, 3),
        "recording.statements_per_match": statements,
        "recording.rating_statements_per_match": rating_statements,
        **wire,
        "recording.rows_per_match": field.rows_per_match(),
        "recording.bytes_per_match": sizes[0],
        "recording.wal_bytes_per_match": sizes[1],
        **other_sizes,
    }
    return figures


def synthetic_results(*, game_slug: str, players: int, count: int, seed: int = 0) -> list:
    """``count`` results of the shape ``bots.referee.play_match`` returns for ``game_slug`` at ``players``
    seats: the actions of matches the game's engine plays in process between bots taking random legal
    actions (a few distinct ones, reused), each seat with one decision record (``{"step", "ms", "log"}``)
    per step it moved, an empty log, places from the engine's ranking."""
    from bots.referee import MatchResult, SeatResult
    from engines import get as engine_get

    engine = engine_get(game_slug)
    rng = random.Random(seed)
    played = []
    for distinct in range(min(count, 8)):
        state = engine.new_state(players, seed + distinct, None)
        actions, movers = [], []
        while not state.is_terminal():
            movers.append(state.current_player())
            action = rng.choice(state.legal_actions())
            state.apply(action)
            actions.append(action)
        played.append((actions, movers, state.scores(), state.ranking()))
    results = []
    for i in range(count):
        actions, movers, scores, ranking = played[i % len(played)]
        results.append(MatchResult(
            game=game_slug, players=players, seed=seed + i, options=engine.resolve_options(None), actions=actions,
            seats=[SeatResult(bot=f"seat{p}", score=scores[p], place=ranking[p], outcome="ok", reason="",
                              time_used_ms=sum(1 + step % 7 for step, mover in enumerate(movers) if mover == p),
                              log="", decisions=[{"step": step, "ms": 1 + step % 7, "log": ""}
                                                 for step, mover in enumerate(movers) if mover == p])
                   for p in range(players)],
            duration_s=0.05))
    return results


@dataclasses.dataclass
class _Scheduled:
    match_id: int
    bot_ids: list[int]


class RecordingField:
    """Bots of one game with their rating rows, and its ladder, whose matches this field schedules
    (queued, seated, as the ladder's tick leaves them) and records."""

    def __init__(self, *, game_slug: str, bots: int, players: int) -> None:
        from django.contrib.auth import get_user_model

        from engines import get as engine_get
        from ladder.core.limits import limits_resolve
        from ladder.core.worker_time import match_reservation_s
        from ladder.models import Bot, BotVersion, Game, MatchSetup, Rating
        from ladder.services.tournaments.ladder import ladder_tournament_get

        self.game = Game.objects.get(slug=game_slug)
        self.players = players
        self.tournament = ladder_tournament_get(game=self.game)
        self.rng = random.Random(27)
        code = b"def act(observation, legal_actions):\n    return legal_actions[0]\n"
        self.bots, self.versions = [], {}
        for i in range(bots):
            # One owner each: a rated match seats bots of different owners (``rated_play``).
            owner = get_user_model().objects.create_user(f"bench-{uuid.uuid4().hex[:10]}")
            bot = Bot.objects.create(owner=owner, game=self.game, name=f"rec-{uuid.uuid4().hex[:8]}-{i:03d}")
            self.versions[bot.id] = BotVersion.objects.create(
                bot=bot, number=1, code=code, sha256=hashlib.sha256(code).hexdigest(), size=len(code),
                validation_status=BotVersion.Validation.ACCEPTED).id
            Rating.objects.get_or_create(bot=bot, game=self.game)
            self.bots.append(bot.id)
        self.next_index = 0
        self.limits = limits_resolve(game_slug=game_slug, overrides=self.tournament.limits)
        self.setup = MatchSetup.objects.for_parts(options=self.tournament.options, limits=self.limits)
        self.reserved_s = match_reservation_s(game_slug=game_slug, players=players, limits=self.limits)
        self.rules_version = engine_get(game_slug).rules_version
        self.results = synthetic_results(game_slug=game_slug, players=players, count=16)

    # --- scheduling and recording -------------------------------------------------------------------

    def schedule(self, count: int) -> list[_Scheduled]:
        """``count`` queued rated matches of the ladder, each seating ``players`` different bots."""
        from ladder.models import Match, Seat

        matches, seated = [], []
        now = timezone.now()
        for _ in range(count):
            bot_ids = self.rng.sample(self.bots, self.players)
            # As ``round_robins.matches_create`` schedules a ladder match, without the broker's message.
            matches.append(Match(game=self.game, tournament=self.tournament, index=self.next_index,
                                 players=self.players, seed=self.rng.getrandbits(48), setup=self.setup,
                                 rules_version=self.rules_version,
                                 reserved_s=self.reserved_s,
                                 priority=5, enqueued_at=now))
            seated.append(bot_ids)
            self.next_index += 1
        with transaction.atomic():
            Match.objects.bulk_create(matches)
            Seat.objects.bulk_create([Seat(match=match, position=p, bot_id=bot_id, bot_version_id=self.versions[bot_id])
                                      for match, bot_ids in zip(matches, seated, strict=True)
                                      for p, bot_id in enumerate(bot_ids)])
        return [_Scheduled(match.id, bot_ids) for match, bot_ids in zip(matches, seated, strict=True)]

    def result_for(self, i: int):
        return self.results[i % len(self.results)]

    def record(self, scheduled: list[_Scheduled]) -> None:
        """Claim and record each match, one after another, through the service functions."""
        from ladder.services.play.matches import match_claim, match_record_result

        for i, match in enumerate(scheduled):
            claim = match_claim(match_id=match.match_id, worker="bench")
            if not match_record_result(match_id=match.match_id, token=claim.token, result=self.result_for(i)):
                raise RuntimeError(f"match {match.match_id} was not recorded")

    # --- the figures ----------------------------------------------------------------------------------

    def statements_per_match(self, *, samples: int) -> tuple[float, float]:
        """Statements per recording's transaction, and those the rating applier sends after its commit
        (:func:`recording_statements`)."""
        from django.test.utils import CaptureQueriesContext

        from ladder.services.play.matches import match_claim, match_record_result

        total = rating = 0
        for i, match in enumerate(self.schedule(samples)):
            claim = match_claim(match_id=match.match_id, worker="bench")
            with CaptureQueriesContext(connection) as queries:
                match_record_result(match_id=match.match_id, token=claim.token, result=self.result_for(i))
            recording, after = recording_statements(queries.captured_queries)
            total += len(recording)
            rating += len(after)
        return round(total / samples, 2), round(rating / samples, 2)

    def wire_costs(self) -> dict:
        """As the server sees them (libpq's trace of the protocol: ``protocol_trace``), on a worker's
        connection (outside any transaction, committing without the wait for the WAL flush):
        ``recording.round_trips_per_match`` and ``recording.wire_statements_per_match``, the round trips
        and the statements of one rated match's recording alone (``match_record_result``, its game's
        applier lock free), everything it sends after its commit included; and
        ``recording.claim_round_trips_per_message``, those of claiming a message's ``MATCHES_PER_MESSAGE``
        matches (``match_claim_many``)."""
        from django.conf import settings

        from ladder.benches.protocol_trace import protocol_traced
        from ladder.services.play.matches import match_claim_many, match_record_result

        scheduled = self.schedule(settings.MATCHES_PER_MESSAGE)
        with _commits_as_a_worker():
            with protocol_traced() as claiming:
                claims = match_claim_many(match_ids=[match.match_id for match in scheduled], worker="bench")
            for i, claim in enumerate(claims):
                # The last one traced: its statements prepared, as in a worker that has recorded before.
                with protocol_traced() if i == len(claims) - 1 else contextlib.nullcontext() as recording:
                    if not match_record_result(match_id=claim.match_id, token=claim.token, result=self.result_for(i)):
                        raise RuntimeError(f"match {claim.match_id} was not recorded")
        return {"recording.round_trips_per_match": recording.round_trips,
                "recording.wire_statements_per_match": recording.statements,
                "recording.claim_round_trips_per_message": claiming.round_trips}

    def rows_per_match(self) -> int:
        """Rows one recording inserts or updates in :func:`recording_tables`, by the server's statistics."""
        from ladder.services.play.matches import match_claim, match_record_result

        match = self.schedule(1)[0]
        claim = match_claim(match_id=match.match_id, worker="bench")
        before = _rows_written()
        match_record_result(match_id=match.match_id, token=claim.token, result=self.result_for(0))
        return _rows_written() - before

    def bytes_and_wal(self, *, matches: int, round_size: int = 50) -> tuple[int, int]:
        """Bytes on disk and WAL per recorded match (:func:`storage_per_match`)."""
        return storage_per_match(self, matches=matches, round_size=round_size)

    def recorded_per_s(self, *, matches: int, processes: int) -> float:
        """Results claimed and recorded per second by ``processes`` recorders sharing ``matches`` matches
        scheduled beforehand (after a warm-up)."""
        self.record(self.schedule(20))
        scheduled = self.schedule(matches)
        _analyze()
        shares = [scheduled[p::processes] for p in range(processes)]
        return matches / _timed_in_processes(_recorder, [(self.record, share) for share in shares], what="recorder")

    def recorded_per_s_grouped(self, *, matches: int, processes: int, threads: int) -> float | None:
        """Results recorded per second through the workers' group commit (``result_group``): ``matches``
        matches claimed and their results packed beforehand (untimed: the workers that play them do both,
        each on its own machine), then handed in at once by ``threads`` waiting workers in each of
        ``processes`` processes. None unless the broker is Redis."""
        from ladder.services.play.matches import match_claim
        from ladder.services.play.recording import result_pack
        from ladder.services.play.result_group import group_available

        if not group_available():
            return None
        self.record(self.schedule(20))

        claims = [match_claim(match_id=match.match_id, worker="bench") for match in self.schedule(matches)]
        # Packed as the workers that played them pack them, each on its own machine: not this bench's time.
        work = [result_pack(match_id=claim.match_id, token=claim.token, result=self.result_for(i))
                for i, claim in enumerate(claims)]
        _analyze()
        game = f"bench-{uuid.uuid4().hex[:8]}"
        return matches / _timed_in_processes(
            _group_producer, [(work[p::processes], game, threads) for p in range(processes)], what="producer")

    def recorded_per_s_batched(self, *, matches: int) -> float:
        """Results recorded per second by the game's recorder alone, in full batches: ``matches`` matches
        claimed and their results packed beforehand, then recorded ``RESULTS_GROUP_BATCH`` a transaction
        (``recording.results_record``, as the holder of a game's group lock records what waits) by one
        process committing as a worker does. What one game's recording can take when the fleet is busy
        enough to fill the batches; the waiting workers, on their own machines in a fleet, are left out
        (``recorded_per_s_grouped`` has them on this machine)."""
        from django.conf import settings

        from ladder.services.play.matches import match_claim
        from ladder.services.play.recording import result_pack, results_record

        self.record(self.schedule(20))
        claims = [match_claim(match_id=match.match_id, worker="bench") for match in self.schedule(matches)]
        work = [result_pack(match_id=claim.match_id, token=claim.token, result=self.result_for(i))
                for i, claim in enumerate(claims)]
        _analyze()
        batch = settings.RESULTS_GROUP_BATCH
        with _commits_as_a_worker():
            began = time.perf_counter()
            for start in range(0, len(work), batch):
                chunk = work[start:start + batch]
                if not all(results_record(chunk).values()):
                    raise RuntimeError("a batch was not recorded")
            return matches / (time.perf_counter() - began)

    def record_by_message(self, scheduled: list[_Scheduled]) -> None:
        """Claim and record the matches as a worker does the matches of its ``run_matches`` messages:
        ``MATCHES_PER_MESSAGE`` at a time, claimed together (``match_claim_many``), each result packed
        (``result_pack``) and the message's recorded together (``results_record_guarded``)."""
        from django.conf import settings

        from ladder.services.play.matches import match_claim_many
        from ladder.services.play.recording import result_pack
        from ladder.services.play.result_group import results_record_guarded

        size = settings.MATCHES_PER_MESSAGE
        for start in range(0, len(scheduled), size):
            claims = match_claim_many(match_ids=[match.match_id for match in scheduled[start:start + size]],
                                      worker="bench")
            packed = [result_pack(match_id=claim.match_id, token=claim.token, result=self.result_for(start + i))
                      for i, claim in enumerate(claims)]
            recorded = results_record_guarded(packed)
            if len(claims) != len(scheduled[start:start + size]) or not all(recorded.values()):
                raise RuntimeError(f"a message of matches from {scheduled[start].match_id} was not recorded")

    def recorded_per_s_by_message(self, *, matches: int, processes: int) -> float:
        """Results claimed and recorded per second by ``processes`` recorders as workers taking
        ``run_matches`` messages record them (:meth:`record_by_message`), sharing ``matches`` matches
        scheduled beforehand (after a warm-up): the path of matches sent together, with the play left out."""
        self.record_by_message(self.schedule(20))
        scheduled = self.schedule(matches)
        _analyze()
        shares = [scheduled[p::processes] for p in range(processes)]
        return matches / _timed_in_processes(_recorder, [(self.record_by_message, share) for share in shares],
                                             what="recorder")

    def bare_insert_per_s(self, *, matches: int) -> float:
        """Matches per second written as bare rows: the finished match, its seats with their results and
        packed logs, and their rating history, by multi-row INSERTs of :data:`BARE_BATCH` matches."""
        from ladder import packed_actions, seat_logs
        from ladder.core import database
        from ladder.models import Match, RatingChange, Seat

        now = database.db_datetime(timezone.now())
        match_columns = ("created_at", "updated_at", "game_id", "tournament_id", "index", "players", "seed",
                         "setup_id", "actions", "actions_packed", "status", "priority", "attempts",
                         "started_at", "finished_at", "duration_s", "worker", "failure_reason")
        seat_columns = ("match_id", "position", "bot_id", "bot_version_id", "score", "place", "outcome", "reason",
                        "time_used_ms", "logs", "rating_before", "rating_after")
        change_columns = ("seat_id", "match_id", "bot_id", "game_id", "before", "after", "delta", "created_at")
        setup = self.setup.id
        empty_actions = database.db_json(Match, "actions_json", [])
        elapsed = 0.0
        done = 0
        while done < matches:
            count = min(BARE_BATCH, matches - done)
            rows = []
            for i in range(count):
                result = self.result_for(done + i)
                rows.append((result, self.rng.sample(self.bots, self.players)))
            began = time.perf_counter()
            # What a recording prepares for its rows: the packed logs, the actions as the column stores them.
            match_rows, packed = [], []
            for i, (result, _bots) in enumerate(rows):
                match_rows.append((now, now, self.game.id, self.tournament.id, 10_000_000 + self.next_index + i,
                                   self.players, i, setup, empty_actions,
                                   packed_actions.pack(list(result.actions)), "finished", 5, 1,
                                   now, now, result.duration_s, "bench", ""))
                packed.append([seat_logs.pack(s.log, list(s.decisions)) for s in result.seats])
            with _commits_as_a_worker(), transaction.atomic(), connection.cursor() as cursor:
                match_ids = _insert_returning(cursor, Match, match_columns, match_rows)
                seat_rows = [(match_id, p, bot_id, self.versions[bot_id], seat.score, seat.place, seat.outcome,
                              seat.reason, seat.time_used_ms, packed[i][p], 1500.0, 1500.0)
                             for i, ((result, bot_ids), match_id) in enumerate(zip(rows, match_ids, strict=True))
                             for p, (seat, bot_id) in enumerate(zip(result.seats, bot_ids, strict=True))]
                seat_ids = _insert_returning(cursor, Seat, seat_columns, seat_rows)
                _insert_returning(cursor, RatingChange, change_columns, [
                    (seat_id, row[0], row[2], self.game.id, 1500.0, 1500.0, 0.0, now)
                    for seat_id, row in zip(seat_ids, seat_rows, strict=True)], returning=False)
            elapsed += time.perf_counter() - began
            self.next_index += count
            done += count
        return matches / elapsed


def _timed_in_processes(target, arguments: list[tuple], *, what: str) -> float:
    """Seconds ``target`` takes in one forked process per tuple of ``arguments``, all told to start at
    once after each said it is ready (``target(*args, start, ready)``)."""
    connections.close_all()
    context = multiprocessing.get_context("fork")
    start, ready = context.Event(), context.Queue()
    children = [context.Process(target=target, args=(*args, start, ready)) for args in arguments]
    for child in children:
        child.start()
    for _ in children:
        ready.get(timeout=60)
    began = time.perf_counter()
    start.set()
    for child in children:
        child.join()
    elapsed = time.perf_counter() - began
    if any(child.exitcode for child in children):
        raise RuntimeError(f"a {what} process failed")
    return elapsed


def _as_a_worker() -> None:
    """This process's new connections commit as a worker process's do (unless ``MATCH_SYNCHRONOUS_COMMIT``
    says otherwise): without waiting for the WAL flush (``database.commit_without_flush_wait``)."""
    from django.conf import settings
    from django.db.backends.signals import connection_created

    from ladder.core.database import commit_without_flush_wait

    if not settings.MATCH_SYNCHRONOUS_COMMIT:
        connection_created.connect(commit_without_flush_wait, weak=False)


@contextlib.contextmanager
def _commits_as_a_worker():
    """Inside, this connection's transactions commit as :func:`_as_a_worker`'s."""
    from django.conf import settings

    from ladder.core.database import transaction_without_flush_wait

    if settings.MATCH_SYNCHRONOUS_COMMIT:
        yield
        return
    connection.execute_wrappers.append(transaction_without_flush_wait)
    try:
        yield
    finally:
        connection.execute_wrappers.remove(transaction_without_flush_wait)


def _recorder(record, share: list[_Scheduled], start, ready) -> None:
    """A recorder process: its own connection, committing as a worker's does, told to start with the
    others; ``record`` (``RecordingField.record`` or ``record_by_message``) records its ``share``."""
    connections.close_all()
    _as_a_worker()
    connection.ensure_connection()
    ready.put(True)
    start.wait()
    record(share)
    connections.close_all()


def _group_producer(work: list, game: str, threads: int, start, ready) -> None:
    """A worker machine's processes in one: ``threads`` threads that each hand in results of ``work``
    (``recording.PackedResult``) through the group of ``game``, one after another."""
    import threading

    from ladder.services.play.result_group import group_for

    connections.close_all()
    _as_a_worker()
    group = group_for(game)
    failures = []

    def hand_in(share: list) -> None:
        try:
            for packed in share:
                if not group.record(packed).recorded:
                    failures.append(packed.match_id)
        finally:
            connections.close_all()

    workers = [threading.Thread(target=hand_in, args=(work[t::threads],)) for t in range(threads)]
    ready.put(True)
    start.wait()
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    if failures:
        raise SystemExit(f"{len(failures)} results were not recorded")


def _insert_returning(cursor, model, columns: tuple[str, ...], rows: list[tuple], *, returning: bool = True):
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(connection.ops.quote_name(c) for c in columns)
    one = f"({', '.join(['%s'] * len(columns))})"
    sql = f"INSERT INTO {table} ({names}) VALUES {', '.join([one] * len(rows))}"
    params = [value for row in rows for value in row]
    if not returning:
        cursor.execute(sql, params)
        return []
    cursor.execute(sql + " RETURNING id", params)
    return [row[0] for row in cursor.fetchall()]


def storage_per_match(field: RecordingField, *, matches: int, round_size: int = 50) -> tuple[int, int]:
    """Bytes on disk (:func:`table_bytes`) and WAL per match, over ``matches`` matches of ``field``
    scheduled ``round_size`` at a time (as the ladder's tick schedules them) and each claimed and
    recorded. Needs to run outside a transaction (VACUUM).

    What a match adds: first a warm-up round, so that every row of sums a match adds to (ratings, pair
    records, standings, head to head, tally) exists and every table has its first pages; then the
    tables are vacuumed after each round, as autovacuum keeps up with them (autovacuum itself is off
    meanwhile, so that the figure does not depend on when it comes), and the bytes are their growth
    over the measured matches. The WAL is what the claims and recordings write, checkpoints' full
    page images included (so it moves with the server's checkpoints)."""
    field.record(field.schedule(max(round_size, 2 * len(field.bots))))
    _vacuum()
    empty = table_bytes()
    wal = recorded = 0
    try:
        _autovacuum(recording_tables(), enabled=False)
        while recorded < matches:
            batch = field.schedule(min(round_size, matches - recorded))
            began = _wal_lsn()
            field.record(batch)
            wal += _wal_lsn() - began
            recorded += len(batch)
            _vacuum()
    finally:
        _autovacuum(recording_tables(), enabled=True)
    return round((table_bytes() - empty) / matches), round(wal / matches)


@contextlib.contextmanager
def statements_unprepared():
    """Inside, new connections prepare no statement (``prepare_threshold`` None, as behind a pooler in
    transaction mode), so ``database.statement_cursor`` falls back to Django's client-bound cursors: the
    same recording without prepared statements, for the side-by-side figure."""
    options = connection.settings_dict.setdefault("OPTIONS", {})
    before = options.get("prepare_threshold")
    connections.close_all()
    options["prepare_threshold"] = None
    try:
        yield
    finally:
        connections.close_all()
        options["prepare_threshold"] = before


def _autovacuum(tables: list[str], *, enabled: bool) -> None:
    with connection.cursor() as cursor:
        for table in tables:
            setting = "RESET (autovacuum_enabled)" if enabled else "SET (autovacuum_enabled = false)"
            cursor.execute(f"ALTER TABLE {connection.ops.quote_name(table)} {setting}")


def recording_statements(captured: list[dict]) -> tuple[list[str], list[str]]:
    """The statements of a recording in Django's log of the connection (``captured``), transaction
    control (COMMIT, and any explicit BEGIN, SAVEPOINT, RELEASE or ROLLBACK) left out, split in two: those
    of the transaction that records the result (up to its first COMMIT, or inside an enclosing transaction
    the release of its savepoint), and those sent after it (a rated
    match's rating applier, ``rating_applier.ratings_apply_after_recording``)."""
    control = ("COMMIT", "BEGIN", "ROLLBACK", "SAVEPOINT", "RELEASE")
    recording, after, committed, outermost = [], [], False, None
    for query in captured:
        sql = (query["sql"] or "").strip()  # no text: a prepared statement run again (database.statement_cursor)
        words = sql.upper().split()
        if words[:1] == ["SAVEPOINT"] and outermost is None:
            outermost = words[1]  # the recording's transaction inside an enclosing one (tests)
        if words[:1] == ["COMMIT"] or (outermost is not None and words[:2] == ["RELEASE", "SAVEPOINT"]
                                        and words[2] == outermost):
            committed = True
        if sql.upper().startswith(control):
            continue
        (after if committed else recording).append(sql)
    return recording, after


def recording_tables() -> list[str]:
    """The tables a recording writes: first those that grow with every match, then the sums."""
    from ladder.models import (
        Match,
        PairRecord,
        Rating,
        RatingChange,
        Seat,
        TournamentHeadToHead,
        TournamentStanding,
        TournamentTally,
    )

    return [model._meta.db_table for model in (Match, Seat, RatingChange, Rating, PairRecord, TournamentStanding,
                                                TournamentHeadToHead, TournamentTally)]


def table_bytes() -> int:
    """``pg_total_relation_size`` (heap, indexes, TOAST) summed over :func:`recording_tables`."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT SUM(pg_total_relation_size(name::regclass)) FROM unnest(%s::text[]) name",
                       [recording_tables()])
        return int(cursor.fetchone()[0])


def _vacuum(tables: list[str] | None = None) -> None:
    with connection.cursor() as cursor:
        for table in recording_tables() if tables is None else tables:
            cursor.execute(f"VACUUM {connection.ops.quote_name(table)}")


def _analyze() -> None:
    """Statistics for the scratch tables as a running deployment's autovacuum keeps them: the figures
    measure the recording's plans for tables of the size they have, not the planner's guesses for tables
    never analysed (which autovacuum would otherwise analyse at some moment in the middle of a run)."""
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")


def _wal_lsn() -> int:
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_current_wal_lsn() - '0/0'::pg_lsn")
        return int(cursor.fetchone()[0])


def _rows_written() -> int:
    """Rows inserted and updated in the recording tables so far, by the server's statistics (flushed
    first, so that they include this session's last transaction)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute("SELECT 1")
        cursor.execute("SELECT COALESCE(SUM(n_tup_ins + n_tup_upd), 0) FROM pg_stat_user_tables "
                       "WHERE relname = ANY(%s)", [recording_tables()])
        return int(cursor.fetchone()[0])
