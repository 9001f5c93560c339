"""Games and their leaderboards.

Both answer plain lists (DESIGN.md section 7): there are a handful of games, and a leaderboard is read
whole, ranked, to draw the table.
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


class LeaderboardApi(APIView):
    @extend_schema(
        operation_id="leaderboards_retrieve",
        summary="A game's Elo leaderboard (active bots)",
        responses={200: LeaderboardRowSerializer(many=True), **error_responses(404)},
        examples=[OpenApiExample("board", value=[
            {"rank": 1, "bot": "greedy", "bot_id": 3, "owner": "ada", "elo": 1563.2, "games": 40, "wins": 31,
             "draws": 1, "losses": 8, "provisional": False},
            {"rank": 2, "bot": "random", "bot_id": 4, "owner": "bob", "elo": 1436.8, "games": 40, "wins": 8,
             "draws": 1, "losses": 31, "provisional": False},
        ], response_only=True, status_codes=["200"])],
    )
    def get(self, request, game: str):
        board = leaderboard_ranked(game=leaderboard_game(slug=game))
        return Response(LeaderboardRowSerializer(board, many=True).data)
