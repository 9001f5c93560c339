"""Bots: upload, list, detail, versions, code (owner only), (de)activation, rating history, head-to-head.

Who may do what is decided in ``ladder.selectors.access``; views only call it.
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpResponse
from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiResponse, extend_schema, extend_schema_field
from rest_framework import serializers, status
from rest_framework.filters import OrderingFilter
from rest_framework.generics import ListAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from ladder.api.errors import error_responses
from ladder.api.filters import BotFilter
from ladder.api.parsers import FormParser, MultiPartParser
from ladder.core.errors import ServiceError
from ladder.models import Bot, BotVersion, RatingChange
from ladder.selectors import access
from ladder.selectors.bots import bot_detail_get, bot_get, bot_head_to_head, bot_rating_history, bots_listed
from ladder.selectors.leaderboards import rating_is_provisional
from ladder.services.uploads.bots import bot_create, bot_set_active, bot_version_create

_UPLOAD_HELP = ("bot.py (a Python file defining act(observation, legal_actions) or a class Bot) or a .zip "
                "with bot.py at its root. It is stored as a pending version; a worker then compiles it and "
                "plays a smoke match against the game's random bot, and accepts or rejects it.")
_UPLOAD_ERRORS = ("202: the upload is stored as a pending version, and a worker compiles it and plays its smoke "
                  "match against the game's random bot within seconds: poll GET /api/bots/{id}/ until the "
                  "version's validation_status is `accepted` (it plays from then on) or `rejected` "
                  "(validation_message says what to fix, e.g. `syntax error in bot.py, line 3: invalid "
                  "syntax`; validation_log, shown to you only, holds the end of what your bot printed). "
                  "Refused at once with a 400 (nothing stored), by checks that run none of its code: e.g. "
                  "`the zip has no bot.py at its root`, `the zip unpacks to more than ... bytes: this looks "
                  "like a zip bomb`, `bot.py is not Python source (it contains NUL bytes)`, `'x' is a file and "
                  "also a folder (of 'x/y.py'): rename one`, `'./a.py': '.' is not allowed in zip paths`. "
                  "Throttled per user (scope `uploads`).")
_VERSION_EXAMPLE = {"number": 1, "sha256": "3f2a...e9", "size": 64, "kind": "py", "validation_status": "accepted",
                    "validation_message": "smoke match against the random bot: finished in 48 actions, place 1, "
                                          "score 31", "validation_log": None,
                    "validated_at": "2026-05-01T12:00:03Z", "created_at": "2026-05-01T12:00:00Z"}
_RATING_EXAMPLE = {"game": "kingdomino", "elo": 1500.0, "games": 0, "wins": 0, "draws": 0, "losses": 0,
                   "provisional": True}
_BOT_EXAMPLE = {"id": 7, "name": "greedy", "game": "kingdomino", "owner": "ada", "active": True,
                "created_at": "2026-05-01T12:00:00Z", "current_version": _VERSION_EXAMPLE,
                "versions": [_VERSION_EXAMPLE], "ratings": [_RATING_EXAMPLE],
                "ladder_status": {"state": "playing", "message": "Plays on the Kingdomino ladder: each round pairs it "
                                                                 "with bots of other owners close to its rating."},
                "ladder_games": {"last_hour": 42, "last_day": 960}}


def _bot_example(name: str, status_code: str = "200", **changes) -> OpenApiExample:
    return OpenApiExample(name, value={**_BOT_EXAMPLE, **changes}, response_only=True, status_codes=[status_code])


class VersionSerializer(serializers.ModelSerializer):
    validation_status = serializers.ChoiceField(
        choices=BotVersion.Validation.choices, read_only=True,
        help_text="pending until a worker has compiled the upload and played its smoke match; then accepted "
                  "(it plays) or rejected (validation_message says what to fix).")
    validation_log = serializers.SerializerMethodField(
        help_text="The tail of a failed smoke match's log (what the bot printed): to its owner only, "
                  "null for everyone else.")

    class Meta:
        model = BotVersion
        fields = ("number", "sha256", "size", "kind", "validation_status", "validation_message", "validation_log",
                  "validated_at", "created_at")

    def get_validation_log(self, version) -> str | None:
        return version.validation_log if self.context.get("owner_view") else None


class BotSerializer(serializers.ModelSerializer):
    game = serializers.CharField(source="game.slug")
    owner = serializers.CharField(source="owner.username")
    elo = serializers.FloatField(allow_null=True, help_text="The bot's Elo in its game.")
    current_version = serializers.IntegerField(allow_null=True, help_text="Newest accepted version number.")

    class Meta:
        model = Bot
        fields = ("id", "name", "game", "owner", "active", "elo", "current_version", "created_at")


class BotRatingSerializer(serializers.Serializer):
    game = serializers.CharField(source="game.slug")
    elo = serializers.FloatField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    provisional = serializers.SerializerMethodField(
        help_text="Still in the first games, where K is larger and the rating moves fast."
    )

    def get_provisional(self, rating) -> bool:
        return rating_is_provisional(rating.games)


class LadderStatusSerializer(serializers.Serializer):
    state = serializers.ChoiceField(
        choices=["playing", "off", "unavailable", "inactive", "no_accepted_version", "own_bots_only", "too_few_bots"],
        help_text="playing: the ladder pairs it. own_bots_only: its only possible opponents are its owner's other "
                  "bots (or bots of too few owners for a match), and a rated match never seats two bots of one "
                  "owner. The others say why it does not play yet: no ladder on this server, its game no longer "
                  "installed, inactive, no accepted version, too few bots in the game.")
    message = serializers.CharField(help_text="The same in a sentence, with what would change it.")


class LadderGamesSerializer(serializers.Serializer):
    last_hour = serializers.IntegerField(help_text="Ladder games scheduled for the bot in the last hour.")
    last_day = serializers.IntegerField(help_text="Ladder games scheduled for the bot in the last 24 hours.")


class BotDetailSerializer(serializers.ModelSerializer):
    game = serializers.CharField(source="game.slug")
    owner = serializers.CharField(source="owner.username")
    current_version = serializers.SerializerMethodField(help_text="The newest accepted version: the one that plays.")
    versions = serializers.SerializerMethodField()
    ratings = BotRatingSerializer(many=True, read_only=True)
    ladder_status = LadderStatusSerializer(
        read_only=True, help_text="Whether the game's ladder pairs the bot (rated games), and if not why.")
    ladder_games = LadderGamesSerializer(
        read_only=True, help_text="How many ladder games it had lately, counted in ten-minute steps (a step that "
                                  "began up to ten minutes before the hour or day counts whole).")

    class Meta:
        model = Bot
        fields = ("id", "name", "game", "owner", "active", "created_at", "current_version", "versions", "ratings",
                  "ladder_status", "ladder_games")

    @extend_schema_field(VersionSerializer(many=True))
    def get_versions(self, bot):
        return VersionSerializer(bot.versions.all(), many=True, context=self.context).data

    @extend_schema_field(VersionSerializer(allow_null=True))
    def get_current_version(self, bot):
        current = bot.current_version  # set by bot_detail_get from its prefetched versions
        return VersionSerializer(current, context=self.context).data if current else None


def _bot_detail(request, bot_id: int) -> dict:
    """The detail of a bot as ``request``'s user may see it (the owner also sees rejected uploads' logs)."""
    bot = bot_detail_get(bot_id=bot_id)
    owner_view = access.bot_private_readable(user=request.user, bot=bot)
    return BotDetailSerializer(bot, context={"owner_view": owner_view}).data


def _upload_bytes(request) -> tuple[bytes, str]:
    """The uploaded file's bytes and name. Oversized uploads are refused from their declared size, before
    their bytes are read into memory."""
    upload = request.FILES.get("code")
    if upload is None:
        raise ServiceError("attach the bot as a file field named 'code' (bot.py or a .zip)", field="code")
    limit = settings.BOTS_MAX_UPLOAD_BYTES
    if upload.size is not None and upload.size > limit:
        raise ServiceError(f"the upload is {upload.size} bytes; at most {limit} are allowed: shrink the bot "
                           "(leave out data files it does not need)", field="code")
    return upload.read(limit + 1), upload.name or "bot.py"


class BotListCreateApi(ListAPIView):
    serializer_class = BotSerializer
    parser_classes = (MultiPartParser, FormParser)
    filter_backends = (DjangoFilterBackend, OrderingFilter)
    filterset_class = BotFilter
    ordering_fields = ("id", "name", "created_at", "elo")
    ordering = ("id",)

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "BotUpload"

        game = serializers.CharField(max_length=40, help_text="Game slug (GET /api/games/).")
        name = serializers.CharField(max_length=64, help_text="Unique per game: letters, digits, _ . -")
        code = serializers.FileField(allow_empty_file=True, help_text=_UPLOAD_HELP)

    def get_queryset(self):
        return bots_listed()

    @extend_schema(
        operation_id="bots_list",
        summary="List bots",
        description="Filter by game, owner, name, active; order by id, name, created_at or elo "
                    "(prefix - for descending).",
        responses={200: BotSerializer(many=True), **error_responses(400, 404)},
        examples=[OpenApiExample("bots", value={"count": 1, "next": None, "previous": None, "results": [
            {"id": 7, "name": "greedy", "game": "kingdomino", "owner": "ada", "active": True, "elo": 1512.5,
             "current_version": 2, "created_at": "2026-05-01T12:00:00Z"}]}, response_only=True,
            status_codes=["200"])],
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="bots_create",
        summary="Upload a new bot (version 1)",
        description=_UPLOAD_ERRORS,
        request={"multipart/form-data": InputSerializer},
        responses={202: BotDetailSerializer, **error_responses(400, 401, 429)},
        examples=[
            OpenApiExample("upload", value={"game": "kingdomino", "name": "greedy", "code": "<bot.py file>"},
                           request_only=True, media_type="multipart/form-data"),
            _bot_example("pending", "202", current_version=None,
                         versions=[{**_VERSION_EXAMPLE, "validation_status": "pending", "validated_at": None,
                                    "validation_message": "waiting for a worker to compile it and play its "
                                                          "smoke match"}]),
        ],
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        code, filename = _upload_bytes(request)
        bot = bot_create(owner=request.user, game_slug=data.validated_data["game"],
                         name=data.validated_data["name"], data=code, filename=filename)
        return Response(_bot_detail(request, bot.id), status=status.HTTP_202_ACCEPTED)


class BotDetailApi(APIView):
    @extend_schema(
        operation_id="bots_retrieve",
        summary="A bot with its versions and its rating",
        responses={200: BotDetailSerializer, **error_responses(404)},
        examples=[_bot_example("bot")],
    )
    def get(self, request, bot_id: int):
        return Response(_bot_detail(request, bot_id))


class BotVersionListCreateApi(ListAPIView):
    serializer_class = VersionSerializer
    parser_classes = (MultiPartParser, FormParser)
    filter_backends = (OrderingFilter,)
    ordering_fields = ("number", "created_at")
    ordering = ("number",)

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "BotVersionUpload"

        code = serializers.FileField(allow_empty_file=True, help_text=_UPLOAD_HELP)

    def get_queryset(self):
        bot = bot_get(bot_id=self.kwargs["bot_id"])
        return BotVersion.objects.filter(bot=bot).defer("code")

    @extend_schema(
        operation_id="bots_versions_list",
        summary="A bot's versions (without their code)",
        responses={200: VersionSerializer(many=True), **error_responses(404)},
        examples=[OpenApiExample("versions", value={"count": 1, "next": None, "previous": None,
                                                    "results": [_VERSION_EXAMPLE]},
                                 response_only=True, status_codes=["200"])],
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="bots_versions_create",
        summary="Upload a new version of your bot (it keeps its rating)",
        description="Owner only: another user's bot answers 404. The newest accepted version plays from the "
                    "next scheduled match on. " + _UPLOAD_ERRORS,
        request={"multipart/form-data": InputSerializer},
        responses={202: VersionSerializer, **error_responses(400, 401, 404, 429)},
        examples=[
            OpenApiExample("upload", value={"code": "<bot.py or bot.zip file>"}, request_only=True,
                           media_type="multipart/form-data"),
            OpenApiExample("pending", value={**_VERSION_EXAMPLE, "number": 2, "validation_status": "pending",
                                             "validated_at": None}, response_only=True, status_codes=["202"]),
        ],
    )
    def post(self, request, bot_id: int):
        bot = access.bot_for_change(user=request.user, bot_id=bot_id)
        self.InputSerializer(data=request.data).is_valid(raise_exception=True)
        code, filename = _upload_bytes(request)
        version = bot_version_create(bot=bot, data=code, filename=filename)
        return Response(VersionSerializer(version, context={"owner_view": True}).data,
                        status=status.HTTP_202_ACCEPTED)


class BotVersionCodeApi(APIView):
    @extend_schema(
        operation_id="bots_versions_code",
        summary="Download a version's code (owner only)",
        description="The bytes as uploaded: bot.py or the zip. Anyone but the owner (and staff) gets 404.",
        responses={(200, "application/octet-stream"): OpenApiResponse(OpenApiTypes.BINARY, description="The code."),
                   **error_responses(404)},
    )
    def get(self, request, bot_id: int, number: int):
        version = access.bot_version_for_download(user=request.user, bot_id=bot_id, number=number)
        filename = "bot.zip" if version.kind == BotVersion.Kind.ZIP else "bot.py"
        response = HttpResponse(bytes(version.code), content_type="application/octet-stream")
        response["Content-Disposition"] = f'attachment; filename="{filename}"'
        return response


class _BotActivationApi(APIView):
    permission_classes = (IsAuthenticated,)
    active: bool

    def post(self, request, bot_id: int):
        bot = access.bot_for_change(user=request.user, bot_id=bot_id)
        bot_set_active(bot=bot, active=self.active, by=request.user)
        return Response(_bot_detail(request, bot.id))


class BotDeactivateApi(_BotActivationApi):
    active = False

    @extend_schema(
        operation_id="bots_deactivate",
        summary="Deactivate your bot",
        description="It leaves the ladder and cannot enter new tournaments; its history and rating stay. "
                    "Matches already scheduled still play. Owner only: another user's bot answers 404. "
                    "Throttled per user with reactivations (scope `activations`): 429 past it.",
        request=None,
        responses={200: BotDetailSerializer, **error_responses(401, 404, 429)},
        examples=[_bot_example("deactivated", active=False, ladder_status={
            "state": "inactive", "message": "No ladder games: the bot is inactive. Reactivate it to play again."})],
    )
    def post(self, request, bot_id: int):
        return super().post(request, bot_id)


class BotReactivateApi(_BotActivationApi):
    active = True

    @extend_schema(
        operation_id="bots_reactivate",
        summary="Reactivate your bot",
        description="It plays on the ladder and may enter tournaments again. Owner only. Throttled per user "
                    "with deactivations (scope `activations`): 429 past it.",
        request=None,
        responses={200: BotDetailSerializer, **error_responses(401, 404, 429)},
        examples=[_bot_example("reactivated")],
    )
    def post(self, request, bot_id: int):
        return super().post(request, bot_id)


class RatingPointSerializer(serializers.ModelSerializer):
    match = serializers.IntegerField(source="match_id")
    version = serializers.IntegerField(allow_null=True, help_text="The bot version that played.")
    finished_at = serializers.DateTimeField(allow_null=True)

    class Meta:
        model = RatingChange
        fields = ("match", "version", "before", "after", "delta", "finished_at")


class BotRatingHistoryApi(ListAPIView):
    serializer_class = RatingPointSerializer
    filter_backends = ()

    def get_queryset(self):
        return bot_rating_history(bot=bot_get(bot_id=self.kwargs["bot_id"]))

    @extend_schema(
        operation_id="bots_rating_history",
        summary="A bot's Elo after each rated match, oldest first (for charts)",
        responses={200: RatingPointSerializer(many=True), **error_responses(404)},
        examples=[OpenApiExample("history", value={"count": 2, "next": None, "previous": None, "results": [
            {"match": 11, "version": 1, "before": 1500.0, "after": 1524.0, "delta": 24.0,
             "finished_at": "2026-05-01T12:03:00Z"},
            {"match": 14, "version": 1, "before": 1524.0, "after": 1502.9, "delta": -21.1,
             "finished_at": "2026-05-01T12:05:00Z"}]}, response_only=True, status_codes=["200"])],
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class BotHeadToHeadApi(APIView):
    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "HeadToHead"

        bot_id = serializers.IntegerField()
        bot = serializers.CharField()
        opponent_id = serializers.IntegerField()
        opponent = serializers.CharField()
        wins = serializers.IntegerField()
        draws = serializers.IntegerField()
        losses = serializers.IntegerField()
        games = serializers.IntegerField()
        score = serializers.FloatField(help_text="Wins plus half the draws.")
        match_ids = serializers.ListField(child=serializers.IntegerField(), help_text="Newest first.")

    @extend_schema(
        operation_id="bots_head_to_head",
        summary="Results of one bot against another",
        description="Over every finished match where both sat; in a multiplayer match their places decide "
                    "(a forfeit loses).",
        responses={200: OutputSerializer, **error_responses(400, 404)},
        examples=[OpenApiExample("h2h", value={"bot_id": 7, "bot": "greedy", "opponent_id": 8,
                                               "opponent": "random", "wins": 9, "draws": 0, "losses": 1,
                                               "games": 10, "score": 9.0, "match_ids": [31, 30, 22]},
                                 response_only=True, status_codes=["200"])],
    )
    def get(self, request, bot_id: int, opponent_id: int):
        bot, opponent = bot_get(bot_id=bot_id), bot_get(bot_id=opponent_id)
        record = bot_head_to_head(bot=bot, opponent=opponent)
        body = {"bot_id": bot.id, "bot": bot.name, "opponent_id": opponent.id, "opponent": opponent.name, **record}
        return Response(self.OutputSerializer(body).data)
