"""Games and leaderboards (with the provisional flag of issue 10)."""

import pytest

from tests.api.helpers import error_of
from tests.factories import BotFactory

pytestmark = pytest.mark.django_db


def test_games_are_listed_from_the_engines(api_client):
    games = {g["slug"]: g for g in api_client.get("/api/games/").json()}
    assert set(games) >= {"kingdomino", "draftosaurus", "carcassonne_dice", "dice_king"}
    assert (games["kingdomino"]["min_players"], games["kingdomino"]["max_players"]) == (2, 4)
    assert isinstance(games["kingdomino"]["default_options"], dict)


def test_leaderboard_ranks_active_bots_by_elo_with_shared_ranks(api_client, settings,
                                                                 django_assert_max_num_queries):
    settings.RATING_PROVISIONAL_GAMES = 10
    top, tied_a, tied_b, hidden = BotFactory(), BotFactory(), BotFactory(), BotFactory(active=False)
    top.ratings.update(elo=1600, games=12, wins=12)
    tied_a.ratings.update(elo=1450, games=3, losses=3)
    tied_b.ratings.update(elo=1450, games=3, losses=3)
    hidden.ratings.update(elo=1900)
    BotFactory.create_batch(5)
    with django_assert_max_num_queries(3):  # game, ratings, pair records
        board = api_client.get("/api/leaderboards/kingdomino/").json()
    assert [row["bot_id"] for row in board[:1]] == [top.id]
    certainty = {"elo_interval", "rank_range", "p_above"}  # tests/api/test_leaderboard_certainty.py
    assert {key: value for key, value in board[0].items() if key not in certainty} == {
        "rank": 1, "bot": top.name, "bot_id": top.id, "owner": top.owner.username, "elo": 1600.0,
        "games": 12, "wins": 12, "draws": 0, "losses": 0, "provisional": False}
    assert set(board[0]) > certainty
    ranks = {row["bot_id"]: row["rank"] for row in board}
    assert ranks[tied_a.id] == ranks[tied_b.id] == 7  # after the top bot and five tied at 1500
    assert hidden.id not in ranks
    assert all(row["provisional"] for row in board[1:])


def test_leaderboard_of_an_unknown_game_is_a_404(api_client):
    response = api_client.get("/api/leaderboards/chess/")
    assert response.status_code == 404 and "GET /api/games/" in error_of(response)["detail"]
