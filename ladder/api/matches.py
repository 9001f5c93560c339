"""Matches: list, detail with seats, replay frames, the requesting owner's bot logs."""

from __future__ import annotations

import engines
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.pagination import PageNumberPagination
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from ladder import selectors
from ladder.models import Match, Seat


class SeatSerializer(serializers.ModelSerializer):
    bot = serializers.CharField(source="bot.name")
    version = serializers.IntegerField(source="bot_version.number")

    class Meta:
        model = Seat
        fields = ["position", "bot", "bot_id", "version", "score", "place", "outcome", "reason", "time_used_ms",
                  "rating_before", "rating_after"]


class MatchSerializer(serializers.ModelSerializer):
    game = serializers.CharField(source="game.slug")
    seats = SeatSerializer(many=True, read_only=True)

    class Meta:
        model = Match
        fields = ["id", "game", "tournament_id", "index", "players", "seed", "options", "status", "attempts",
                  "failure_reason", "started_at", "finished_at", "duration_s", "seats"]


def _match(match_id: int) -> Match:
    return get_object_or_404(
        Match.objects.select_related("game").prefetch_related("seats__bot", "seats__bot_version"), pk=match_id
    )


class MatchListApi(APIView):
    class FilterSerializer(serializers.Serializer):
        tournament = serializers.IntegerField(required=False)
        bot = serializers.IntegerField(required=False)
        game = serializers.CharField(required=False)
        status = serializers.ChoiceField(choices=Match.Status.choices, required=False)

    @extend_schema(parameters=[OpenApiParameter(n, str) for n in ("tournament", "bot", "game", "status")],
                   responses={200: MatchSerializer(many=True)})
    def get(self, request):
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        paginator = PageNumberPagination()
        matches = selectors.match_list(**filters.validated_data).prefetch_related("seats__bot_version")
        page = paginator.paginate_queryset(matches, request, view=self)
        return paginator.get_paginated_response(MatchSerializer(page, many=True).data)


class MatchDetailApi(APIView):
    @extend_schema(responses={200: MatchSerializer})
    def get(self, request, match_id: int):
        return Response(MatchSerializer(_match(match_id)).data)


class MatchReplayApi(APIView):
    @extend_schema(responses={200: dict})
    def get(self, request, match_id: int):
        match = _match(match_id)
        if match.status != Match.Status.FINISHED:
            return Response({"detail": f"match {match_id} is {match.status}; replays exist once it finished"},
                            status=409)
        frames = engines.replay(match.game.slug, match.players, match.seed, match.options, match.actions)
        return Response({"actions": match.actions, "frames": frames})


class MatchLogsApi(APIView):
    permission_classes = [IsAuthenticated]

    @extend_schema(responses={200: dict})
    def get(self, request, match_id: int):
        match = _match(match_id)
        seats = [s for s in match.seats.all() if request.user.is_staff or s.bot.owner_id == request.user.id]
        return Response({"seats": [{"position": s.position, "bot": s.bot.name, "log": s.log} for s in seats]})
