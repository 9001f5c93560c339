"""Worker processes commit without waiting for PostgreSQL's WAL flush, unless told otherwise, and set it
per transaction: a connection's session keeps the default, as a pooler in transaction mode needs."""

import pytest
from django.db import connection, transaction
from django.db.backends.signals import connection_created

from ladder.core.database import commit_without_flush_wait, transaction_without_flush_wait
from workers.app import _configure_worker_connections

# The transactions below are the test's own, not nested in a test case's.
pytestmark = pytest.mark.django_db(transaction=True)


def _show() -> str:
    with connection.cursor() as cursor:
        cursor.execute("SHOW synchronous_commit")
        return cursor.fetchone()[0]


def _in_a_transaction_then_after() -> tuple[str, str]:
    """``synchronous_commit`` inside a transaction of a new connection, then in its session after it."""
    connection.close()
    with transaction.atomic():
        inside = _show()
    return inside, _show()


@pytest.fixture
def worker_process():
    """What ``worker_process_init`` does in a worker, undone afterwards."""
    yield _configure_worker_connections
    connection_created.disconnect(commit_without_flush_wait)
    while transaction_without_flush_wait in connection.execute_wrappers:
        connection.execute_wrappers.remove(transaction_without_flush_wait)
    connection.close()


def test_a_worker_transaction_commits_without_waiting_for_the_flush(worker_process, settings):
    settings.MATCH_SYNCHRONOUS_COMMIT = False
    assert _in_a_transaction_then_after() == ("on", "on")
    worker_process()
    assert _in_a_transaction_then_after() == ("off", "on")
    # And again on the same connection: every transaction, not only a connection's first.
    with transaction.atomic():
        assert _show() == "off"
    assert _show() == "on"


def test_a_worker_claim_outside_a_transaction_runs_with_its_settings_in_one_transaction_of_its_own(
        worker_process, settings):
    """A claim outside any transaction is the pipeline's own implicit transaction (no BEGIN or COMMIT
    sent): its statements share one transaction, which drops the wait for the WAL flush and plans
    generically, and the session keeps its defaults after it."""
    from ladder.core import database
    from ladder.services.play.matches import _claim_transaction

    settings.MATCH_SYNCHRONOUS_COMMIT = False
    worker_process()
    connection.close()
    probe = ("SELECT current_setting('synchronous_commit'), current_setting('plan_cache_mode'), "
             "txid_current()", [])
    [(_, [first]), (_, [second])] = _claim_transaction(probe, probe)
    plans = "force_generic_plan" if database.prepares_statements() else "auto"
    assert first[:2] == second[:2] == ("off", plans)
    assert first[2] == second[2], "one transaction"
    assert _show() == "on"


def test_match_synchronous_commit_keeps_the_default(worker_process, settings):
    settings.MATCH_SYNCHRONOUS_COMMIT = True
    worker_process()
    assert _in_a_transaction_then_after() == ("on", "on")


@pytest.fixture
def connection_options():
    """The default connection's OPTIONS, restored (and the connection closed) after the test."""
    from django.db import DEFAULT_DB_ALIAS, connections

    conf = connections.settings[DEFAULT_DB_ALIAS]
    saved = dict(conf.get("OPTIONS", {}))
    yield conf
    conf["OPTIONS"] = saved
    connection.settings_dict["OPTIONS"] = dict(saved)
    connection.close()


def test_a_worker_process_names_its_connections_after_its_host_and_pid(connection_options, monkeypatch):
    import os
    import socket

    from workers.app import name_connections

    monkeypatch.setattr(socket, "gethostname", lambda: "h" * 100)
    name_connections()
    name = connection_options["OPTIONS"]["application_name"]
    assert name == f"ladder-worker:{'h' * 40}:{os.getpid()}"
    assert len(name.encode()) <= 63  # PostgreSQL keeps 63 bytes: the pid, last, is never cut
    connection.settings_dict["OPTIONS"] = dict(connection_options["OPTIONS"])
    connection.close()
    with connection.cursor() as cursor:
        cursor.execute("SELECT application_name FROM pg_stat_activity WHERE pid = pg_backend_pid()")
        assert cursor.fetchone()[0] == name


def test_the_app_is_configured_from_the_celery_settings_and_includes_the_tasks(settings):
    from workers.app import app

    assert app.main == "botladder"
    assert "workers.tasks" in app.conf.include
    assert app.conf.task_queues == settings.CELERY_TASK_QUEUES
