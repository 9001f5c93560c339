"""Tournaments: create a round robin, list them, read progress, standings (with the order-independent
Bradley-Terry ratings and their 95% intervals) and the crosstable."""

from __future__ import annotations

from django_filters.rest_framework import DjangoFilterBackend
from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.filters import OrderingFilter
from rest_framework.generics import ListAPIView
from rest_framework.response import Response
from rest_framework.views import APIView

from ladder.api.errors import error_responses
from ladder.api.filters import TournamentFilter
from ladder.api.limits import TournamentLimitsInputSerializer, TournamentLimitsSerializer
from ladder.models import Tournament
from ladder.selectors.tournaments import (
    tournament_crosstable,
    tournament_deals,
    tournament_get,
    tournament_progress,
    tournament_standings,
    tournaments_with_entrants,
)
from ladder.services.tournaments.round_robins import tournament_create

_SEED_MAX = (1 << 62)


class TournamentSerializer(serializers.ModelSerializer):
    game = serializers.CharField(source="game.slug")
    created_by = serializers.CharField(source="created_by.username", default=None, allow_null=True)
    bots = serializers.PrimaryKeyRelatedField(many=True, read_only=True)
    limits = TournamentLimitsSerializer(help_text="The sandbox limits this tournament overrides; the others come "
                                                  "from the server's settings for its game. Each match shows all "
                                                  "the limits it is played under.")
    rated = serializers.BooleanField(help_text="Whether its matches move leaderboard ratings: the ladder, and "
                                               "round robins staff marked rated. A user's round robin is "
                                               "unrated: its own standings only.")
    duplicate = serializers.BooleanField(help_text="Whether every deal (seed) is played once in each seat "
                                                   "rotation of its bots; games_per_pairing then counts deals.")
    seed = serializers.IntegerField(allow_null=True, help_text="An unrated tournament's seed, from which its "
                                                                "matches' seeds derive. Null for a rated one: "
                                                                "each of its matches draws a secret seed.")

    class Meta:
        model = Tournament
        fields = ("id", "name", "game", "kind", "rated", "duplicate", "status", "players_per_match",
                  "games_per_pairing", "options", "limits", "seed", "created_by", "bots", "created_at", "started_at",
                  "finished_at")


class ProgressSerializer(serializers.Serializer):
    total = serializers.IntegerField()
    queued = serializers.IntegerField()
    running = serializers.IntegerField()
    finished = serializers.IntegerField()
    failed = serializers.IntegerField()
    started_at = serializers.DateTimeField(allow_null=True)
    estimated_finish = serializers.DateTimeField(allow_null=True)


class StandingSerializer(serializers.Serializer):
    rank = serializers.IntegerField(help_text="By points, then pairwise wins, then fewest losses; ties share.")
    bot_id = serializers.IntegerField()
    bot = serializers.CharField()
    games = serializers.IntegerField(help_text="Matches played.")
    points = serializers.FloatField(help_text="Points by place: N-1 for first ... 0 for last in an N-player match.")
    wins = serializers.IntegerField(help_text="Pairwise wins against each opponent at the table.")
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    forfeits = serializers.IntegerField()
    average_score = serializers.FloatField(help_text="The game's own points, averaged per match.")
    rating = serializers.FloatField(help_text="Order-independent Bradley-Terry rating on the Elo scale, fitted "
                                              "to this tournament only (the field averages 1500).")
    rating_stderr = serializers.FloatField()
    rating_low = serializers.FloatField(help_text="Lower end of the 95% interval.")
    rating_high = serializers.FloatField(help_text="Upper end of the 95% interval.")


class DealBotSerializer(serializers.Serializer):
    bot_id = serializers.IntegerField()
    bot = serializers.CharField()
    points = serializers.FloatField(help_text="The bot's points (as in the standings) summed over the deal's "
                                              "finished rotations.")


class DealSerializer(serializers.Serializer):
    deal = serializers.IntegerField(help_text="The deal's number in the tournament: one pairing's one seed.")
    games = serializers.IntegerField(help_text="Rotations of the deal finished so far.")
    rotations = serializers.IntegerField(help_text="Rotations the deal has: one per seat (players per match).")
    complete = serializers.BooleanField(help_text="Whether every rotation finished, so each bot met the deal "
                                                  "from every seat.")
    bots = DealBotSerializer(many=True, help_text="The pairing's bots, by id.")


class TournamentDetailSerializer(TournamentSerializer):
    progress = ProgressSerializer()
    standings = StandingSerializer(many=True)
    deals = DealSerializer(many=True, help_text="A duplicate round robin's result per pairing and deal, for the "
                                                "deals with a finished rotation; [] otherwise.")

    class Meta(TournamentSerializer.Meta):
        fields = TournamentSerializer.Meta.fields + ("progress", "standings", "deals")


_STANDING_EXAMPLE = {"rank": 1, "bot_id": 7, "bot": "greedy", "games": 4, "points": 3.5, "wins": 3, "draws": 1,
                     "losses": 0, "forfeits": 0, "average_score": 41.5, "rating": 1622.4, "rating_stderr": 190.2,
                     "rating_low": 1249.6, "rating_high": 1995.2}
_TOURNAMENT_EXAMPLE = {"id": 3, "name": "spring cup", "game": "kingdomino", "kind": "round_robin",
                       "rated": False, "duplicate": True, "status": "running", "players_per_match": 2,
                       "games_per_pairing": 2,
                       "options": {"harmony": True}, "limits": {"move_ms": 500, "bank_ms": 10000}, "seed": 11,
                       "created_by": "ada", "bots": [7, 8, 9],
                       "created_at": "2026-05-01T12:00:00Z", "started_at": "2026-05-01T12:00:00Z",
                       "finished_at": None}
_DETAIL_EXAMPLE = {**_TOURNAMENT_EXAMPLE,
                   "progress": {"total": 6, "queued": 1, "running": 1, "finished": 4, "failed": 0,
                                "started_at": "2026-05-01T12:00:02Z",
                                "estimated_finish": "2026-05-01T12:01:30Z"},
                   "standings": [_STANDING_EXAMPLE],
                   "deals": [{"deal": 0, "games": 2, "rotations": 2, "complete": True,
                              "bots": [{"bot_id": 7, "bot": "greedy", "points": 2.0},
                                       {"bot_id": 8, "bot": "random", "points": 0.0}]}]}


def _detail(tournament: Tournament) -> dict:
    return {
        **TournamentSerializer(tournament).data,
        "progress": ProgressSerializer(tournament_progress(tournament=tournament).to_json()).data,
        "standings": StandingSerializer(tournament_standings(tournament=tournament), many=True).data,
        "deals": DealSerializer(tournament_deals(tournament=tournament), many=True).data,
    }


class TournamentListCreateApi(ListAPIView):
    serializer_class = TournamentSerializer
    filter_backends = (DjangoFilterBackend, OrderingFilter)
    filterset_class = TournamentFilter
    ordering_fields = ("id", "created_at", "finished_at", "name")
    ordering = ("-id",)

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "TournamentCreate"

        game = serializers.CharField(max_length=40, help_text="Game slug.")
        name = serializers.CharField(max_length=100)
        bots = serializers.ListField(child=serializers.IntegerField(min_value=1, max_value=(1 << 63) - 1),
                                     allow_empty=False, max_length=200, help_text="Bot ids (active, same game).")
        players_per_match = serializers.IntegerField(min_value=1, max_value=10)
        games_per_pairing = serializers.IntegerField(min_value=1, max_value=1000, default=1)
        options = serializers.DictField(required=False, default=dict,
                                        help_text="Game options over the game's defaults.")
        limits = TournamentLimitsInputSerializer(
            required=False, default=dict,
            help_text="Sandbox limits for this tournament's matches, over the server's settings for the game. "
                      "Only move_ms, bank_ms, match_ms, memory_mb and log_bytes, each at most the game's own "
                      "value (staff: the server's cap).")
        seed = serializers.IntegerField(required=False, min_value=0, max_value=_SEED_MAX,
                                        help_text="Fix it to replay the same schedule; random otherwise. "
                                                  "Unrated tournaments only.")
        rated = serializers.BooleanField(required=False, default=False,
                                         help_text="Staff only: the matches move leaderboard ratings, each with a "
                                                   "secret seed drawn by the server (no seed may be given).")
        duplicate = serializers.BooleanField(
            required=False, default=False,
            help_text="Play every deal (seed) once in each seat rotation of its bots (both orders for two "
                      "players, the N cyclic rotations for N), so each bot meets the same deal from every seat. "
                      "games_per_pairing then counts deals; the match limit and quota count every rotation. "
                      "A rated one draws one secret seed per deal.")

    def get_queryset(self):
        return tournaments_with_entrants()

    @extend_schema(
        operation_id="tournaments_list",
        summary="List tournaments",
        description="Filter by game, status, kind or an entered bot; order by id, created_at, finished_at, name.",
        responses={200: TournamentSerializer(many=True), **error_responses(400, 404)},
        examples=[OpenApiExample("tournaments", value={"count": 1, "next": None, "previous": None,
                                                       "results": [_TOURNAMENT_EXAMPLE]},
                                 response_only=True, status_codes=["200"])],
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="tournaments_create",
        summary="Start a round robin",
        description="Every combination of players_per_match bots plays games_per_pairing times with rotated "
                    "seats; with duplicate, every deal of a pairing is played once in each seat rotation. Any "
                    "user's active bots may be entered. The round robin is unrated: it has its own "
                    "standings and leaves leaderboard ratings alone; only staff may start a rated one (403 for "
                    "anyone else), and a rated one takes no seed (400). Refusals name the input at fault "
                    "(unknown/inactive/other-game bots, player count outside the game's range, too many "
                    "matches, options the game refuses, limits that are unknown, beyond the server's caps or, "
                    "for anyone but staff, beyond the game's own: a user may tighten the sandbox, not loosen "
                    "it). Throttled per user (scope `tournaments`), and the matches count against the user's "
                    "daily quotas of unrated matches and of worker seconds, each match at the worst case its "
                    "limits allow until it is played (GET /api/auth/me/ shows both): past one the answer is "
                    "429 with Retry-After.",
        request=InputSerializer,
        responses={201: TournamentDetailSerializer, **error_responses(400, 401, 403, 429)},
        examples=[
            OpenApiExample("round robin", value={"game": "kingdomino", "name": "spring cup", "bots": [7, 8, 9],
                                                 "players_per_match": 2, "games_per_pairing": 2, "seed": 11,
                                                 "duplicate": True, "limits": {"move_ms": 500, "bank_ms": 10000}},
                           request_only=True),
            OpenApiExample("created", value={**_DETAIL_EXAMPLE, "standings": [], "deals": []}, response_only=True,
                           status_codes=["201"]),
        ],
    )
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
            limits=values["limits"],
            rated=values["rated"],
            duplicate=values["duplicate"],
        )
        return Response(_detail(tournament_get(tournament_id=tournament.id)), status=status.HTTP_201_CREATED)


class TournamentDetailApi(APIView):
    @extend_schema(
        operation_id="tournaments_retrieve",
        summary="A tournament: status, progress and standings",
        description="Poll this while it runs: progress counts matches by status with an estimated finish; "
                    "standings cover finished matches and carry each bot's Bradley-Terry rating with its 95% "
                    "interval.",
        responses={200: TournamentDetailSerializer, **error_responses(404)},
        examples=[OpenApiExample("tournament", value=_DETAIL_EXAMPLE, response_only=True, status_codes=["200"])],
    )
    def get(self, request, tournament_id: int):
        return Response(_detail(tournament_get(tournament_id=tournament_id)))


class TournamentStandingsApi(APIView):
    @extend_schema(
        operation_id="tournaments_standings",
        summary="A tournament's table, best first, with order-independent ratings and 95% intervals",
        responses={200: StandingSerializer(many=True), **error_responses(404)},
        examples=[OpenApiExample("standings", value=[_STANDING_EXAMPLE], response_only=True,
                                 status_codes=["200"])],
    )
    def get(self, request, tournament_id: int):
        tournament = tournament_get(tournament_id=tournament_id)
        return Response(StandingSerializer(tournament_standings(tournament=tournament), many=True).data)


class CrosstableResultSerializer(serializers.Serializer):
    opponent_id = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    games = serializers.IntegerField()
    score = serializers.FloatField(help_text="Wins plus half the draws.")


class CrosstableRowSerializer(serializers.Serializer):
    bot_id = serializers.IntegerField()
    bot = serializers.CharField()
    results = CrosstableResultSerializer(many=True, help_text="Only opponents this bot met.")


class CrosstableBotSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class CrosstableSerializer(serializers.Serializer):
    bots = CrosstableBotSerializer(many=True, help_text="In standings order.")
    rows = CrosstableRowSerializer(many=True)


class TournamentCrosstableApi(APIView):
    @extend_schema(
        operation_id="tournaments_crosstable",
        summary="Head-to-head pairwise results between the tournament's bots",
        responses={200: CrosstableSerializer, **error_responses(404)},
        examples=[OpenApiExample("crosstable", value={
            "bots": [{"id": 7, "name": "greedy"}, {"id": 8, "name": "random"}],
            "rows": [
                {"bot_id": 7, "bot": "greedy", "results": [{"opponent_id": 8, "wins": 2, "draws": 0, "losses": 0,
                                                            "games": 2, "score": 2.0}]},
                {"bot_id": 8, "bot": "random", "results": [{"opponent_id": 7, "wins": 0, "draws": 0, "losses": 2,
                                                            "games": 2, "score": 0.0}]},
            ]}, response_only=True, status_codes=["200"])],
    )
    def get(self, request, tournament_id: int):
        tournament = tournament_get(tournament_id=tournament_id)
        return Response(CrosstableSerializer(tournament_crosstable(tournament=tournament)).data)
