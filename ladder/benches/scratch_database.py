"""A scratch database for the benches: they measure on generated data and never touch the real one; and
the bots they seat."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import Iterator

from django.db import connection


@contextlib.contextmanager
def scratch_database() -> Iterator[None]:
    """Switch the default connection to a new, empty, migrated database (Django's test-database machinery:
    a new database on the same PostgreSQL server) and drop it on the way out.

    The scratch database has a name of its own, never the one the settings give test databases: a bench
    run while that one is in use (a test session's) must not clobber it."""
    old_name = connection.settings_dict["NAME"]
    test_settings = connection.settings_dict.setdefault("TEST", {})
    old_test_name = test_settings.get("NAME")
    test_settings["NAME"] = _scratch_name(old_name)
    try:
        connection.creation.create_test_db(verbosity=0, autoclobber=True, serialize=False)
    finally:
        test_settings["NAME"] = old_test_name
    try:
        yield
    finally:
        connection.creation.destroy_test_db(old_name, verbosity=0)


def _scratch_name(name: str) -> str:
    """A new database's name beside ``name``, on the same server (within PostgreSQL's 63 characters)."""
    suffix = f"bench_{uuid.uuid4().hex[:8]}"
    return f"{name[:63 - len(suffix) - 1]}_{suffix}"


def bench_bots(game, count: int) -> list[tuple]:
    """``count`` bots of ``game`` for a bench, each of its own owner with one accepted version and its
    rating row: ``(bot, version)`` pairs."""
    import hashlib
    import uuid

    from django.contrib.auth import get_user_model

    from ladder.models import Bot, BotVersion, Rating

    code = b"def act(observation, legal_actions):\n    return legal_actions[0]\n"
    made = []
    for i in range(count):
        owner = get_user_model().objects.create_user(f"bench-{uuid.uuid4().hex[:10]}")
        bot = Bot.objects.create(owner=owner, game=game, name=f"bench-{i:03d}")
        version = BotVersion.objects.create(
            bot=bot, number=1, code=code, sha256=hashlib.sha256(code).hexdigest(), size=len(code),
            validation_status=BotVersion.Validation.ACCEPTED)
        Rating.objects.get_or_create(bot=bot, game=game)
        made.append((bot, version))
    return made
