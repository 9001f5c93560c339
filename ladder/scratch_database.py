"""A scratch database for the benches: they measure on generated data and never touch the real one."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from django.db import connection


@contextlib.contextmanager
def scratch_database() -> Iterator[None]:
    """Switch the default connection to a new, empty, migrated database (Django's test-database machinery:
    a new SQLite file, or a new database on the same PostgreSQL server) and drop it on the way out."""
    old_name = connection.settings_dict["NAME"]
    connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    try:
        yield
    finally:
        scratch = connection.settings_dict["NAME"]
        connection.creation.destroy_test_db(old_name, verbosity=0)
        if connection.vendor == "sqlite":
            for suffix in ("-wal", "-shm"):
                Path(f"{scratch}{suffix}").unlink(missing_ok=True)
