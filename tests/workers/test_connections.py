"""Worker processes commit without waiting for PostgreSQL's WAL flush, unless told otherwise."""

import pytest
from django.db import connections
from django.db.backends.signals import connection_created

from workers.app import _configure_worker_connections, commit_without_flush_wait


def _synchronous_commit_of_a_new_connection() -> str:
    connection = connections.create_connection("default")
    try:
        with connection.cursor() as cursor:
            cursor.execute("SHOW synchronous_commit")
            return cursor.fetchone()[0]
    finally:
        connection.close()


@pytest.fixture
def postgresql():
    if connections["default"].vendor != "postgresql":
        pytest.skip("synchronous_commit is a PostgreSQL setting")


@pytest.fixture
def worker_process():
    """What ``worker_process_init`` does in a worker, undone afterwards."""
    yield _configure_worker_connections
    connection_created.disconnect(commit_without_flush_wait)


@pytest.mark.django_db
def test_a_worker_process_commits_without_waiting_for_the_flush(postgresql, worker_process, settings):
    settings.MATCH_SYNCHRONOUS_COMMIT = False
    assert _synchronous_commit_of_a_new_connection() == "on"
    worker_process()
    assert _synchronous_commit_of_a_new_connection() == "off"


@pytest.mark.django_db
def test_match_synchronous_commit_keeps_the_default(postgresql, worker_process, settings):
    settings.MATCH_SYNCHRONOUS_COMMIT = True
    worker_process()
    assert _synchronous_commit_of_a_new_connection() == "on"
