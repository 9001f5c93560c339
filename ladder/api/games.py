"""Games and their leaderboards.

Both answer plain lists (docs/architecture.md, "Interfaces"): there are a handful of games, and a leaderboard
is read whole, ranked, to draw the table. Each leaderboard row says how sure the board is of it (its interval,
rank range and ``p_above``: ``ladder.ratings.confidence``).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from ladder.api.errors import error_responses
from ladder.models import Game
from ladder.selectors.games import games_available
from ladder.selectors.leaderboards import leaderboard_game, leaderboard_ranked


class GameListApi(APIView):
    class OutputSerializer(serializers.ModelSerializer):
        class Meta:
            ref_name = "Game"
            model = Game
            fields = ("slug", "title", "min_players", "max_players", "default_options")

    @extend_schema(
        operation_id="games_list",
        summary="The games bots can play",
        responses={200: OutputSerializer(many=True)},
        examples=[OpenApiExample("games", value=[{
            "slug": "kingdomino", "title": "Kingdomino", "min_players": 2, "max_players": 4,
            "default_options": {"middle_kingdom": False, "harmony": False, "mighty_duel": False, "dynasty": False,
                                "initial_pick": "random_kings"}}], response_only=True, status_codes=["200"])],
    )
    def get(self, request):
        games = games_available()
        return Response(self.OutputSerializer(games, many=True).data)


class LeaderboardEloIntervalSerializer(serializers.Serializer):
    low = serializers.FloatField(help_text="Lower end of the 95% interval of the bot's strength, in Elo points.")
    high = serializers.FloatField(help_text="Upper end of the 95% interval.")
    estimate = serializers.FloatField(
        help_text="Its centre: the Bradley-Terry rating fitted to every rated game at once, placed so that the "
                  "game's bots average their average online Elo. The online Elo may lie outside the interval."
    )


class LeaderboardRankRangeSerializer(serializers.Serializer):
    best = serializers.IntegerField(help_text="Best rank the bot may truly hold (95% range among this board).")
    worst = serializers.IntegerField(help_text="Worst rank the bot may truly hold.")


class LeaderboardRowSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="1 is best; equal Elo shares a rank.")
    bot = serializers.CharField(source="bot.name")
    bot_id = serializers.IntegerField()
    owner = serializers.CharField()
    elo = serializers.FloatField(help_text="Online Elo (initial 1500).")
    games = serializers.IntegerField()
    wins = serializers.IntegerField(help_text="Sole first places.")
    draws = serializers.IntegerField(help_text="Shared first places.")
    losses = serializers.IntegerField(help_text="Any other place, and forfeits.")
    provisional = serializers.BooleanField(
        help_text="Still in the first games, where K is larger and the rating moves fast."
    )
    elo_interval = LeaderboardEloIntervalSerializer(
        help_text="Where the bot's strength lies (95%), from a Bradley-Terry fit over the game's rated history."
    )
    rank_range = LeaderboardRankRangeSerializer(help_text="The ranks the bot may truly hold (95%).")
    p_above = serializers.FloatField(
        allow_null=True,
        help_text="Probability that the bot is truly stronger than the next row's (from the same fit); null on the "
                  "last row. At 0.95 or more the site calls the order of the two rows settled.",
    )


class LeaderboardApi(APIView):
    @extend_schema(
        operation_id="leaderboards_retrieve",
        summary="A game's Elo leaderboard (active bots), with how sure each row is",
        responses={200: LeaderboardRowSerializer(many=True), **error_responses(404)},
        examples=[OpenApiExample("board", value=[
            {"rank": 1, "bot": "greedy", "bot_id": 3, "owner": "ada", "elo": 1563.2, "games": 40, "wins": 31,
             "draws": 1, "losses": 8, "provisional": False,
             "elo_interval": {"low": 1547.2, "high": 1677.2, "estimate": 1612.2}, "rank_range": {"best": 1, "worst": 1},
             "p_above": 0.9996},
            {"rank": 2, "bot": "random", "bot_id": 4, "owner": "bob", "elo": 1436.8, "games": 40, "wins": 8,
             "draws": 1, "losses": 31, "provisional": False,
             "elo_interval": {"low": 1322.8, "high": 1452.8, "estimate": 1387.8}, "rank_range": {"best": 2, "worst": 2},
             "p_above": None},
        ], response_only=True, status_codes=["200"])],
    )
    def get(self, request, game: str):
        board = leaderboard_ranked(game=leaderboard_game(slug=game))
        return Response(LeaderboardRowSerializer(board, many=True).data)
