"""Games and leaderboards."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from rest_framework import serializers
from rest_framework.response import Response
from rest_framework.views import APIView

from ladder import selectors
from ladder.models import Game


class GameListApi(APIView):
    class OutputSerializer(serializers.ModelSerializer):
        class Meta:
            model = Game
            fields = ["slug", "title", "min_players", "max_players", "default_options"]

    serializer_class = OutputSerializer

    def get(self, request):
        games = Game.objects.filter(available=True).order_by("id")
        return Response(self.OutputSerializer(games, many=True).data)


class LeaderboardApi(APIView):
    class OutputSerializer(serializers.Serializer):
        rank = serializers.IntegerField()
        bot = serializers.CharField()
        bot_id = serializers.IntegerField()
        owner = serializers.CharField()
        elo = serializers.FloatField()
        games = serializers.IntegerField()
        wins = serializers.IntegerField()
        draws = serializers.IntegerField()
        losses = serializers.IntegerField()

    serializer_class = OutputSerializer

    def get(self, request, game: str):
        game_row = get_object_or_404(Game, slug=game)
        return Response(self.OutputSerializer(selectors.leaderboard(game=game_row), many=True).data)
