"""Matches: filtered list, detail with seats, replay frames, the requesting owner's bot logs with their
decision records, and the bundle to take home."""

from __future__ import annotations

from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import OpenApiExample, extend_schema, extend_schema_field
from rest_framework import serializers
from rest_framework.filters import OrderingFilter
from rest_framework.generics import ListAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from ladder.api.errors import error_responses
from ladder.api.filters import MatchFilter
from ladder.api.limits import MatchLimitsSerializer
from ladder.api.pagination import KeysetPagination
from ladder.core.rated_play import match_public_seed
from ladder.models import Match, Seat
from ladder.selectors import access
from ladder.selectors.matches import match_bundle, match_get, match_replay, matches_listed


class SeatSerializer(serializers.ModelSerializer):
    bot = serializers.CharField(source="bot.name")
    version = serializers.IntegerField(source="bot_version.number", help_text="The bot version that played.")

    class Meta:
        model = Seat
        fields = ("position", "bot", "bot_id", "version", "score", "place", "outcome", "reason", "time_used_ms",
                  "rating_before", "rating_after")


class MatchSerializer(serializers.ModelSerializer):
    game = serializers.CharField(source="game.slug")
    seats = SeatSerializer(many=True, read_only=True)
    limits = MatchLimitsSerializer(help_text="The sandbox limits the match is played under (every attempt).")
    rated = serializers.BooleanField(source="tournament.rated", default=False,
                                     help_text="Whether the match moves leaderboard ratings (ladder matches and "
                                               "tournaments staff marked rated; never a version comparison's).")
    tournament_id = serializers.IntegerField(allow_null=True, read_only=True,
                                             help_text="Its tournament; null for a version comparison's match.")
    comparison_id = serializers.IntegerField(allow_null=True, read_only=True,
                                             help_text="The version comparison it is a game of (readable by the "
                                                       "bot's owner); null for a tournament's match.")
    seed = serializers.SerializerMethodField(help_text="The seed of the game's chance. A rated match's seed is "
                                                       "secret (null) until the match finished.")

    deal = serializers.IntegerField(
        allow_null=True, read_only=True,
        help_text="In a duplicate round robin, the deal this match is one seat rotation of (its rotations share "
                  "the seed); in a version comparison, the pair it is one game of; null otherwise.")
    rules_version = serializers.IntegerField(
        allow_null=True, read_only=True,
        help_text="The version of the game's rules the match was scheduled under; its replay needs the same "
                  "version installed (GET .../replay/ answers 410 otherwise).")

    class Meta:
        model = Match
        fields = ("id", "game", "rules_version", "tournament_id", "comparison_id", "rated", "index", "deal", "players",
                  "seed", "options",
                  "limits", "status", "attempts", "failure_reason", "created_at", "started_at", "finished_at", "duration_s", "seats")

    @extend_schema_field(serializers.IntegerField(allow_null=True))
    def get_seed(self, match) -> int | None:
        return match_public_seed(match)

    def to_representation(self, match):
        data = super().to_representation(match)
        for seat in data["seats"]:
            seat["reason"] = access.seat_reason_public(match, seat["reason"])
        return data


_SEATS_EXAMPLE = [
    {"position": 0, "bot": "greedy", "bot_id": 7, "version": 2, "score": 41, "place": 1, "outcome": "ok",
     "reason": "", "time_used_ms": 812, "rating_before": 1500.0, "rating_after": 1524.0},
    {"position": 1, "bot": "random", "bot_id": 8, "version": 1, "score": 17, "place": 2, "outcome": "timeout",
     "reason": "the bot used its 30000 ms for the whole match", "time_used_ms": 30000, "rating_before": 1500.0,
     "rating_after": 1476.0},
]
_LIMITS_EXAMPLE = {"move_ms": 1000, "bank_ms": 20000, "match_ms": 30000, "memory_mb": 256, "log_bytes": 65536,
                   "cpu_seconds": 60, "max_processes": 16, "tmp_mb": 16, "start_ms": 5000,
                   "max_message_bytes": 1048576, "file_mb": 16, "max_open_files": 64}
_MATCH_EXAMPLE = {"id": 31, "game": "kingdomino", "rules_version": 2, "tournament_id": 3, "comparison_id": None,
                  "index": 0, "players": 2,
                  "seed": 8841305791, "options": {"harmony": True}, "limits": _LIMITS_EXAMPLE,
                  "status": "finished", "attempts": 1,
                  "failure_reason": "", "created_at": "2026-05-01T12:00:00Z", "started_at": "2026-05-01T12:00:02Z",
                  "finished_at": "2026-05-01T12:00:09Z", "duration_s": 6.8, "seats": _SEATS_EXAMPLE,
                  "rated": True}


class MatchListApi(ListAPIView):
    serializer_class = MatchSerializer
    # The one list that grows with every match played: pages by keyset, at the same cost at any depth.
    pagination_class = KeysetPagination
    filter_backends = (DjangoFilterBackend, OrderingFilter)
    filterset_class = MatchFilter
    ordering_fields = ("id", "created_at", "finished_at", "duration_s")
    ordering = ("-id",)

    def get_queryset(self):
        return matches_listed(user=self.request.user)

    @extend_schema(
        operation_id="matches_list",
        summary="List matches",
        description="Filter by game, bot, tournament, status and date (created_/finished_ after/before); order "
                    "by id, created_at, finished_at or duration_s (prefix - for descending; one field, then id "
                    "in the same direction; matches without a value of the field come last). Newest first. "
                    "Pages by cursor: follow next and previous (page numbers past 1 are refused), each page as "
                    "fast as the first however deep; count is exact up to 10000 matches and an estimate past "
                    "that (count_exact).",
        responses={200: MatchSerializer(many=True), **error_responses(400, 404)},
        examples=[OpenApiExample("matches", value={"count": 1, "count_exact": True, "next": None, "previous": None,
                                                   "results": [_MATCH_EXAMPLE]},
                                 response_only=True, status_codes=["200"])],
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)


class MatchDetailApi(APIView):
    @extend_schema(
        operation_id="matches_retrieve",
        summary="A match: its setup, status and seats with results and rating changes",
        responses={200: MatchSerializer, **error_responses(404)},
        examples=[OpenApiExample("match", value=_MATCH_EXAMPLE, response_only=True, status_codes=["200"])],
    )
    def get(self, request, match_id: int):
        return Response(MatchSerializer(match_get(match_id=match_id, user=request.user)).data)


class ReplaySerializer(serializers.Serializer):
    actions = serializers.ListField(child=serializers.JSONField(), help_text="Every action, in order.")
    frames = serializers.ListField(
        child=serializers.DictField(),
        help_text="The game's spectator view before the first action and after each one (len = actions + 1).",
    )


class MatchReplayApi(APIView):
    @extend_schema(
        operation_id="matches_replay",
        summary="A finished match's actions and the view after each one",
        description="Recomputed from (game, players, seed, options, actions). 409 until the match finished. "
                    "410 when the match was played under another rules_version of its game than the server's "
                    "(the rules changed since): its actions and result stay on GET /api/matches/{id}/. 409 "
                    "when the installed engine refuses its stored actions.",
        responses={200: ReplaySerializer, **error_responses(404, 409, 410)},
        examples=[OpenApiExample("replay", value={"actions": [{"pick": 3}], "frames": [{"round": 1},
                                                                                    {"round": 1}]},
                                 response_only=True, status_codes=["200"])],
    )
    def get(self, request, match_id: int):
        return Response(ReplaySerializer(match_replay(match_id=match_id, user=request.user)).data)


class DecisionSerializer(serializers.Serializer):
    step = serializers.IntegerField(help_text="Index into the match's actions of the action this decision "
                                              "produced (for the decision that forfeited: where the fallback's "
                                              "action went).")
    ms = serializers.IntegerField(help_text="Think time in milliseconds, as the clocks charged it.")
    log = serializers.CharField(allow_blank=True, help_text="What the bot printed while deciding, within the "
                                                            "seat's log cap; text cut by the cap is named by a "
                                                            "'[... N bytes of log dropped ...]' notice.")


class SeatLogSerializer(serializers.ModelSerializer):
    bot = serializers.CharField(source="bot.name")
    version = serializers.IntegerField(source="bot_version.number")
    # Read from the seat's packed logs (``Seat.log``), which is no column of its own.
    log = serializers.CharField(allow_blank=True, required=False)
    decisions = DecisionSerializer(
        many=True, read_only=True,
        help_text="One record per decision the bot took, in order. Output of its import and start is in log "
                  "only; the decisions a fallback took after a forfeit have no record.")

    class Meta:
        model = Seat
        fields = ("position", "bot", "bot_id", "version", "outcome", "reason", "log", "decisions")


class MatchLogsSerializer(serializers.Serializer):
    match = serializers.IntegerField()
    seats = SeatLogSerializer(many=True, help_text="Only the seats of your bots.")


class MatchLogsApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="matches_logs",
        summary="Your bots' logs in a match, decision by decision",
        description="What your bots printed, per seat (capped by the sandbox), and per decision: the step of "
                    "the match's actions it produced, its think time and what the bot printed while deciding. "
                    "Other users' logs are never shown: a match without a seat of yours answers 404 (and "
                    "so does a version comparison's match that is not yours). A rated match's logs are "
                    "withheld from everyone, staff included, for as long as its seed is: 409 until it "
                    "finished, and for a rotation of a rated duplicate deal until its tournament finished "
                    "(what a bot printed shows the deal its other rotations play).",
        responses={200: MatchLogsSerializer, **error_responses(401, 404, 409)},
        examples=[OpenApiExample("logs", value={"match": 31, "seats": [
            {"position": 0, "bot": "greedy", "bot_id": 7, "version": 2, "outcome": "ok", "reason": "",
             "log": "turn 1: picked domino 12\n",
             "decisions": [{"step": 0, "ms": 14, "log": "turn 1: picked domino 12\n"}]}]},
            response_only=True, status_codes=["200"])],
    )
    def get(self, request, match_id: int):
        seats = access.match_seats_with_logs(user=request.user, match_id=match_id)
        return Response(MatchLogsSerializer({"match": match_id, "seats": seats}).data)


class BundledCodeSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=("py", "zip"), help_text="bot.py source, or a zip with bot.py.")
    sha256 = serializers.CharField(help_text="SHA-256 of the code, in hex.")
    base64 = serializers.CharField(help_text="The code, in base64.")


class BundleSeatSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    bot = serializers.CharField()
    bot_id = serializers.IntegerField()
    version = serializers.IntegerField(help_text="The bot version that played.")
    outcome = serializers.CharField()
    score = serializers.IntegerField(allow_null=True)
    place = serializers.IntegerField(allow_null=True)
    code = BundledCodeSerializer(allow_null=True, help_text="The code of the version that played: only for "
                                                            "your own bots (staff: every bot), else null.")


class MatchBundleSerializer(serializers.Serializer):
    format = serializers.CharField(help_text='Always "bot-ladder-match".')
    format_version = serializers.IntegerField(help_text="The version of this shape (1).")
    match = serializers.IntegerField()
    game = serializers.CharField()
    rules_version = serializers.IntegerField(allow_null=True, help_text="The rules the match was played "
                                                                        "under; replaying needs the same.")
    players = serializers.IntegerField()
    seed = serializers.IntegerField()
    options = serializers.DictField()
    limits = MatchLimitsSerializer(help_text="Every sandbox limit the match was played under.")
    actions = serializers.ListField(child=serializers.JSONField(), help_text="Every action, in order.")
    seats = BundleSeatSerializer(many=True)


class MatchBundleApi(APIView):
    @extend_schema(
        operation_id="matches_bundle",
        summary="A finished match as a file to take home",
        description="Game, players, seed, options, rules_version, limits, actions and seats (bot, version, "
                    "outcome, score), as an attachment match-<id>.json. With the code of the seats' bot "
                    "versions you may read (your own bots; staff: all), in base64 with its kind and SHA-256; "
                    "others get the bundle without code. `manage.py play --from-bundle FILE` replays it in "
                    "the sandbox, or hands a seat to another bot from a step on. 409 until the match "
                    "finished (a rated duplicate deal's rotation: until its tournament finished, as its seed "
                    "is secret until then).",
        responses={200: MatchBundleSerializer, **error_responses(404, 409)},
        examples=[OpenApiExample("bundle", value={
            "format": "bot-ladder-match", "format_version": 1, "match": 31, "game": "kingdomino",
            "rules_version": 2, "players": 2, "seed": 8841305791, "options": {"harmony": True},
            "limits": _LIMITS_EXAMPLE, "actions": [{"pick": 3}],
            "seats": [{"position": 0, "bot": "greedy", "bot_id": 7, "version": 2, "outcome": "ok", "score": 41,
                       "place": 1, "code": {"kind": "py", "sha256": "9f2c...e1", "base64": "ZGVmIGFjdCguLi4="}},
                      {"position": 1, "bot": "random", "bot_id": 8, "version": 1, "outcome": "ok", "score": 17,
                       "place": 2, "code": None}]}, response_only=True, status_codes=["200"])],
    )
    def get(self, request, match_id: int):
        bundle = match_bundle(match_id=match_id, user=request.user)
        return Response(MatchBundleSerializer(bundle).data,
                        headers={"Content-Disposition": f'attachment; filename="match-{match_id}.json"'})
