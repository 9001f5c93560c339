"""``workers.code_bytes``: a worker fetches each version's code from the database once per checksum, and
keeps at most ``max_entries`` of them, the least recently used leaving first."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tests.factories import FIRST_LEGAL_BOT, LAST_LEGAL_BOT, BotFactory
from workers.code_bytes import CodeBytesCache

pytestmark = pytest.mark.django_db


def _sha(bot) -> str:
    return bot.versions.get().sha256


def test_code_is_fetched_once_per_checksum():
    shas = [_sha(BotFactory(code=FIRST_LEGAL_BOT)), _sha(BotFactory(code=LAST_LEGAL_BOT))]
    cache = CodeBytesCache()
    with CaptureQueriesContext(connection) as queries:
        first = cache.get_many(shas)
    assert len(queries) == 1  # one query for all the misses
    again = cache.get_many(shas)
    assert first == again and set(first.values()) == {FIRST_LEGAL_BOT, LAST_LEGAL_BOT}
    assert (cache.misses, cache.hits) == (2, 2)
    with pytest.raises(KeyError, match="no bot version with sha256"):
        cache.get_many(["0" * 64])


def test_the_least_recently_used_code_leaves_first():
    a, b, c = (_sha(BotFactory(code=FIRST_LEGAL_BOT + f"# {n}\n".encode())) for n in range(3))
    cache = CodeBytesCache(max_entries=2)
    cache.get_many([a])
    cache.get_many([b])
    cache.get_many([a])  # a is now the most recent
    cache.get_many([c])  # b leaves
    hits = cache.hits
    cache.get_many([a, c])
    assert cache.hits == hits + 2
    misses = cache.misses
    cache.get_many([b])
    assert cache.misses == misses + 1
