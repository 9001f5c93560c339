"""The workers' group commit (``ladder.services.play.result_group``) against the real Redis and PostgreSQL:
results handed in at once are recorded together, each once, and none is lost when the group's parts fail."""

from __future__ import annotations

import threading
import time
import uuid

import pytest
import redis
from django.conf import settings
from django.db import connections

from bots.match_result import MatchResult, SeatResult
from ladder.models import Match, Seat
from ladder.services.play import result_group
from ladder.services.play.matches import match_claim
from ladder.services.play.recording import result_pack
from ladder.services.play.result_group import Recorded, ResultGroup, entry_decode, entry_encode
from tests.factories import BotFactory, MatchFactory, SeatFactory, TournamentFactory

pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def client():
    """The broker's Redis, where the group lives (the tests that use it are marked ``redis``)."""
    return redis.Redis.from_url(settings.CELERY_BROKER_URL)


@pytest.fixture
def group(client):
    """A group of its own (a game name no other test uses), emptied afterwards."""
    made = ResultGroup(client, f"test-{uuid.uuid4().hex[:8]}")
    yield made
    client.delete(made.entries, made.lock_key)


def claimed_results(count: int, players: int = 2) -> list:
    bots = [BotFactory() for _ in range(max(players, 3))]
    tournament = TournamentFactory(bots=bots)
    packed = []
    for i in range(count):
        match = MatchFactory(tournament=tournament, players=players)
        seated = [bots[(i + k) % len(bots)] for k in range(players)]
        for position, bot in enumerate(seated):
            SeatFactory(match=match, position=position, bot=bot)
        claim = match_claim(match_id=match.pk, worker="tests")
        result = MatchResult(
            game=match.game.slug, players=players, seed=match.seed, options=match.options, actions=[],
            seats=[SeatResult(bot=bot.name, score=5 - p, place=p + 1, outcome="ok", reason="", time_used_ms=2,
                              log=f"match {i} seat {p}") for p, bot in enumerate(seated)],
            duration_s=0.5)
        packed.append(result_pack(match_id=match.pk, token=claim.token, result=result))
    return packed


def in_threads(group, results) -> list[Recorded]:
    """Hand every result to the group at once, from a thread each (a worker process each, in production)."""
    outcomes: list = [None] * len(results)
    start = threading.Barrier(len(results))

    def hand_in(i: int) -> None:
        try:
            start.wait()
            outcomes[i] = group.record(results[i])
        finally:
            connections.close_all()

    threads = [threading.Thread(target=hand_in, args=(i,)) for i in range(len(results))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(60)
    return outcomes


#: What a new connection sends before any command of ours (the database it uses, who it is).
_GREETINGS = (b"SELECT", b"CLIENT", b"HELLO")


def count_sends(monkeypatch, thread: list | None = None) -> list:
    """What this process sends to Redis from now on, a connection's greeting left out: a pipeline is one
    send, a command another. With ``thread``, each send's thread is appended to it."""
    sends = []
    real_send = redis.connection.AbstractConnection.send_packed_command

    def counted(connection, command, *args, **kwargs):
        if not any(part.split(b"\r\n")[2] in _GREETINGS for part in command[:1]):
            sends.append(command)
            if thread is not None:
                thread.append(threading.get_ident())
        return real_send(connection, command, *args, **kwargs)

    monkeypatch.setattr(redis.connection.AbstractConnection, "send_packed_command", counted)
    return sends


@pytest.mark.redis
def test_a_result_handed_in_to_an_empty_group_is_recorded_by_its_worker_in_two_round_trips(group, monkeypatch):
    """Nobody else waiting: the worker takes the lock as it finds the group empty (one round trip),
    records its own result, and looks once more at the group as it lets the lock go (one more), where
    going through the list step by step took nine (push, lock, take, answer, renew, take again, release,
    look, take the answer)."""
    result, = claimed_results(1)
    group.load_scripts()  # the connection made, and the scripts held by Redis, before counting
    sends = count_sends(monkeypatch)
    assert group.record(result) == Recorded(True, 1)
    monkeypatch.undo()
    assert len(sends) <= 2, sends
    assert Match.objects.get(pk=result.match_id).status == "finished"
    assert group.client.llen(group.entries) == 0 and group.client.get(group.lock_key) is None


@pytest.mark.redis
def test_a_worker_whose_own_result_is_recorded_says_so_even_if_the_broker_goes_away_after(group, monkeypatch):
    result, = claimed_results(1)
    from ladder.services.play import result_group as module

    real = module.results_record

    def record_then_the_broker_goes(results):
        outcome = real(results)
        monkeypatch.setattr(group, "_run", lambda *args: (_ for _ in ()).throw(redis.ConnectionError("gone")))
        return outcome

    monkeypatch.setattr(module, "results_record", record_then_the_broker_goes)
    assert group.record(result) == Recorded(True, 1)
    assert Match.objects.get(pk=result.match_id).status == "finished"


@pytest.mark.redis
def test_results_pushed_while_a_worker_records_its_own_are_recorded_by_it_after(group, client, monkeypatch):
    """Another worker's result arrives while this one records its own without the list: it waits on its
    answer, and the worker that held the lock records it after letting the lock go."""
    mine, theirs = claimed_results(2)
    from ladder.services.play import result_group as module

    real = module.results_record
    outcomes: list = []

    def record_and_meanwhile_another_arrives(results):
        if not outcomes:
            thread = threading.Thread(target=lambda: outcomes.append(ResultGroup(client, group.game).record(theirs)))
            thread.start()
            deadline = time.monotonic() + 10
            while client.llen(group.entries) == 0 and time.monotonic() < deadline:
                time.sleep(0.005)
            outcomes.append(thread)
        return real(results)

    monkeypatch.setattr(module, "results_record", record_and_meanwhile_another_arrives)
    began = time.monotonic()
    assert group.record(mine) == Recorded(True, 1)
    outcomes[0].join(10)
    assert outcomes[1:] == [Recorded(True, 1)]
    assert time.monotonic() - began < result_group.LOCK_CHECK_S  # answered, not found after a time-out
    assert set(Match.objects.filter(pk__in=[mine.match_id, theirs.match_id]).values_list("status", flat=True)) == {
        "finished"}


@pytest.mark.redis
def test_results_handed_in_at_once_are_recorded_once_each_in_shared_transactions(group):
    results = claimed_results(24)
    outcomes = in_threads(group, results)
    assert all(outcome.recorded for outcome in outcomes)
    assert max(outcome.batch for outcome in outcomes) > 1  # some were recorded together
    assert Match.objects.filter(pk__in=[r.match_id for r in results], status="finished").count() == 24
    logs = dict(Seat.objects.filter(match__in=[r.match_id for r in results], position=0).values_list("match_id", "logs"))
    assert all(bytes(logs[r.match_id]) == r.seats[0].logs for r in results)
    # Handed in again (a redelivered task): refused, changing nothing.
    assert group.record(results[0]) == Recorded(False, 1)


@pytest.mark.redis
def test_one_result_that_does_not_fit_its_match_costs_only_itself(group):
    good, bad = claimed_results(2)
    three = claimed_results(1, players=3)[0]
    wrong = result_pack(match_id=bad.match_id, token=bad.token, result=MatchResult(
        game="kingdomino", players=3, seed=1, options={}, actions=[], duration_s=0.1,
        seats=[SeatResult(bot="x", score=0, place=1, outcome="ok", reason="", time_used_ms=1, log="")] * 3))
    group.client.rpush(group.entries, entry_encode(wrong), entry_encode(three))
    assert group.record(good).recorded
    assert Match.objects.get(pk=good.match_id).status == "finished"
    assert Match.objects.get(pk=three.match_id).status == "finished"
    assert Match.objects.get(pk=bad.match_id).status == "running"  # left to its lease, nothing half-written


@pytest.mark.redis
def test_results_handed_in_while_a_recorder_works_cost_their_workers_two_round_trips(group, client, monkeypatch):
    """A busy group: the worker hands its result in (one round trip, which tells it to wait) and waits on
    its answer (one more); the recorder answers each batch as it takes the next, and lets the lock go as
    it finds the group empty, one round trip a batch."""
    waiting, recorded_meanwhile = claimed_results(2)
    group.load_scripts()
    other = ResultGroup(redis.Redis.from_url(settings.CELERY_BROKER_URL), group.game)
    other.load_scripts()
    client.set(group.lock_key, "another recorder", px=60_000)
    # The waiter waits on its answer without looking at the lock again, however slow the machine.
    monkeypatch.setattr(result_group, "LOCK_CHECK_S", 60.0)
    threads: list = []
    sends = count_sends(monkeypatch, threads)
    outcome: list = []
    waiter = threading.Thread(target=lambda: outcome.append(group.record(waiting)))
    waiter.start()
    deadline = time.monotonic() + 10
    while client.llen(group.entries) == 0 and time.monotonic() < deadline:
        time.sleep(0.005)
    # The other recorder's turn (a group of its own, as another process has), with a result of its own.
    client.delete(group.lock_key)
    before = len(sends)
    assert other.record(recorded_meanwhile).recorded
    recorder_sends = threads[before:].count(threading.get_ident())
    waiter.join(10)
    monkeypatch.undo()
    assert outcome == [Recorded(True, 2)]
    # The waiter: its hand-in and its wait. The recorder: its hand-in (it leads), the batch taken with
    # the lock renewed, the batch answered as the group is found empty and the lock let go.
    assert threads.count(waiter.ident) <= 2, sends
    assert recorder_sends <= 3, sends[before:]
    assert client.get(group.lock_key) is None and client.llen(group.entries) == 0


@pytest.mark.redis
def test_a_result_lost_with_a_flushed_group_is_recorded_by_its_worker_at_once(group, monkeypatch):
    result = claimed_results(1)[0]
    # Another recorder holds the lock while the broker loses the group's entries; it then dies.
    group.client.set(group.lock_key, "a recorder that died", px=300)
    real_run = group._run

    def hand_in_then_flushed(script, keys, args):
        answer = real_run(script, keys, args)
        if script is result_group._ENTER:
            group.client.delete(group.entries)
        return answer

    monkeypatch.setattr(group, "_run", hand_in_then_flushed)
    began = time.monotonic()
    assert group.record(result) == Recorded(True, 1)
    assert time.monotonic() - began < 3
    assert Match.objects.get(pk=result.match_id).status == "finished"


@pytest.mark.redis
def test_a_waiter_whose_answer_never_comes_records_its_result_itself(group, settings):
    settings.RESULTS_GROUP_WAIT_S = 0.5
    result = claimed_results(1)[0]
    group.client.set(group.lock_key, "a recorder that hangs", px=60_000)
    began = time.monotonic()
    assert group.record(result).recorded
    assert 0.5 <= time.monotonic() - began < 5
    # The entry it left behind is refused by its token when the group is drained later.
    group.client.delete(group.lock_key)
    assert group.record(claimed_results(1)[0]).recorded
    assert group.client.llen(group.entries) == 0


@pytest.mark.redis
def test_an_entry_that_is_not_ours_is_dropped_and_the_group_goes_on(group, caplog):
    result = claimed_results(1)[0]
    group.client.rpush(group.entries, b"\x80not json", b'{"m": "1; DROP TABLE", "t": 1}', b"[]")
    assert group.record(result).recorded
    assert caplog.text.count("dropped an unreadable entry") == 3


@pytest.mark.parametrize("entry", [
    b"", b"null", b'{"m": true, "t": "x", "a": "", "d": 0, "s": []}',
    b'{"m": 1, "t": "not a uuid", "a": "", "d": 0, "s": []}',
    b'{"m": 1, "t": "00000000-0000-0000-0000-000000000001", "a": "!!", "d": 0, "s": []}',
    b'{"m": 1, "t": "00000000-0000-0000-0000-000000000001", "a": "", "d": 0, "s": [[1, 1, 2, "", 1, ""]]}',
    b'{"m": 1, "t": "00000000-0000-0000-0000-000000000001", "a": "", "d": "1", "s": []}',
])
def test_entries_are_read_field_by_field_and_anything_else_is_refused(entry):
    with pytest.raises(ValueError, match="not a result entry"):
        entry_decode(entry)


def test_an_entry_reads_back_as_the_result_it_was():
    result = claimed_results(1, players=3)[0]
    assert entry_decode(entry_encode(result)) == result


def test_without_a_redis_broker_results_are_recorded_directly(settings):
    settings.CELERY_BROKER_URL = "filesystem://localhost/"
    result = claimed_results(1)[0]
    assert result_group.result_record(game="kingdomino", result=result) == Recorded(True, 1)


def test_a_broker_that_cannot_be_reached_leaves_the_worker_to_record_its_result(settings, monkeypatch):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:1/0"  # nothing listens there
    monkeypatch.setattr(result_group, "_groups", {})
    result = claimed_results(1)[0]
    assert result_group.result_record(game="kingdomino", result=result) == Recorded(True, 1)
    assert Match.objects.get(pk=result.match_id).status == "finished"
