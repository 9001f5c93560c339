"""Version comparisons: start one for your bot, list your bot's, read one (its owner and staff only).

The statistics are those of ``ladder.services.tournaments.comparisons``: paired games on one deal, the
pentanomial counts of the pairs, the SPRT's LLR against its two bounds and the 95% Elo interval.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.generics import ListAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from ladder.api.errors import error_responses
from ladder.selectors import access
from ladder.selectors.comparisons import comparison_state, comparisons_of_bot
from ladder.services.tournaments.comparisons import (
    DEFAULT_ALPHA,
    DEFAULT_BETA,
    DEFAULT_ELO0,
    DEFAULT_ELO1,
    comparison_create,
)

_BIG_ID = (1 << 63) - 1


class ComparisonLlrSerializer(serializers.Serializer):
    value = serializers.FloatField(help_text="The log-likelihood ratio of H1 (elo1) against H0 (elo0) over "
                                             "the complete pairs; 0 before the first.")
    lower = serializers.FloatField(help_text="At or below it H0 is accepted: log(beta / (1 - alpha)).")
    upper = serializers.FloatField(help_text="At or above it H1 is accepted: log((1 - beta) / alpha).")


class ComparisonEloSerializer(serializers.Serializer):
    estimate = serializers.FloatField(allow_null=True, help_text="Elo of the candidate over the baseline; null "
                                                                 "before the first pair or when unbounded.")
    low = serializers.FloatField(allow_null=True, help_text="Lower end of the 95% interval (null: unbounded).")
    high = serializers.FloatField(allow_null=True, help_text="Upper end of the 95% interval (null: unbounded).")


class ComparisonProgressSerializer(serializers.Serializer):
    scheduled = serializers.IntegerField(help_text="Matches scheduled so far (those dropped at the decision "
                                                   "not counted).")
    queued = serializers.IntegerField()
    running = serializers.IntegerField()
    finished = serializers.IntegerField()
    failed = serializers.IntegerField()


class ComparisonSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    bot_id = serializers.IntegerField()
    bot = serializers.CharField()
    game = serializers.CharField()
    baseline = serializers.IntegerField(help_text="Version number of the baseline.")
    candidate = serializers.IntegerField(help_text="Version number of the candidate.")
    opponents = serializers.ListField(child=serializers.IntegerField(),
                                      help_text="Bot ids of the field; [] when the candidate plays the baseline.")
    elo0 = serializers.FloatField()
    elo1 = serializers.FloatField()
    alpha = serializers.FloatField()
    beta = serializers.FloatField()
    max_games = serializers.IntegerField()
    status = serializers.ChoiceField(choices=["running", "done"])
    verdict = serializers.ChoiceField(
        choices=["better", "worse", "equal", "inconclusive"], allow_null=True,
        help_text="Null while running. better: H1 accepted; worse: H0 accepted and the Elo interval below 0; "
                  "equal: H0 accepted otherwise; inconclusive: max_games played without a decision.")
    games = serializers.IntegerField(help_text="Games of the complete pairs the statistics count.")
    pairs = serializers.ListField(child=serializers.IntegerField(), min_length=5, max_length=5,
                                  help_text="Pentanomial counts: pairs where the candidate scored 0, 1/2, 1, "
                                            "3/2 and 2 points.")
    llr = ComparisonLlrSerializer()
    elo = ComparisonEloSerializer()
    llr_history = serializers.ListField(child=serializers.FloatField(),
                                        help_text="The LLR after each complete pair, in order (for a chart).")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class ComparisonDetailSerializer(ComparisonSerializer):
    progress = ComparisonProgressSerializer()


_COMPARISON_EXAMPLE = {
    "id": 4, "bot_id": 7, "bot": "greedy", "game": "kingdomino", "baseline": 1, "candidate": 2, "opponents": [],
    "elo0": 0.0, "elo1": 20.0, "alpha": 0.05, "beta": 0.05, "max_games": 2000, "status": "done",
    "verdict": "better", "games": 106, "pairs": [0, 0, 4, 0, 49],
    "llr": {"value": 2.96, "lower": -2.944, "upper": 2.944},
    "elo": {"estimate": 562.6, "low": 440.8, "high": 1064.4},
    "llr_history": [0.05, 0.11, 0.02, 0.16], "created_at": "2026-05-01T12:00:00Z",
    "finished_at": "2026-05-01T12:02:10Z",
}
_DETAIL_EXAMPLE = {**_COMPARISON_EXAMPLE, "progress": {"scheduled": 108, "queued": 0, "running": 0,
                                                       "finished": 108, "failed": 0}}
_HOW = ("Games come in pairs on one deal (seed): against the baseline, the candidate plays the deal from each "
        "seat; against a field of opponents, the pair's opponent meets the candidate in one game and the "
        "baseline in the other, from the same seat on the same deal. After each complete pair the SPRT's LLR "
        "is computed over the pentanomial counts, and the comparison stops at a bound (verdict better, or "
        "worse/equal) or once max_games are played (inconclusive). Never rated.")


class BotComparisonListCreateApi(ListAPIView):
    serializer_class = ComparisonSerializer
    filter_backends = ()
    permission_classes = (IsAuthenticated,)

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "ComparisonCreate"

        baseline = serializers.IntegerField(min_value=1, max_value=_BIG_ID,
                                            help_text="Version number of the baseline (accepted).")
        candidate = serializers.IntegerField(min_value=1, max_value=_BIG_ID,
                                             help_text="Version number of the candidate (accepted).")
        opponents = serializers.ListField(
            child=serializers.IntegerField(min_value=1, max_value=_BIG_ID), required=False, default=list,
            max_length=100, help_text="Bot ids of the field (active, same game); none: the baseline itself.")
        elo0 = serializers.FloatField(required=False, default=DEFAULT_ELO0,
                                      help_text="H0: the candidate is elo0 Elo better (default 0).")
        elo1 = serializers.FloatField(required=False, default=DEFAULT_ELO1,
                                      help_text="H1: the candidate is elo1 Elo better (default 20).")
        alpha = serializers.FloatField(required=False, default=DEFAULT_ALPHA,
                                       help_text="Chance of saying better when H0 holds (default 0.05).")
        beta = serializers.FloatField(required=False, default=DEFAULT_BETA,
                                      help_text="Chance of missing an elo1 improvement (default 0.05).")
        max_games = serializers.IntegerField(required=False, min_value=2, max_value=_BIG_ID,
                                             help_text="Most games played (server default and cap apply).")

    def get_queryset(self):
        bot = access.bot_for_private_read(user=self.request.user, bot_id=self.kwargs["bot_id"])
        return comparisons_of_bot(bot=bot)

    def list(self, request, *args, **kwargs):
        page = self.paginate_queryset(self.get_queryset())
        body = [comparison_state(comparison=c, with_progress=False) for c in page]
        return self.get_paginated_response(ComparisonSerializer(body, many=True).data)

    @extend_schema(
        operation_id="bots_comparisons_list",
        summary="Your bot's version comparisons, newest first",
        description="Owner (and staff) only: anyone else gets 404.",
        responses={200: ComparisonSerializer(many=True), **error_responses(401, 404)},
        examples=[OpenApiExample("comparisons", value={"count": 1, "next": None, "previous": None,
                                                       "results": [_COMPARISON_EXAMPLE]},
                                 response_only=True, status_codes=["200"])],
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="bots_comparisons_create",
        summary="Compare two versions of your bot: is the candidate better than the baseline?",
        description=_HOW + " Owner only: another user's bot answers 404. Refusals (400) name the input at fault: "
                    "a version that does not exist or is not accepted, the same version twice, bad opponents, "
                    "elo0 >= elo1, error rates out of range, max_games beyond the server's cap. Throttled per user with "
                    "tournament creation (scope `tournaments`). The games count "
                    "against your daily quota of unrated matches (a running comparison holds the rest of its "
                    "max_games): past it the answer is 429 with Retry-After.",
        request=InputSerializer,
        responses={201: ComparisonDetailSerializer, **error_responses(400, 401, 404, 429)},
        examples=[
            OpenApiExample("compare", value={"baseline": 1, "candidate": 2}, request_only=True),
            OpenApiExample("created", value={**_DETAIL_EXAMPLE, "status": "running", "verdict": None, "games": 0,
                                             "pairs": [0, 0, 0, 0, 0], "llr": {"value": 0.0, "lower": -2.944,
                                                                              "upper": 2.944},
                                             "elo": {"estimate": None, "low": None, "high": None},
                                             "llr_history": [], "finished_at": None,
                                             "progress": {"scheduled": 12, "queued": 12, "running": 0,
                                                          "finished": 0, "failed": 0}},
                           response_only=True, status_codes=["201"]),
        ],
    )
    def post(self, request, bot_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        values = data.validated_data
        comparison = comparison_create(user=request.user, bot_id=bot_id, baseline=values["baseline"],
                                       candidate=values["candidate"], opponents=values["opponents"],
                                       elo0=values["elo0"], elo1=values["elo1"], alpha=values["alpha"],
                                       beta=values["beta"], max_games=values.get("max_games"))
        body = comparison_state(comparison=access.comparison_for_read(user=request.user,
                                                                      comparison_id=comparison.id))
        return Response(ComparisonDetailSerializer(body).data, status=status.HTTP_201_CREATED)


class ComparisonDetailApi(APIView):
    @extend_schema(
        operation_id="comparisons_retrieve",
        summary="A version comparison: status, verdict, pair counts, LLR with its bounds, Elo interval",
        description=_HOW + " Poll it while it runs. Its bot's owner (and staff) only: anyone else gets 404.",
        responses={200: ComparisonDetailSerializer, **error_responses(404)},
        examples=[OpenApiExample("comparison", value=_DETAIL_EXAMPLE, response_only=True, status_codes=["200"])],
    )
    def get(self, request, comparison_id: int):
        comparison = access.comparison_for_read(user=request.user, comparison_id=comparison_id)
        return Response(ComparisonDetailSerializer(comparison_state(comparison=comparison)).data)
