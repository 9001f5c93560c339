"""Ratings applied online by the game's one applier (``ladder.services.ratings.rating_applier``): once per
match, in order, the exact sequential Elo, with no per-bot lock in the recording; a recording that takes the
game's applier lock applies its results itself, behind those pending, and the applier picks up what is
left."""

import random
import threading

import pytest
from django.db import connection
from django.utils import timezone

from bots.referee import MatchResult, SeatResult
from ladder.models import Match, PendingRating, Rating, RatingChange, Seat
from ladder.ratings.elo import BotRating, RatedSeat, rate_match, seat_record
from ladder.services.play.matches import match_claim, match_record_result, matches_reconcile
from ladder.services.ratings import rating_sql
from ladder.services.ratings.rating_applier import k_factors, ratings_apply_pending
from ladder.services.ratings.rating_rebuild import ratings_rebuild
from ladder.services.tournaments.round_robins import tournament_create
from tests.held_elsewhere import held_meanwhile

pytestmark = pytest.mark.django_db


def play_all(tournament, rng):
    for match in tournament.matches.order_by("?"):
        claim = match_claim(match_id=match.id)
        places = [rng.randint(1, claim.players) for _ in claim.seats]
        outcomes = ["ok" if rng.random() > 0.1 else "crash" for _ in claim.seats]
        result = MatchResult(
            game=claim.game, players=claim.players, seed=claim.seed, options=claim.options, actions=[],
            seats=[SeatResult(bot=s.bot_name, score=0, place=p, outcome=o, reason="", time_used_ms=1, log="")
                   for s, p, o in zip(claim.seats, places, outcomes)],
            duration_s=0.1,
        )
        assert match_record_result(match_id=match.id, token=claim.token, result=result)


def test_two_player_elo_is_conserved_with_equal_k(bot_factory, settings):
    settings.RATING_PROVISIONAL_K = settings.RATING_K
    bots = [bot_factory() for _ in range(4)]
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="t", rated=True,
                                   bot_ids=[b.id for b in bots], players_per_match=2, games_per_pairing=2)
    play_all(tournament, random.Random(7))
    assert sum(Rating.objects.values_list("elo", flat=True)) == pytest.approx(1500.0 * 4)


@pytest.mark.parametrize(
    "place,places,forfeited,expected",
    [(1, [1, 2], False, "win"), (1, [1, 1], False, "draw"), (2, [1, 2], False, "loss"), (1, [1, 2], True, "loss"),
     (1, [1, 1, 3], False, "draw")],
)
def test_seat_record(place, places, forfeited, expected):
    assert seat_record(place=place, places=places, forfeited=forfeited) == expected


def test_a_rating_row_deleted_by_hand_is_recreated_when_a_result_is_recorded(bot_factory):
    bots = [bot_factory() for _ in range(2)]
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="t", rated=True,
                                   bot_ids=[b.id for b in bots], players_per_match=2, games_per_pairing=1)
    Rating.objects.filter(bot=bots[0]).delete()
    play_all(tournament, random.Random(1))
    rows = {r.bot_id: r for r in Rating.objects.filter(bot__in=bots)}
    assert set(rows) == {bots[0].id, bots[1].id}
    assert rows[bots[0].id].games == rows[bots[1].id].games == 1
    assert RatingChange.objects.filter(bot=bots[0]).count() == 1


def claimed_results(tournament, rng, count: int | None = None) -> list[tuple]:
    """Every match of ``tournament`` (its first ``count``) claimed, with a random result: ``(match id,
    token, result)``."""
    out = []
    for match in tournament.matches.order_by("id")[:count]:
        claim = match_claim(match_id=match.id)
        places = [rng.randint(1, claim.players) for _ in claim.seats]
        outcomes = ["ok" if rng.random() > 0.1 else "crash" for _ in claim.seats]
        out.append((match.id, claim.token, MatchResult(
            game=claim.game, players=claim.players, seed=claim.seed, options=claim.options, actions=[],
            seats=[SeatResult(bot=s.bot_name, score=0, place=p, outcome=o, reason="", time_used_ms=1, log="")
                   for s, p, o in zip(claim.seats, places, outcomes)],
            duration_s=0.1)))
    return out


def assert_history_is_one_sequential_chain(game_id: int) -> None:
    """Every bot's history is unbroken (each change starts where the last ended, from 1500, and ends at
    its rating), the seats carry their changes, and the whole history equals the one Elo step replayed
    over the matches in the order of their history rows: the sequential Elo, exactly."""
    changes = list(RatingChange.objects.filter(game_id=game_id).order_by("id")
                   .values_list("match_id", "seat_id", "bot_id", "before", "after", "delta"))
    last: dict[int, float] = {}
    for _match, _seat, bot_id, before, after, delta in changes:
        assert before == last.get(bot_id, 1500.0)
        assert after == before + delta
        last[bot_id] = after
    ratings = {r.bot_id: r for r in Rating.objects.filter(game_id=game_id)}
    for bot_id, elo in last.items():
        assert ratings[bot_id].elo == elo
        assert ratings[bot_id].games == sum(1 for c in changes if c[2] == bot_id)
    seats = {s.id: s for s in Seat.objects.filter(id__in=[c[1] for c in changes])}
    assert all((seats[c[1]].rating_before, seats[c[1]].rating_after) == (c[3], c[4]) for c in changes)
    order = list(dict.fromkeys(c[0] for c in changes))
    replay: dict[int, BotRating] = {bot_id: BotRating() for bot_id in ratings}
    expected = []
    for match_id in order:
        seated = list(Seat.objects.filter(match_id=match_id).order_by("position"))
        steps = rate_match(replay, [RatedSeat(s.bot_id, s.place, Seat.outcome_forfeits(s.outcome)) for s in seated],
                           k_factors())
        expected += [(match_id, s.id, s.bot_id, *step) for s, step in zip(seated, steps, strict=True)]
    assert changes == expected
    assert {bot_id: (r.elo, r.games, r.wins, r.draws, r.losses) for bot_id, r in ratings.items()} == {
        bot_id: (r.elo, r.games, r.wins, r.draws, r.losses) for bot_id, r in replay.items()}


def apply_lock_held(game_id: int):
    """For a ``with`` block: another connection holds the game's applier lock (an applier busy elsewhere)
    and lets go when the block ends."""
    def take():
        with connection.cursor() as cursor:
            cursor.execute("SELECT pg_advisory_xact_lock(%s, %s)", [rating_sql.APPLY_LOCK, game_id])

    return held_meanwhile(take)


def rated_round_robin(bot_factory, bots=6, players=2, games=2):
    entrants = [bot_factory() for _ in range(bots)]
    return tournament_create(created_by=None, game_slug="kingdomino", name="t", rated=True,
                             bot_ids=[b.id for b in entrants], players_per_match=players, games_per_pairing=games)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("players", [2, 3])
def test_results_recorded_at_once_by_many_workers_keep_the_exact_sequential_elo(bot_factory, settings, players):
    """Four workers record rated results that share bots at once (and a rebuild runs among them): every
    result is applied exactly once, every bot's chain of rating_before/rating_after is unbroken, and the
    ratings equal the sequential Elo replayed in the order the results were applied."""
    settings.RATING_PROVISIONAL_GAMES = 3
    settings.RATING_APPLY_BATCH = 4
    tournament = rated_round_robin(bot_factory, bots=6, players=players, games=2)
    work = claimed_results(tournament, random.Random(players))
    errors = []

    def worker(share):
        try:
            for match_id, token, result in share:
                assert match_record_result(match_id=match_id, token=token, result=result)
        except Exception as exc:  # reported below: an assertion in a thread would be lost
            errors.append(exc)
        finally:
            connection.close()

    def rebuilder():
        try:
            for _ in range(3):
                ratings_rebuild(game_slug="kingdomino")
        except Exception as exc:
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=worker, args=(work[i::4],)) for i in range(4)]
    threads.append(threading.Thread(target=rebuilder))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(120)
    assert errors == []
    assert not PendingRating.objects.exists()
    assert RatingChange.objects.values("match_id").distinct().count() == len(work)
    assert RatingChange.objects.count() == players * len(work)
    assert_history_is_one_sequential_chain(tournament.game_id)


@pytest.mark.django_db(transaction=True)
def test_a_recording_takes_no_rating_lock_and_leaves_its_result_to_the_applier_holding_the_game(bot_factory):
    """The rating rows locked elsewhere and the game's applier busy: a rated result is still recorded at
    once (no wait: a lock timeout would fail it), pending; the next applier applies it."""
    tournament = rated_round_robin(bot_factory, bots=2, games=1)
    (match_id, token, result), = claimed_results(tournament, random.Random(1))
    with apply_lock_held(tournament.game_id), held_meanwhile(
            lambda: list(Rating.objects.select_for_update().filter(game_id=tournament.game_id))):
        try:
            with connection.cursor() as cursor:
                cursor.execute("SET lock_timeout = '2s'")
            assert match_record_result(match_id=match_id, token=token, result=result)
            assert Match.objects.get(id=match_id).status == "finished"
            assert list(PendingRating.objects.values_list("match_id", flat=True)) == [match_id]
            assert not RatingChange.objects.exists()
        finally:
            with connection.cursor() as cursor:
                cursor.execute("SET lock_timeout = 0")
    assert ratings_apply_pending(game_id=tournament.game_id) == 1
    assert not PendingRating.objects.exists()
    assert_history_is_one_sequential_chain(tournament.game_id)


@pytest.mark.django_db(transaction=True)
def test_the_reconciler_applies_results_a_dead_worker_left_pending(bot_factory):
    tournament = rated_round_robin(bot_factory, bots=3, games=1)
    work = claimed_results(tournament, random.Random(2))
    with apply_lock_held(tournament.game_id):  # the holder "dies" without applying them
        for match_id, token, result in work:
            assert match_record_result(match_id=match_id, token=token, result=result)
    assert PendingRating.objects.count() == len(work)
    matches_reconcile()
    assert not PendingRating.objects.exists()
    assert RatingChange.objects.count() == 2 * len(work)
    assert_history_is_one_sequential_chain(tournament.game_id)


def test_single_threaded_callers_see_the_ratings_applied_when_the_recording_returns(bot_factory):
    tournament = rated_round_robin(bot_factory, bots=3, games=1)
    for match_id, token, result in claimed_results(tournament, random.Random(4)):
        assert match_record_result(match_id=match_id, token=token, result=result)
        assert not PendingRating.objects.exists()
        assert RatingChange.objects.filter(match_id=match_id).count() == 2
    assert_history_is_one_sequential_chain(tournament.game_id)


@pytest.fixture
def statistics_forgotten():
    """Forget, after the test, the table statistics an ANALYZE inside it wrote: ANALYZE updates a table's
    size in ``pg_class`` in place, so the test's rollback keeps it, and the tests after it would plan
    their joins for tables of a few rows (a head-to-head read of a 10,000-match history then ran for
    minutes). Done on a connection of its own, outside the test's transaction."""
    yield
    raw = connection.get_new_connection(connection.get_connection_params())
    try:
        raw.autocommit = True
        with raw.cursor() as cursor:
            tables = [model._meta.db_table for model in (Seat, Match, Rating, PendingRating)]
            cursor.execute("UPDATE pg_class SET reltuples = -1, relpages = 0, relallvisible = 0 "
                           "WHERE oid = ANY(%s::regclass[])", [tables])
    finally:
        raw.close()


@pytest.mark.usefixtures("statistics_forgotten")
@pytest.mark.parametrize("stale", [False, pytest.param(True, marks=pytest.mark.xfail(
    strict=True, reason="known: with statistics taken while the tables were empty, the generic plan of the batch's "
                        "read (prepared statements, force_generic_plan) reads every seat"))],
    ids=["unanalyzed", "analyzed-when-empty"])
def test_the_applier_reads_the_seats_of_its_batch_and_not_every_seat_of_their_bots(stale):
    """Twenty bots with a long history (3,000 finished matches, applied long ago) and one match pending:
    the applier's reads fetch that match's seats, whatever the tables' statistics say (here none were
    taken since the history was written, as when the tables grow faster than autovacuum analyzes them):
    read from the pending rows to their seats, never from the bots to all their seats (the rows read grew
    with every match the bots had played, and made the applier the recording's slowest part)."""
    from tests.factories import BotFactory, MatchFactory, RatedTournamentFactory, SeatFactory

    first = BotFactory()
    bots = [first] + [BotFactory(game=first.game) for _ in range(19)]
    tournament = RatedTournamentFactory(game=first.game, bots=bots)
    pending = MatchFactory(tournament=tournament, players=2)
    now = timezone.now()
    if stale:
        # Statistics taken while the tables were empty, as an analyze early in a ladder's life leaves them.
        with connection.cursor() as cursor:
            for model in (Seat, Match, Rating, PendingRating):
                cursor.execute(f"ANALYZE {model._meta.db_table}")
    history = Match.objects.bulk_create([
        Match(game=first.game, tournament=tournament, index=1000 + i, players=2, seed=i,
              rules_version=pending.rules_version, status="finished", started_at=now, finished_at=now)
        for i in range(3000)])
    rng = random.Random(5)
    versions = {bot.id: bot.versions.first() for bot in bots}
    Seat.objects.bulk_create([Seat(match=match, position=p, bot=bot, bot_version=versions[bot.id], place=p + 1,
                                   outcome="ok") for match in history for p, bot in enumerate(rng.sample(bots, 2))])
    for position, bot in enumerate(bots[:2]):
        SeatFactory(match=pending, position=position, bot=bot, place=position + 1, outcome="ok")
    with connection.cursor() as cursor:
        cursor.execute(rating_sql.pending_insert_sql(), [pending.id, first.game_id, first.game_id])

    def seat_rows_read() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT COALESCE(seq_tup_read, 0) + COALESCE(idx_tup_fetch, 0) "
                           "FROM pg_stat_xact_user_tables WHERE relname = %s", [Seat._meta.db_table])
            return cursor.fetchone()[0]

    before = seat_rows_read()
    assert ratings_apply_pending(game_id=first.game_id) == 1
    assert seat_rows_read() - before <= 8  # the batch's two seats read, then updated by id
    assert set(RatingChange.objects.values_list("match_id", flat=True)) == {pending.id}


@pytest.mark.django_db(transaction=True)
def test_a_recording_with_nothing_pending_applies_its_own_ratings_and_marks_nothing_pending(bot_factory):
    """The game's applier free and nothing pending: the recording takes the applier's lock and applies
    the match to the ratings in its own transaction; no pending mark is written, or read back later."""
    tournament = rated_round_robin(bot_factory, bots=3, games=1)
    work = claimed_results(tournament, random.Random(6))

    def pending_rows_inserted() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = %s",
                           [PendingRating._meta.db_table])
            return cursor.fetchone()[0]

    before = pending_rows_inserted()
    for match_id, token, result in work:
        assert match_record_result(match_id=match_id, token=token, result=result)
        assert RatingChange.objects.filter(match_id=match_id).count() == 2
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")
    assert pending_rows_inserted() == before
    assert_history_is_one_sequential_chain(tournament.game_id)


@pytest.mark.django_db(transaction=True)
def test_a_recording_queues_behind_results_already_pending_and_they_are_applied_in_order(bot_factory):
    """A result left pending (its applier busy when it was recorded): the next recording does not apply
    its own match ahead of it but marks it pending behind it, and its applier applies both, in order."""
    tournament = rated_round_robin(bot_factory, bots=3, games=1)
    (first_id, first_token, first), (second_id, second_token, second), *_ = claimed_results(
        tournament, random.Random(7))
    with apply_lock_held(tournament.game_id):
        assert match_record_result(match_id=first_id, token=first_token, result=first)
    assert list(PendingRating.objects.values_list("match_id", flat=True)) == [first_id]
    assert match_record_result(match_id=second_id, token=second_token, result=second)
    assert not PendingRating.objects.exists()
    order = list(dict.fromkeys(RatingChange.objects.order_by("id").values_list("match_id", flat=True)))
    assert order == [first_id, second_id]
    assert_history_is_one_sequential_chain(tournament.game_id)


def pending_rows_inserted() -> int:
    """Rows ever inserted into the pending table, by the server's statistics (flushed first)."""
    with connection.cursor() as cursor:
        cursor.execute("SELECT pg_stat_force_next_flush()")
        cursor.execute("SELECT n_tup_ins FROM pg_stat_user_tables WHERE relname = %s", [PendingRating._meta.db_table])
        return cursor.fetchone()[0]


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize(("batch", "marked"), [(None, 0), (2, 1)], ids=["within-a-batch", "more-than-a-batch"])
def test_a_recording_that_takes_the_applier_lock_applies_the_results_pending_before_its_own(
        bot_factory, settings, batch, marked):
    """Three results left pending (their applier busy when they were recorded), then a recording that
    takes the game's applier lock: it applies them, in their order, and then its own match, in its own
    transaction, its match never marked pending. With more pending than the applier takes in one batch
    it leaves them to the applier and marks its own match pending behind them. Either way nothing is
    pending once it returns, and the history is in order."""
    if batch is not None:
        settings.RATING_APPLY_BATCH = batch
    tournament = rated_round_robin(bot_factory, bots=4, games=1)
    work = claimed_results(tournament, random.Random(8))
    left, (last_id, last_token, last) = work[:3], work[3]
    with apply_lock_held(tournament.game_id):
        for match_id, token, result in left:
            assert match_record_result(match_id=match_id, token=token, result=result)
    assert list(PendingRating.objects.order_by("id").values_list("match_id", flat=True)) == [m for m, _t, _r in left]
    before = pending_rows_inserted()
    assert match_record_result(match_id=last_id, token=last_token, result=last)
    assert pending_rows_inserted() == before + marked
    assert not PendingRating.objects.exists()
    order = list(dict.fromkeys(RatingChange.objects.order_by("id").values_list("match_id", flat=True)))
    assert order == [*(m for m, _t, _r in left), last_id]
    assert_history_is_one_sequential_chain(tournament.game_id)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("claimed", [2, None], ids=["queued-left", "all-claimed"])
def test_a_result_left_pending_while_a_recording_held_the_applier_lock_is_applied_once_it_commits(
        bot_factory, monkeypatch, claimed):
    """A recording holds the game's applier lock; meanwhile another recorder, finding it taken, commits its
    result pending and gives up (its own try after its commit finds the lock still held). The holder,
    once committed, looks for such results and applies them: nothing is left pending, in order. Either
    with the COMMIT, which goes with the writes (matches of the round robin left queued), or in a read
    of its own (every match claimed: the last one's recording looks whether the round robin is done
    before it commits)."""
    from ladder.services.play import recording

    tournament = rated_round_robin(bot_factory, bots=4, games=1)
    (holder_id, holder_token, holder), (other_id, other_token, other), *_ = claimed_results(
        tournament, random.Random(11), count=claimed)
    write = recording._write
    errors = []

    def other_recorder():
        try:
            assert match_record_result(match_id=other_id, token=other_token, result=other)
        except Exception as exc:  # reported below: an assertion in a thread would be lost
            errors.append(exc)
        finally:
            connection.close()

    def write_while_another_records(batch, *, now):
        if any(match.result.match_id == holder_id for match in batch.matches):
            assert batch.held_games == {tournament.game_id}
            thread = threading.Thread(target=other_recorder)
            thread.start()
            thread.join(30)
            assert list(PendingRating.objects.values_list("match_id", flat=True)) == [other_id]
        return write(batch, now=now)

    monkeypatch.setattr(recording, "_write", write_while_another_records)
    assert match_record_result(match_id=holder_id, token=holder_token, result=holder)
    assert errors == []
    assert not PendingRating.objects.exists()
    order = list(dict.fromkeys(RatingChange.objects.order_by("id").values_list("match_id", flat=True)))
    assert order == [holder_id, other_id]
    assert_history_is_one_sequential_chain(tournament.game_id)


@pytest.mark.django_db(transaction=True)
def test_a_pending_result_whose_rating_row_was_deleted_by_hand_goes_through_the_applier(bot_factory):
    """A pending result seating a bot whose rating row was deleted by hand: the recording that takes the
    lock leaves it, and its own match behind it, to the applier, which recreates the row; all applied in
    order."""
    tournament = rated_round_robin(bot_factory, bots=4, games=1)
    work = claimed_results(tournament, random.Random(10))
    (first_id, first_token, first), (last_id, last_token, last) = work[0], work[1]
    with apply_lock_held(tournament.game_id):
        assert match_record_result(match_id=first_id, token=first_token, result=first)
    gone = Seat.objects.filter(match_id=first_id).order_by("position").first().bot_id
    Rating.objects.filter(bot_id=gone).delete()
    assert match_record_result(match_id=last_id, token=last_token, result=last)
    assert not PendingRating.objects.exists()
    assert Rating.objects.filter(bot_id=gone).exists()
    order = list(dict.fromkeys(RatingChange.objects.order_by("id").values_list("match_id", flat=True)))
    assert order == [first_id, last_id]
