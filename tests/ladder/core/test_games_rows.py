"""``ladder.core.games``: the Game rows mirror the installed engines (``games_sync``, idempotent, rows
of engines no longer installed marked unavailable, never deleted), and ``game_get`` finds only available
games, naming them when asked for another."""

from __future__ import annotations

import pytest

import engines
from ladder.core.errors import ServiceError
from ladder.core.games import game_get, games_sync
from ladder.models import Game

pytestmark = pytest.mark.django_db


def test_every_installed_engine_has_an_available_row_with_its_player_range_and_options():
    rows = games_sync()
    assert sorted(row.slug for row in rows) == sorted(engines.names())
    for row in rows:
        engine = engines.get(row.slug)
        row.refresh_from_db()
        assert row.available
        assert (row.min_players, row.max_players) == (engine.min_players, engine.max_players)
        assert row.default_options == engine.default_options()


def test_a_sync_repairs_a_changed_row_and_is_idempotent():
    slug = engines.names()[0]
    Game.objects.filter(slug=slug).update(title="stale", min_players=1, max_players=9, available=False)
    games_sync()
    first = Game.objects.get(slug=slug)
    assert first.available and first.title != "stale"
    assert (first.min_players, first.max_players) == (engines.get(slug).min_players, engines.get(slug).max_players)
    count = Game.objects.count()
    games_sync()
    assert Game.objects.count() == count and Game.objects.get(slug=slug).pk == first.pk


def test_the_row_of_an_engine_no_longer_installed_is_kept_but_unavailable():
    slug = engines.names()[0]
    old = Game.objects.get(slug=slug)
    Game.objects.filter(pk=old.pk).update(slug="retired-game")
    games_sync()
    retired = Game.objects.get(pk=old.pk)
    assert retired.slug == "retired-game" and not retired.available
    assert Game.objects.get(slug=slug).available  # made again for the installed engine


def test_game_get_returns_an_available_game():
    slug = engines.names()[0]
    assert game_get(slug=slug) == Game.objects.get(slug=slug)


def test_game_get_refuses_an_unknown_or_unavailable_game_and_names_the_available_ones():
    slug, *others = engines.names()
    with pytest.raises(ServiceError) as caught:
        game_get(slug="no-such-game")
    assert caught.value.field == "game" and "'no-such-game'" in caught.value.message
    assert all(name in caught.value.message for name in engines.names())
    Game.objects.filter(slug=slug).update(available=False)
    with pytest.raises(ServiceError) as caught:
        game_get(slug=slug)
    listed = caught.value.message.split("games: ")[1].split(", ")
    assert slug not in listed and sorted(listed) == sorted(others)
