"""Bots: upload, list, detail, new versions, code (owner only)."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.pagination import PageNumberPagination
from rest_framework.parsers import FormParser, MultiPartParser
from rest_framework.response import Response
from rest_framework.views import APIView

from ladder import selectors
from ladder.models import Bot, BotVersion
from ladder.services.bots import bot_create, bot_current_version, bot_version_create


class VersionSerializer(serializers.ModelSerializer):
    class Meta:
        model = BotVersion
        fields = ["number", "sha256", "size", "kind", "validation_status", "validation_message", "created_at"]


class BotOutputSerializer(serializers.ModelSerializer):
    game = serializers.CharField(source="game.slug")
    owner = serializers.CharField(source="owner.username")

    class Meta:
        model = Bot
        fields = ["id", "name", "game", "owner", "active", "created_at"]


class BotDetailSerializer(BotOutputSerializer):
    current_version = serializers.SerializerMethodField()
    versions = VersionSerializer(many=True, read_only=True)
    ratings = serializers.SerializerMethodField()

    class Meta(BotOutputSerializer.Meta):
        fields = BotOutputSerializer.Meta.fields + ["current_version", "versions", "ratings"]

    def get_current_version(self, bot) -> dict | None:
        version = bot_current_version(bot=bot)
        return VersionSerializer(version).data if version else None

    def get_ratings(self, bot) -> list[dict]:
        return [
            {"game": r.game.slug, "elo": r.elo, "games": r.games, "wins": r.wins, "draws": r.draws,
             "losses": r.losses}
            for r in bot.ratings.select_related("game")
        ]


def _upload(request) -> tuple[bytes, str]:
    upload = request.FILES.get("code")
    if upload is None:
        raise serializers.ValidationError({"code": "attach the bot as a file field named 'code' (bot.py or .zip)"})
    return upload.read(), upload.name or "bot.py"


class BotListCreateApi(APIView):
    parser_classes = [MultiPartParser, FormParser]

    class FilterSerializer(serializers.Serializer):
        game = serializers.CharField(required=False)
        owner = serializers.CharField(required=False)

    class InputSerializer(serializers.Serializer):
        game = serializers.CharField()
        name = serializers.CharField(max_length=64)
        code = serializers.FileField()

    @extend_schema(parameters=[OpenApiParameter("game", str), OpenApiParameter("owner", str)],
                   responses={200: BotOutputSerializer(many=True)})
    def get(self, request):
        filters = self.FilterSerializer(data=request.query_params)
        filters.is_valid(raise_exception=True)
        paginator = PageNumberPagination()
        page = paginator.paginate_queryset(selectors.bot_list(**filters.validated_data), request, view=self)
        return paginator.get_paginated_response(BotOutputSerializer(page, many=True).data)

    @extend_schema(request=InputSerializer, responses={201: BotDetailSerializer})
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        code, filename = _upload(request)
        bot = bot_create(owner=request.user, game_slug=data.validated_data["game"],
                         name=data.validated_data["name"], data=code, filename=filename)
        return Response(BotDetailSerializer(bot).data, status=status.HTTP_201_CREATED)


class BotDetailApi(APIView):
    @extend_schema(responses={200: BotDetailSerializer})
    def get(self, request, bot_id: int):
        bot = get_object_or_404(Bot.objects.select_related("game", "owner"), pk=bot_id)
        return Response(BotDetailSerializer(bot).data)


class BotVersionCreateApi(APIView):
    parser_classes = [MultiPartParser, FormParser]

    class InputSerializer(serializers.Serializer):
        code = serializers.FileField()

    @extend_schema(request=InputSerializer, responses={201: VersionSerializer})
    def post(self, request, bot_id: int):
        bot = get_object_or_404(Bot.objects.select_related("game"), pk=bot_id)
        if bot.owner_id != request.user.id:
            raise PermissionDenied("only the bot's owner may upload new versions")
        code, filename = _upload(request)
        version = bot_version_create(bot=bot, data=code, filename=filename)
        return Response(VersionSerializer(version).data, status=status.HTTP_201_CREATED)


class BotVersionCodeApi(APIView):
    @extend_schema(responses={(200, "application/octet-stream"): bytes})
    def get(self, request, bot_id: int, number: int):
        version = get_object_or_404(BotVersion.objects.select_related("bot"), bot_id=bot_id, number=number)
        if not (request.user.is_authenticated and (request.user.is_staff or version.bot.owner_id == request.user.id)):
            raise PermissionDenied("only the bot's owner may read its code")
        filename = "bot.zip" if version.kind == BotVersion.Kind.ZIP else "bot.py"
        response = HttpResponse(bytes(version.code), content_type="application/octet-stream")
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response
