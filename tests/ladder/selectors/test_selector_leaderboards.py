"""Reading a game's leaderboard (``ladder.selectors.leaderboards``): the game looked up, provisional ratings,
bots ranked by Elo with shared ranks and how sure each line is, how much of the order is settled, the site's
filtered view that hides lines without re-ranking, rating trends, and the ladder's pace."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ladder.core.errors import ServiceError
from ladder.models import Game, Rating
from ladder.ratings.confidence import SETTLED_P
from ladder.selectors import leaderboards
from ladder.selectors.leaderboards import (
    PACE_WINDOW,
    LeaderboardFilters,
    ladder_pace,
    leaderboard_game,
    leaderboard_page,
    leaderboard_ranked,
    order_settled,
    rating_is_provisional,
    rating_trends,
)
from ladder.services.tournaments.ladder import ladder_tournament_get
from ladder.services.uploads.bots import bot_set_active
from tests.factories import BotFactory, FinishedMatchFactory, TournamentFactory, UserFactory, finished_match

pytestmark = pytest.mark.django_db


@pytest.fixture
def kingdomino():
    return Game.objects.get(slug="kingdomino")


def field(elos: dict[str, float]) -> dict:
    bots = {}
    for name, elo in elos.items():
        bots[name] = BotFactory(name=name)
        Rating.objects.filter(bot=bots[name]).update(elo=elo, games=12, wins=6, losses=6)
    return bots


def test_the_game_is_looked_up_or_404():
    assert leaderboard_game(slug="kingdomino").slug == "kingdomino"
    with pytest.raises(ServiceError, match="no game 'chess'") as refusal:
        leaderboard_game(slug="chess")
    assert refusal.value.status == 404


def test_a_rating_is_provisional_for_its_first_games(settings):
    settings.RATING_PROVISIONAL_GAMES = 10
    assert rating_is_provisional(9) and not rating_is_provisional(10)


def test_bots_are_ranked_by_elo_sharing_ranks_active_ones_only(kingdomino, django_assert_num_queries):
    bots = field({"a": 1600, "b": 1550, "c": 1550, "d": 1400, "gone": 1700})
    bot_set_active(bot=bots["gone"], active=False)
    leaderboards._certainty.cache_clear()
    with django_assert_num_queries(2):
        board = leaderboard_ranked(game=kingdomino)
    assert [(line["bot"].name, line["rank"]) for line in board] == [("a", 1), ("b", 2), ("c", 2), ("d", 4)]
    first = board[0]
    assert (first["bot_id"], first["owner"], first["elo"], first["games"], first["provisional"]) == (
        bots["a"].id, bots["a"].owner.username, 1600, 12, False)
    assert [line["next_bot_id"] for line in board] == [bots["b"].id, bots["c"].id, bots["d"].id, None]
    assert board[-1]["p_above"] is None and all(0 <= line["p_above"] <= 1 for line in board[:-1])
    for line in board:
        interval = line["elo_interval"]
        assert interval["low"] <= interval["estimate"] <= interval["high"]
        assert 1 <= line["rank_range"]["best"] <= line["rank_range"]["worst"] <= len(board)
    everyone = leaderboard_ranked(game=kingdomino, include_inactive=True)
    assert everyone[0]["bot"].name == "gone" and len(everyone) == 5


def test_a_new_bot_is_provisional_and_a_board_of_one_game_leaves_others_out(kingdomino):
    BotFactory(name="fresh")
    BotFactory(game=Game.objects.get(slug="dice_king"))
    [line] = leaderboard_ranked(game=kingdomino)
    assert line["bot"].name == "fresh" and line["provisional"] and line["p_above"] is None


def test_how_much_of_the_order_is_settled():
    board = [{"p_above": SETTLED_P}, {"p_above": SETTLED_P - 0.01}, {"p_above": 0.99}, {"p_above": None}]
    assert order_settled(board) == {"pairs": 3, "settled": 2, "share": 2 / 3}
    assert order_settled([{"p_above": None}]) == {"pairs": 0, "settled": 0, "share": None}
    assert order_settled([]) == {"pairs": 0, "settled": 0, "share": None}


def test_the_page_filters_hide_lines_without_re_ranking(kingdomino):
    ada = UserFactory(username="Ada")
    bots = field({"Alpha": 1600, "beta": 1500, "alphonse": 1400})
    Rating.objects.filter(bot=bots["alphonse"]).update(games=3, wins=3, losses=0)
    bots["beta"].owner = ada
    bots["beta"].save()
    page = leaderboard_page(game=kingdomino, filters=LeaderboardFilters(search=" ALPH "))
    assert [(line["bot"].name, line["rank"]) for line in page["board"]] == [("Alpha", 1), ("alphonse", 3)]
    assert page["order"]["pairs"] == 2
    # Alpha's next line on the whole board is beta, hidden here: the line shown next is not its neighbour.
    assert page["board"][0]["settled"] is False
    assert [line["bot"].name for line in leaderboard_page(
        game=kingdomino, filters=LeaderboardFilters(owner="ada"))["board"]] == ["beta"]
    assert [line["bot"].name for line in leaderboard_page(
        game=kingdomino, filters=LeaderboardFilters(min_games=10))["board"]] == ["Alpha", "beta"]


def test_trends_are_a_bots_last_ratings_oldest_first(kingdomino, monkeypatch):
    a, b = BotFactory(), BotFactory()
    for _ in range(3):
        finished_match(bots=[a, b], places=[1, 2])
    trends = rating_trends(game=kingdomino, bot_ids=[a.id])
    assert list(trends) == [a.id] and len(trends[a.id]) == 4
    assert trends[a.id][0] == 1500.0 and trends[a.id] == sorted(trends[a.id])
    monkeypatch.setattr(leaderboards, "TREND_GAMES", 2)
    assert rating_trends(game=kingdomino, bot_ids=[a.id])[a.id] == trends[a.id][1:]
    page = leaderboard_page(game=kingdomino, filters=LeaderboardFilters())
    [line] = [line for line in page["board"] if line["bot_id"] == a.id]
    assert line["trend_delta"] == pytest.approx(line["trend"][-1] - line["trend"][0]) and line["trend_delta"] > 0
    assert rating_trends(game=kingdomino, bot_ids=[]) == {}


def test_the_ladders_pace_counts_its_finished_matches_in_the_window(kingdomino):
    now = timezone.now()
    ladder = ladder_tournament_get(game=kingdomino)
    moments = [now - timedelta(minutes=1), now - PACE_WINDOW + timedelta(seconds=5), now - PACE_WINDOW,
               now + timedelta(seconds=1)]
    for moment in moments:
        FinishedMatchFactory(tournament=ladder, game=kingdomino, finished_at=moment, started_at=moment)
    cup = TournamentFactory()
    FinishedMatchFactory(tournament=cup, game=kingdomino, finished_at=now, started_at=now)
    pace = ladder_pace(game=kingdomino, now=now)
    minutes = PACE_WINDOW.total_seconds() / 60
    assert pace == {"matches": 2, "minutes": minutes, "per_minute": 2 / minutes}
    assert ladder_pace(game=Game.objects.get(slug="dice_king"), now=now)["matches"] == 0
