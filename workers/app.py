"""The Celery app, configured from Django settings under the ``CELERY_`` namespace.

The database is the source of truth; the broker only rings the bell (see ladder.services.play.matches).
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
    PostgreSQL's WAL flush (see ``ladder.core.database.commit_without_flush_wait``); and name the
    process's PostgreSQL connection after it (:func:`name_connections`)."""
    from django.conf import settings
    from django.db.backends.signals import connection_created

    from ladder.core.database import commit_without_flush_wait

    if not settings.MATCH_SYNCHRONOUS_COMMIT:
        connection_created.connect(commit_without_flush_wait, weak=False)
    name_connections()


def name_connections() -> None:
    """``application_name`` ``ladder-worker:<host>:<pid>`` for this process's new PostgreSQL connections:
    ``pg_stat_activity`` then tells which worker process holds which connection (at most one each)."""
    import socket

    from django.db import DEFAULT_DB_ALIAS, connections

    # PostgreSQL keeps the first 63 bytes; the pid, which tells processes apart, goes last.
    name = f"ladder-worker:{socket.gethostname()[:40]}:{os.getpid()}"
    connections.settings[DEFAULT_DB_ALIAS].setdefault("OPTIONS", {})["application_name"] = name


@worker_process_shutdown.connect
def _close_sandboxes(**_) -> None:
    """A pool process leaves through ``os._exit``, which runs no ``atexit`` hook: its sandboxes (their
    cgroups, the frozen ``freezer-pin`` among them) are closed here, or they would stay behind. That is
    every ordinary end of the process: the warm shutdown, ``--max-tasks-per-child``, and SIGTERM, which
    billiard turns into ``SystemExit`` in a pool process (what a supervisor stopping the whole process
    group sends)."""
    from bots.sandbox import close_sandboxes

    close_sandboxes()
