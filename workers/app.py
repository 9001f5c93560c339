"""The Celery app, configured from Django settings under the ``CELERY_`` namespace.

The database is the source of truth; the broker only rings the bell (see ladder.services.matches).
"""

import os

from celery import Celery
from celery.signals import worker_process_init, worker_process_shutdown

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "ladder.settings")

app = Celery("botladder", include=["workers.tasks"])
app.config_from_object("django.conf:settings", namespace="CELERY")


@worker_process_init.connect
def _configure_worker_connections(**_) -> None:
    """In each worker process, unless ``MATCH_SYNCHRONOUS_COMMIT`` is set, commit without waiting for
    PostgreSQL's WAL flush (see :func:`commit_without_flush_wait`); and name the process's PostgreSQL
    connection after it (:func:`name_connections`)."""
    from django.conf import settings
    from django.db.backends.signals import connection_created

    if not settings.MATCH_SYNCHRONOUS_COMMIT:
        connection_created.connect(commit_without_flush_wait, weak=False)
    name_connections()


def name_connections() -> None:
    """``application_name`` ``ladder-worker:<host>:<pid>`` for this process's new PostgreSQL connections:
    ``pg_stat_activity`` then tells which worker process holds which connection (at most one each)."""
    import socket

    from django.db import DEFAULT_DB_ALIAS, connections

    conf = connections.settings[DEFAULT_DB_ALIAS]
    if conf["ENGINE"].endswith("postgresql"):
        # PostgreSQL keeps the first 63 bytes; the pid, which tells processes apart, goes last.
        name = f"ladder-worker:{socket.gethostname()[:40]}:{os.getpid()}"
        conf.setdefault("OPTIONS", {})["application_name"] = name


@worker_process_shutdown.connect
def _close_sandboxes(**_) -> None:
    """A pool process leaves through ``os._exit``, which runs no ``atexit`` hook: its sandboxes (their
    cgroups, the frozen ``freezer-pin`` among them) are closed here, or they would stay behind. That is
    every ordinary end of the process: the warm shutdown, ``--max-tasks-per-child``, and SIGTERM, which
    billiard turns into ``SystemExit`` in a pool process (what a supervisor stopping the whole process
    group sends)."""
    from bots.sandbox import close_all

    close_all()


def commit_without_flush_wait(sender, connection, **_) -> None:
    """On a worker's new PostgreSQL connection: every transaction it opens commits without waiting for
    PostgreSQL's WAL flush (:func:`transaction_without_flush_wait`).

    A worker commits twice per match (claim, result); waiting for each WAL flush is a large part of its
    time per match. Without the wait, a crash of PostgreSQL itself (not of a worker) can lose the last
    fraction of a second of commits, never corrupt them, and the match pipeline is built for exactly
    that: a lost claim or result leaves the match queued or running under an expired lease, and the
    reconciler plays it again. Web requests (uploads, accounts) keep the default.

    Set per transaction (``SET LOCAL``), never for the session: behind a pooler in transaction mode the
    next transaction may run on a server connection another client set otherwise, or leave one set for
    the web tier. Statements in autocommit mode (the lease renewals) keep the default.
    """
    if connection.vendor == "postgresql" and transaction_without_flush_wait not in connection.execute_wrappers:
        connection.execute_wrappers.append(transaction_without_flush_wait)


def transaction_without_flush_wait(execute, sql, params, many, context):
    """A Django execute wrapper: before the first statement of a transaction, ``SET LOCAL
    synchronous_commit TO off`` (sent along with it where statements are pipelined, so no round trip of
    its own)."""
    from psycopg.pq import TransactionStatus

    database = context["connection"]
    if database.in_atomic_block and database.connection.info.transaction_status == TransactionStatus.IDLE:
        # The driver's own cursor: through Django's, this wrapper would run again.
        context["cursor"].cursor.execute("SET LOCAL synchronous_commit TO off", prepare=False)
    return execute(sql, params, many, context)
