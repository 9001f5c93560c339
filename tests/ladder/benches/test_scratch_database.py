"""The benches' scratch database and bots (``ladder.benches.scratch_database``): the default connection
switched to a new, empty, migrated database and back, the scratch database dropped on the way out even when
the bench fails, and the bots a bench seats (each of its own owner, one accepted version, a rating row)."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from ladder.benches.scratch_database import bench_bots, scratch_database
from ladder.models import Bot, BotVersion, Game, Rating
from tests.factories import BotFactory


def database_exists(name: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name])
        return cursor.fetchone() is not None


@pytest.mark.django_db
def test_bench_bots_each_have_an_owner_an_accepted_version_and_a_rating():
    game = Game.objects.get(slug="draftosaurus")
    made = bench_bots(game, 3)
    assert len(made) == 3
    bots = [bot for bot, _ in made]
    assert [bot.name for bot in bots] == ["bench-000", "bench-001", "bench-002"]
    assert len({bot.owner_id for bot in bots}) == 3
    for bot, version in made:
        assert version.bot == bot and version.number == 1
        assert version.validation_status == BotVersion.Validation.ACCEPTED
        assert version.size == len(bytes(version.code)) and len(version.sha256) == 64
        assert Rating.objects.filter(bot=bot, game=game).count() == 1
    assert bench_bots(game, 0) == []


@pytest.mark.django_db(transaction=True)
def test_the_scratch_database_is_new_empty_migrated_and_dropped_even_when_the_bench_fails():
    # One scratch database only (each is a full migration): the bench in it fails, which is the harder way
    # out; the way out is the same ``finally`` either way.
    BotFactory()
    before = connection.settings_dict["NAME"]
    with pytest.raises(RuntimeError, match="bench failed"), scratch_database():
        scratch = connection.settings_dict["NAME"]
        assert scratch != before
        assert not Bot.objects.exists() and not get_user_model().objects.exists()
        # Migrated: the games are installed, and a bench can seat bots.
        bench_bots(Game.objects.get(slug="kingdomino"), 2)
        assert Bot.objects.count() == 2
        raise RuntimeError("bench failed")
    assert connection.settings_dict["NAME"] == before
    assert not database_exists(scratch)
    assert Bot.objects.count() == 1
