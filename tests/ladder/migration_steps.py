"""Running the ladder's migrations to a target inside a test, for the tests of data migrations."""

from django.db import connection
from django.db.migrations.executor import MigrationExecutor


def migrate(targets):
    """Migrate the test database to ``targets`` and return the historical apps at that state."""
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(targets)
    return executor.loader.project_state(targets).apps


def migrate_to_latest():
    """Back to the newest migration of the ladder, as every other test expects."""
    return migrate(MigrationExecutor(connection).loader.graph.leaf_nodes("ladder"))
