"""Kombu's Redis transport with the workers' queues taken in a fixed order: the production broker.

Kombu's ``queue_order_strategy = "priority"`` takes from the first queue of its list that holds a message,
but it builds that list from a *set* of the queues consumed, whose order changes with every process's hash
seed: one worker started without ``-Q`` took the upload checks first, the next one the matches first, and
there the checks waited behind the whole backlog of matches. Here the list follows the transport option
``queue_order`` (the settings give the checks' queue, then the matches'), and queues it does not name come
after them, by name. How much of a worker's time the checks then take is bounded in the workers
(``workers.check_share``).
"""

from __future__ import annotations

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
