"""A transaction held open on another connection, for tests of what waits on a lock and what does not."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Callable, Iterator

from django.db import connection, transaction


def held_elsewhere(take: Callable[[], object]) -> tuple[threading.Thread, threading.Event]:
    """Run ``take()`` in a transaction of another connection (a thread's own) and keep that transaction
    open, its locks held, until the returned event is set (at most 30 s); returns ``(thread, release)``
    once ``take()`` has run."""
    taken, release = threading.Event(), threading.Event()

    def holder():
        try:
            with transaction.atomic():
                take()
                taken.set()
                release.wait(30)
        finally:
            connection.close()

    thread = threading.Thread(target=holder)
    thread.start()
    assert taken.wait(10), "the other connection did not take its lock within 10 s"
    return thread, release


@contextlib.contextmanager
def held_meanwhile(take: Callable[[], object]) -> Iterator[None]:
    """:func:`held_elsewhere` for the length of a ``with`` block: the other transaction lets go, and its
    thread has ended, when the block does."""
    thread, release = held_elsewhere(take)
    try:
        yield
    finally:
        release.set()
        thread.join(30)
