"""The lease heartbeat: while a worker process holds matches, a thread of that process renews their leases.

One thread per worker process, started on first use (after the pool forked the process). It opens no
database connection of its own: the process's connection, which the playing thread leaves idle while
the referee runs, is lent to it for the match (:meth:`LeaseHeartbeat.holding`), so a worker process holds
one connection however long its matches last. A lock keeps the two threads from using it at once: the
playing thread takes it (:meth:`LeaseHeartbeat.database`) for any query of its own while it holds a match,
and getting the match back waits for a renewal under way.

The thread wakes every ``MATCH_HEARTBEAT_S`` while it holds matches and renews their leases with one
UPDATE guarded by each match's attempt token (``ladder.services.play.matches.match_leases_renew``): a worker
that claimed the matches of a message together (``workers.execution.matches_execute``) holds the lease
of every one of them, played or waiting its turn, until its result is recorded or it is given back
(:meth:`LeaseHeartbeat.forget`). Handing matches over and taking them back only sets a field under a
lock: matches shorter than the interval cost no query at all. A renewal that fails (database
unreachable) is logged and tried again at the next beat; one that finds a claim lost stops renewing that
match, whose result the recording will refuse.
"""

from __future__ import annotations

import contextlib
import dataclasses
import logging
import os
import threading
import time

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, DatabaseError, InterfaceError, connections

logger = logging.getLogger(__name__)


@dataclasses.dataclass
class _Held:
    #: Match id: attempt token, of every match whose lease is renewed.
    leases: dict[int, str]
    renewed_at: float
    #: The playing thread's connection (a Django ``DatabaseWrapper``), lent while the matches are held.
    database: object


class LeaseHeartbeat:
    """Renews the leases of the matches this process holds (one set at a time)."""

    def __init__(self, interval_s: float | None = None) -> None:
        self._interval_s = interval_s
        self._condition = threading.Condition()
        #: Held by whichever thread is using the lent connection.
        self._database_lock = threading.Lock()
        self._held: _Held | None = None
        self._thread: threading.Thread | None = None
        self._pid = 0
        #: Renewals done (for tests and logs).
        self.renewals = 0

    @property
    def interval_s(self) -> float:
        return self._interval_s if self._interval_s is not None else settings.MATCH_HEARTBEAT_S

    def holding(self, *, match_id: int, token: str):
        """Renew the lease of ``match_id`` (claimed under ``token``) until the block ends: :meth:`holding_many`
        of one match."""
        return self.holding_many({match_id: token})

    @contextlib.contextmanager
    def holding_many(self, leases: dict[int, str]):
        """Renew the leases of ``leases`` (match id: the token it was claimed under) until the block ends
        or each is :meth:`forget`-ten, on the calling thread's connection. The caller keeps no transaction
        open meanwhile (a renewal would join it), and wraps any query it makes inside the block in
        :meth:`database`."""
        self._ensure_thread()
        database = connections[DEFAULT_DB_ALIAS]
        database.inc_thread_sharing()
        with self._condition:
            self._held = _Held(dict(leases), time.monotonic(), database)
            self._condition.notify()
        try:
            yield
        finally:
            with self._database_lock, self._condition:
                self._held = None
                self._condition.notify()
            database.dec_thread_sharing()

    def forget(self, match_id: int) -> None:
        """Stop renewing the lease of ``match_id`` (its result recorded, or the match given back)."""
        with self._condition:
            if self._held is not None:
                self._held.leases.pop(match_id, None)

    @contextlib.contextmanager
    def database(self):
        """Use the process's connection from the playing thread while a match is held."""
        with self._database_lock:
            yield

    def _ensure_thread(self) -> None:
        # A process forked from one whose thread was running has no thread: start one of its own.
        if self._thread is None or self._pid != os.getpid() or not self._thread.is_alive():
            self._condition = threading.Condition()
            self._database_lock = threading.Lock()
            self._pid = os.getpid()
            self._thread = threading.Thread(target=self._run, name="lease-heartbeat", daemon=True)
            self._thread.start()

    def _run(self) -> None:
        while True:
            with self._condition:
                held = self._held
                if held is None:
                    self._condition.wait()
                    continue
                due = held.renewed_at + self.interval_s
                wait_s = due - time.monotonic()
                if wait_s > 0:
                    self._condition.wait(wait_s)
                    continue
                held.renewed_at = time.monotonic()
            self._renew(held)

    def _renew(self, held: _Held) -> None:
        from ladder.services.play.matches import match_leases_renew

        with self._database_lock:
            if self._held is not held:
                return  # taken back meanwhile: the connection is no longer lent
            with self._condition:
                leases = dict(held.leases)
            if not leases:
                return
            try:
                renewed = match_leases_renew(leases=leases, database=held.database)
            except (DatabaseError, InterfaceError):
                logger.warning("could not renew the leases of matches %s; trying again", sorted(leases),
                               exc_info=True)
                # A broken connection is closed here, and the next use reconnects.
                held.database.close_if_unusable_or_obsolete()
                return
        self.renewals += 1
        for match_id in sorted(set(leases) - renewed):
            logger.warning("match %s: lease lost (taken over or finished); no longer renewed", match_id)
            self.forget(match_id)


#: The heartbeat of this worker process.
lease_heartbeat = LeaseHeartbeat()
