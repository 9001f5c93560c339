"""Kombu's filesystem transport tuned for Celery workers: the embedded default's broker.

Four changes to Kombu's transport, each for a fault of it:

* Celery drives transports without an event loop (the filesystem one among them) with a blocking loop that
  calls ``drain_events(timeout=2.0)`` and only between two calls performs its pending operations, which
  include acknowledging messages. With one message in flight per worker process (prefetch 1) nothing else
  arrives to end the wait, so every task would sit up to two seconds before the next could be fetched.
  Ending a fruitless wait after one polling interval keeps a task's round trip in the milliseconds.
* Kombu creates a message's file under its final name and then writes it, so a worker polling at that
  moment takes the empty or half-written file and its consumer dies on the JSON. Here a message is written
  under a name no queue matches and renamed into place, which is atomic: a reader sees all of it or none.
* Kombu names a message by its clock in milliseconds without padding and takes the names in text order,
  so messages leave out of order whenever the clock passes a power of ten (9,999 ms sorts after 10,000 ms).
  Here the clock is zero-padded to a fixed width (``message_name``), so text order is time order.
* A message file that still cannot be read (a stray or torn file) is dropped with a warning and the next
  one delivered. Nothing is lost by that: the database is the source of truth, and the reconciler sends a
  queued match's message again when the broker holds fewer messages than there are queued matches (this
  transport cannot show the messages workers hold, so a shortfall sends every queued match again).
"""

from __future__ import annotations

import logging
import os
import uuid
from time import monotonic

from kombu.exceptions import ChannelError
from kombu.transport import filesystem
from kombu.utils.encoding import bytes_to_str, str_to_bytes
from kombu.utils.json import dumps, loads

logger = logging.getLogger(__name__)

# Digits of the millisecond clock in a message's name: 10**16 ms is over 300,000 years of uptime.
CLOCK_DIGITS = 16


def message_name(queue: str, clock_ms: float) -> str:
    """The file name of a message of ``queue`` sent at ``clock_ms``: names sort as text in clock order."""
    return f"{int(clock_ms):0{CLOCK_DIGITS}d}_{uuid.uuid4()}.{queue}.msg"


def waiting_messages(channel: filesystem.Channel, queue: str) -> list[dict]:
    """The messages waiting in ``queue`` (as Kombu stores them), oldest first, read without taking them; a
    file a worker takes meanwhile, or one that cannot be read, is left out."""
    folder = channel.data_folder_in
    messages = []
    for name in sorted(name for name in os.listdir(folder) if name.endswith(f".{queue}.msg")):
        try:
            with open(os.path.join(folder, name), "rb") as file:
                messages.append(loads(bytes_to_str(file.read())))
        except (OSError, ValueError):
            continue
    return messages


class Channel(filesystem.Channel):
    def _put(self, queue, payload, **kwargs):
        """Put ``payload`` onto ``queue``: written in full under a temporary name, then renamed."""
        final = os.path.join(self.data_folder_out, message_name(queue, monotonic() * 1000))
        # No queue's name pattern (".<queue>.msg") matches this one, so no reader takes it while it grows.
        partial = os.path.join(self.data_folder_out, f".partial-{uuid.uuid4()}")
        try:
            with open(partial, "wb") as file:
                file.write(str_to_bytes(dumps(payload)))
            os.replace(partial, final)
        except OSError as exc:
            try:
                os.unlink(partial)
            except OSError:
                pass
            raise ChannelError(f"Cannot add file {final!r} to directory") from exc

    def _get(self, queue):
        """The next readable message of ``queue``; raises ``Empty`` when there is none."""
        while True:
            try:
                return super()._get(queue)
            except ValueError as exc:  # JSON that does not decode: that file is already taken away
                logger.warning("dropped an unreadable message of queue %s: %s", queue, exc)


class Transport(filesystem.Transport):
    Channel = Channel

    def drain_events(self, connection, timeout=None):
        polling = self.polling_interval
        # A blocking call (timeout None) keeps its meaning; only bounded waits are shortened.
        if timeout is not None and polling and polling < timeout:
            timeout = polling
        return super().drain_events(connection, timeout=timeout)
