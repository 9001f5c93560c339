"""``ladder.messaging.enqueue`` against the configured broker (Redis in CI) on queues of each test alone:
one message per id on the right queue (the ladder's own for ladder matches), sent only once the
transaction commits and never for nothing, the rows marked sent; what the broker holds counted and (on
Redis) listed by match; a broker that refuses logged, never raised; and the messages of other tasks or
of no known form announcing no match."""

from __future__ import annotations

import base64
import json
import logging
import uuid

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from ladder.messaging import enqueue
from ladder.messaging.enqueue import (
    RUN_MATCH_TASK,
    RUN_MATCHES_TASK,
    broker_match_messages,
    broker_queue_length,
    broker_queue_purge,
    broker_waiting_match_ids,
    match_message_sizes,
    match_queue,
    match_queues,
    matches_enqueue_on_commit,
    matches_send_now,
    versions_validate_now,
    versions_validate_on_commit,
    webhook_deliveries_send_now,
)
from ladder.models import BotVersion, Match
from tests.factories import BotFactory, BotVersionFactory, MatchFactory

pytestmark = pytest.mark.django_db


def on_redis() -> bool:
    from kombu.transport import redis as kombu_redis

    with enqueue._broker_channel() as channel:
        return isinstance(channel, kombu_redis.Channel)


@pytest.fixture
def queues(private_queue, settings):
    """Private match, ladder, validation and webhook queues, purged after."""
    settings.VALIDATION_QUEUE = f"{private_queue}.validation"
    settings.WEBHOOKS_QUEUE = f"{private_queue}.webhooks"
    yield settings
    broker_queue_purge(settings.VALIDATION_QUEUE)
    broker_queue_purge(settings.WEBHOOKS_QUEUE)


def test_each_match_goes_to_the_queue_of_its_priority_and_is_marked_sent(queues):
    tournament_matches = [MatchFactory(priority=Match.Priority.TOURNAMENT) for _ in range(2)]
    ladder_match = MatchFactory(priority=Match.Priority.LADDER)
    assert match_queue(Match.Priority.TOURNAMENT) == queues.MATCH_QUEUE
    assert match_queue(Match.Priority.LADDER) == match_queue(Match.Priority.LADDER + 1) == queues.LADDER_QUEUE
    assert match_queues() == [queues.MATCH_QUEUE, queues.LADDER_QUEUE]
    ids = [m.pk for m in [*tournament_matches, ladder_match]]
    assert matches_send_now(ids) == 3
    assert broker_queue_length() == 2 and broker_queue_length(queues.LADDER_QUEUE) == 1
    assert Match.objects.filter(pk__in=ids, enqueued_at__isnull=False).count() == 3
    seen = broker_match_messages()
    assert seen.waiting == 3
    # Redis and the filesystem broker both list the waiting messages; only Redis shows what workers hold.
    assert seen.reserved == (frozenset() if on_redis() else None)
    assert broker_waiting_match_ids() == frozenset(ids)
    assert broker_waiting_match_ids(queues.LADDER_QUEUE) == {ladder_match.pk}


def test_matches_stamped_in_their_transaction_are_sent_without_writing_them_again(
        queues, django_capture_on_commit_callbacks):
    """Whoever queues matches sets ``enqueued_at`` in the transaction that queues them (a round robin as it
    inserts them): the send after the commit then only publishes, and no match row is written twice."""
    stamped_at = timezone.now() - timezone.timedelta(seconds=5)
    ids = [MatchFactory(enqueued_at=stamped_at).pk for _ in range(3)]
    with CaptureQueriesContext(connection) as statements:
        with django_capture_on_commit_callbacks(execute=True):
            matches_enqueue_on_commit(ids, stamped=True)
    assert broker_queue_length() == 3
    assert not [query["sql"] for query in statements.captured_queries if query["sql"].startswith("UPDATE")]
    assert set(Match.objects.filter(pk__in=ids).values_list("enqueued_at", flat=True)) == {stamped_at}


def test_matches_not_yet_stamped_are_stamped_in_the_transaction_that_queues_them(
        queues, django_capture_on_commit_callbacks):
    match = MatchFactory(enqueued_at=None)
    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=False) as callbacks, transaction.atomic():
        matches_enqueue_on_commit([match.pk])
        # Before the commit: the stamp is part of the transaction that queues the match.
        assert Match.objects.get(pk=match.pk).enqueued_at >= before
        assert broker_queue_length() == 0
    callbacks[0]()
    assert broker_queue_length() == 1


def test_purging_drops_what_waits_and_says_how_many(queues):
    matches_send_now([MatchFactory().pk for _ in range(3)])
    assert broker_queue_purge(queues.MATCH_QUEUE) == 3
    assert broker_queue_length() == 0
    assert broker_queue_length(f"never-used-{uuid.uuid4().hex}") == 0


def test_nothing_is_sent_for_no_ids(queues, django_capture_on_commit_callbacks):
    assert matches_send_now([]) == 0 and versions_validate_now([]) == 0 and webhook_deliveries_send_now([]) == 0
    with django_capture_on_commit_callbacks() as callbacks:
        matches_enqueue_on_commit([])
        versions_validate_on_commit(iter(()))
    assert callbacks == []


def test_messages_wait_for_the_commit(queues, django_capture_on_commit_callbacks):
    match = MatchFactory()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        matches_enqueue_on_commit([match.pk])
    assert len(callbacks) == 1 and broker_queue_length() == 0  # a rolled-back change would stop here
    callbacks[0]()
    assert broker_queue_length() == 1


def test_an_upload_check_goes_to_the_validation_queue_and_the_version_is_marked_sent(
        queues, django_capture_on_commit_callbacks):
    version = BotVersionFactory(bot=BotFactory(), validation_status=BotVersion.Validation.PENDING)
    before = timezone.now()
    with django_capture_on_commit_callbacks(execute=True):
        versions_validate_on_commit([version.id])
    assert broker_queue_length(queues.VALIDATION_QUEUE) == 1
    version.refresh_from_db()
    assert version.validation_sent_at >= before
    if on_redis():
        assert broker_waiting_match_ids(queues.VALIDATION_QUEUE) == frozenset()  # not match messages


def test_webhook_deliveries_go_to_their_queue_even_when_due_later(queues):
    assert webhook_deliveries_send_now([1, 2], countdown=30) == 2
    assert broker_queue_length(queues.WEBHOOKS_QUEUE) == 2


@pytest.fixture
def refusing_broker(settings, monkeypatch):
    """The configured broker replaced by a Redis URL where nothing listens."""
    monkeypatch.setenv("CELERY_BROKER_URL", "redis://127.0.0.1:1/0")  # Celery reads it before the setting
    settings.CELERY_BROKER_URL, settings.CELERY_BROKER_TRANSPORT = "redis://127.0.0.1:1/0", "redis"
    settings.CELERY_BROKER_CONNECTION_RETRY, settings.CELERY_BROKER_CONNECTION_MAX_RETRIES = False, 0
    enqueue._client = None
    yield
    enqueue._client = None


def test_a_broker_that_refuses_is_logged_after_commit_and_cannot_be_asked(refusing_broker, caplog,
                                                                          django_capture_on_commit_callbacks):
    match = MatchFactory()
    with caplog.at_level(logging.ERROR, logger="ladder.messaging.enqueue"), \
            django_capture_on_commit_callbacks(execute=True):
        matches_enqueue_on_commit([match.pk])  # does not raise
    assert any("could not publish 1 match messages" in r.getMessage() for r in caplog.records)
    assert broker_queue_length() is None
    assert broker_match_messages() is None
    assert broker_waiting_match_ids() is None


def stored(task: str, args: list, *, protocol: int = 2, encode: bool = True) -> dict:
    """A message as Kombu stores it in the broker."""
    body = json.dumps([args, {}, {}] if protocol == 2 else {"task": task, "args": args}).encode()
    return {"headers": {"task": task}, "body": base64.b64encode(body).decode() if encode else body.decode(),
            "properties": {"body_encoding": "base64"} if encode else {}}


def test_the_matches_a_stored_message_announces():
    assert enqueue._match_ids(stored(RUN_MATCH_TASK, [42])) == (42,)
    assert enqueue._match_ids(stored(RUN_MATCH_TASK, ["7"], protocol=1, encode=False)) == (7,)
    assert enqueue._match_ids(stored(RUN_MATCHES_TASK, [[3, 4, 5]])) == (3, 4, 5)
    assert enqueue._match_ids(stored(RUN_MATCHES_TASK, [["6", 8]], protocol=1, encode=False)) == (6, 8)
    assert enqueue._match_ids(stored("ladder.validate_version", [42])) == ()
    assert enqueue._match_ids(stored(RUN_MATCH_TASK, [])) == ()
    assert enqueue._match_ids(stored(RUN_MATCHES_TASK, [[1, "x"]])) == ()
    assert enqueue._match_ids(stored(RUN_MATCHES_TASK, [7])) == ()
    assert enqueue._match_ids({"headers": {"task": RUN_MATCHES_TASK}, "body": "not json"}) == ()
    assert enqueue._match_ids({}) == ()


@pytest.mark.parametrize("count", [0, 1, 2, 15, 16, 17, 40, 128, 129, 1000])
def test_a_send_goes_out_in_as_few_messages_as_allowed_but_at_least_the_spread(count, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/0"
    settings.MATCHES_PER_MESSAGE, settings.MATCH_MESSAGES_MIN = 8, 16
    sizes = match_message_sizes(count)
    assert sum(sizes) == count and all(1 <= size <= 8 for size in sizes)
    assert len(sizes) == max(min(count, 16), -(-count // 8))
    assert max(sizes, default=0) - min(sizes, default=0) <= 1  # spread evenly
    # Where the reconciler cannot read a message's matches, one match a message.
    settings.CELERY_BROKER_URL = "filesystem://localhost/"
    assert match_message_sizes(count) == [1] * count


@pytest.mark.parametrize(("count", "match_s", "messages"), [
    (100, 5.0, 100),  # long matches: one a message, to as many processes as are free
    (3, 5.0, 3),
    (100, 0.1, 20),  # 10 s of play: 20 messages of half a second each
    (100, 0.02, 8),  # 2 s of play: still spread over MATCH_MESSAGES_MIN
    (10, 0.02, 8),
    (1000, 0.02, 63),  # as few as MATCHES_PER_MESSAGE (16) allows
    (100, None, 8),  # unknown: spread over MATCH_MESSAGES_MIN
    (1000, None, 63),
    (0, 0.02, 0),
])
def test_a_send_is_spread_further_where_its_matches_are_known_to_be_long(count, match_s, messages, settings):
    settings.CELERY_BROKER_URL = "redis://127.0.0.1:6379/0"
    settings.MATCHES_PER_MESSAGE, settings.MATCH_MESSAGES_MIN, settings.MATCH_MESSAGE_WORK_S = 16, 8, 0.5
    sizes = match_message_sizes(count, match_s=match_s)
    assert len(sizes) == messages and sum(sizes) == count
    assert max(sizes, default=0) - min(sizes, default=0) <= 1 and max(sizes, default=0) <= 16


# Several matches to a message only where the broker lists its messages (Redis).
@pytest.mark.redis
def test_a_send_is_sized_by_how_long_its_games_recent_matches_took(queues, settings):
    from ladder.messaging.match_durations import MIN_SAMPLES
    from ladder.models import Game

    settings.MATCHES_PER_MESSAGE, settings.MATCH_MESSAGES_MIN, settings.MATCH_MESSAGE_WORK_S = 16, 8, 0.5
    short, long = Game.objects.get(slug="kingdomino"), Game.objects.get(slug="draftosaurus")
    for game, seconds in ((short, 0.25), (long, 2.0)):
        for _ in range(MIN_SAMPLES):
            MatchFactory(tournament__game=game, players=2, status=Match.Status.FINISHED, finished_at=timezone.now(),
                         duration_s=seconds)
    # Three-player Kingdomino has no recent match: spread as if long.
    sends = {(game.slug, players): [MatchFactory(tournament__game=game, players=players, priority=Match.Priority.TOURNAMENT).pk
                                    for _ in range(20)]
             for game, players in ((short, 2), (long, 2), (short, 3))}
    assert matches_send_now([match_id for ids in sends.values() for match_id in ids]) == 60
    with enqueue._broker_channel() as channel:
        from ladder.brokers import redis_queues

        stored = [enqueue._match_ids(message)
                  for message in redis_queues.waiting_messages(channel, queues.MATCH_QUEUE)]
    sizes = {key: sorted(len(message) for message in stored if set(message) <= set(ids))
             for key, ids in sends.items()}
    # 20 x 0.25 s = 5 s: 10 messages; 20 x 2 s: one match a message; unknown: MATCH_MESSAGES_MIN (8).
    assert sizes == {("kingdomino", 2): [2] * 10, ("draftosaurus", 2): [1] * 20,
                     ("kingdomino", 3): [2, 2, 2, 2, 3, 3, 3, 3]}


@pytest.mark.redis
def test_many_matches_go_out_several_to_a_message_and_are_listed_by_match(queues, settings):
    settings.MATCHES_PER_MESSAGE, settings.MATCH_MESSAGES_MIN = 4, 3
    matches = [MatchFactory(priority=Match.Priority.TOURNAMENT) for _ in range(10)]
    ids = sorted(m.pk for m in matches)
    assert matches_send_now(ids) == 10
    seen = broker_match_messages()
    assert seen.waiting == 3  # 4 + 3 + 3
    assert broker_waiting_match_ids() == frozenset(ids)
    with enqueue._broker_channel() as channel:
        from ladder.brokers import redis_queues

        stored_messages = list(redis_queues.waiting_messages(channel, queues.MATCH_QUEUE))
    assert sorted(enqueue._match_ids(message) for message in stored_messages) == [
        tuple(ids[:4]), tuple(ids[4:7]), tuple(ids[7:])]
