"""Kombu's Redis transport with the workers' queues taken in a fixed order: the production broker.

Kombu's ``queue_order_strategy = "priority"`` takes from the first queue of its list that holds a message,
but it builds that list from a *set* of the queues consumed, whose order changes with every process's hash
seed: one worker started without ``-Q`` takes the upload checks first, the next one the matches first, and
there the checks wait behind the whole backlog of matches. Here the list follows the transport option
``queue_order`` (the settings give the checks' queue, then the matches'), and queues it does not name come
after them, by name. How much of a worker's time the checks then take is bounded in the workers
(``workers.time_share``).

It also lets the reconciler see what the broker really holds for a queue (:func:`reserved_messages`,
:func:`waiting_messages`): Kombu moves a delivered message from the queue's list into its ``unacked``
hash until the worker acknowledges it, so the list's length alone misses every prefetched message.
"""

from __future__ import annotations

import orjson
from kombu.transport import redis


class Channel(redis.Channel):
    #: Queue names in the order a worker takes from them.
    queue_order: tuple[str, ...] | list[str] = ()

    from_transport_options = redis.Channel.from_transport_options + ("queue_order",)

    def _update_queue_cycle(self):
        rank = {name: index for index, name in enumerate(self.queue_order)}
        self._queue_cycle.update(sorted(self.active_queues, key=lambda queue: (rank.get(queue, len(rank)), queue)))


class Transport(redis.Transport):
    Channel = Channel


def reserved_messages(channel: redis.Channel, queue: str, *, since: float) -> list[dict]:
    """The messages of ``queue`` that workers took at ``since`` (a Unix time) or later and have not yet
    acknowledged (Kombu's ``unacked`` hash: a worker's prefetched messages and the ones it is running),
    as Kombu stored them.

    Older ones are left out: a worker that died holding them never acknowledges them, and Kombu gives them
    back only after its visibility timeout (an hour). Two reads of what the fleet has in flight (workers x
    prefetch), not of the backlog."""
    tags = channel.client.zrangebyscore(channel.unacked_index_key, since, "+inf")
    payloads = []
    for start in range(0, len(tags), 1000):
        for raw in channel.client.hmget(channel.unacked_key, tags[start:start + 1000]):
            if raw is None:
                continue  # acknowledged between the two reads
            try:
                message, _exchange, routing_key = orjson.loads(raw)
            except (TypeError, ValueError):
                continue
            if routing_key == queue:
                payloads.append(message)
    return payloads


def waiting_messages(channel: redis.Channel, queue: str) -> list[dict]:
    """Every message waiting in ``queue`` (each of its priority lists), as Kombu stored it (plain JSON,
    read with orjson, faster than Kombu's own reader with its hook for the types it encodes specially).
    Reads the whole backlog: for the look after a count cannot tell whether some match
    has no message (a message may carry several)."""
    payloads = []
    for priority in channel.priority_steps:
        for raw in channel.client.lrange(channel._q_for_pri(queue, priority), 0, -1):
            try:
                payloads.append(orjson.loads(raw))
            except (TypeError, ValueError):
                continue
    return payloads
