"""The games' model (``ladder.models.games``): the rows the migrations leave mirror the installed engines,
and the database holds a game's player range whoever writes it."""

from __future__ import annotations

import pytest

import engines
from ladder.models import Game
from tests.ladder.models.test_models_matches import refused

pytestmark = pytest.mark.django_db


def test_the_games_are_the_installed_engines_with_their_player_range():
    rows = {game.slug: (game.min_players, game.max_players, game.available) for game in Game.objects.all()}
    assert rows == {name: (engines.get(name).min_players, engines.get(name).max_players, True)
                    for name in engines.names()}
    assert str(Game.objects.get(slug="kingdomino")) == "kingdomino"


def test_a_game_seats_at_least_one_player_and_no_fewer_at_most_than_at_least():
    refused(lambda: Game.objects.create(slug="none", title="None", min_players=0, max_players=2))
    refused(lambda: Game.objects.create(slug="upside", title="Upside", min_players=3, max_players=2))
    refused(lambda: Game.objects.create(slug="kingdomino", title="Again", min_players=2, max_players=4))
    assert Game.objects.create(slug="solo", title="Solo", min_players=1, max_players=1).pk
