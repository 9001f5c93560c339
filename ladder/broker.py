"""Kombu's filesystem transport tuned for Celery workers: the embedded default's broker.

Celery drives transports without an event loop (the filesystem one among them) with a blocking loop that
calls ``drain_events(timeout=2.0)`` and only between two calls performs its pending operations, which
include acknowledging messages. With one message in flight per worker process (prefetch 1) nothing else
arrives to end the wait, so every task would sit up to two seconds before the next could be fetched.
Ending a fruitless wait after one polling interval keeps a task's round trip in the milliseconds.
"""

from __future__ import annotations

from kombu.transport import filesystem


class Transport(filesystem.Transport):
    def drain_events(self, connection, timeout=None):
        polling = self.polling_interval
        # A blocking call (timeout None) keeps its meaning; only bounded waits are shortened.
        if timeout is not None and polling and polling < timeout:
            timeout = polling
        return super().drain_events(connection, timeout=timeout)
