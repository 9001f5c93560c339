"""Tournaments: create a round robin, read its progress and standings."""

from __future__ import annotations

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.pagination import PageNumberPagination
from rest_framework.response import Response
from rest_framework.views import APIView

from ladder.models import Tournament
from ladder.services.tournaments import tournament_create, tournament_progress, tournament_standings


class TournamentSerializer(serializers.ModelSerializer):
    game = serializers.CharField(source="game.slug")
    created_by = serializers.CharField(source="created_by.username", default=None)
    bots = serializers.PrimaryKeyRelatedField(many=True, read_only=True)

    class Meta:
        model = Tournament
        fields = ["id", "name", "game", "kind", "status", "players_per_match", "games_per_pairing", "options",
                  "seed", "created_by", "bots", "created_at", "started_at", "finished_at"]


class TournamentListCreateApi(APIView):
    class InputSerializer(serializers.Serializer):
        game = serializers.CharField()
        name = serializers.CharField(max_length=100)
        bots = serializers.ListField(child=serializers.IntegerField(), allow_empty=False)
        players_per_match = serializers.IntegerField(min_value=1, max_value=10)
        games_per_pairing = serializers.IntegerField(min_value=1, max_value=1000, default=1)
        options = serializers.JSONField(required=False, default=dict)
        seed = serializers.IntegerField(required=False, min_value=0, max_value=(1 << 62))

    @extend_schema(responses={200: TournamentSerializer(many=True)})
    def get(self, request):
        paginator = PageNumberPagination()
        tournaments = Tournament.objects.select_related("game", "created_by").prefetch_related("bots")
        page = paginator.paginate_queryset(tournaments.order_by("-id"), request, view=self)
        return paginator.get_paginated_response(TournamentSerializer(page, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: TournamentSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        tournament = tournament_create(
            created_by=request.user,
            game_slug=values["game"],
            name=values["name"],
            bot_ids=values["bots"],
            players_per_match=values["players_per_match"],
            games_per_pairing=values["games_per_pairing"],
            options=values["options"],
            seed=values.get("seed"),
        )
        return Response(_detail(tournament), status=status.HTTP_201_CREATED)


def _detail(tournament: Tournament) -> dict:
    return {
        **TournamentSerializer(tournament).data,
        "progress": tournament_progress(tournament=tournament).to_json(),
        "standings": tournament_standings(tournament=tournament),
    }


class TournamentDetailApi(APIView):
    @extend_schema(responses={200: dict})
    def get(self, request, tournament_id: int):
        tournament = get_object_or_404(
            Tournament.objects.select_related("game", "created_by").prefetch_related("bots"), pk=tournament_id
        )
        return Response(_detail(tournament))
