"""Bulk export: a game's finished public matches as one JSON Lines stream, resumable with ``after``.

The rows and what counts as public are ``ladder.selectors.exports``'; this view checks the input, then
streams the lines as the selector yields them, so the response never holds the whole history.
"""

from __future__ import annotations

import orjson
from django.conf import settings
from django.http import StreamingHttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiExample, OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers
from rest_framework.permissions import AllowAny
from rest_framework.views import APIView

from ladder.api.errors import error_responses
from ladder.api.throttles import ExportThrottle
from ladder.selectors.exports import AFTER_MAX, export_game_get, exported_matches

_LINE_EXAMPLE = {
    "id": 31, "game": "kingdomino", "rules_version": 2, "tournament_id": 3, "rated": True, "deal": None,
    "players": 2, "seed": 8841305791, "options": {"harmony": True}, "finished_at": "2026-05-01T12:00:09Z",
    "seats": [{"position": 0, "bot": "greedy", "bot_id": 7, "version": 2, "owner": "ada", "score": 41,
               "place": 1, "outcome": "ok"},
              {"position": 1, "bot": "random", "bot_id": 8, "version": 1, "owner": "bob", "score": 17,
               "place": 2, "outcome": "ok"}],
    "actions": [{"pick": 3}],
}

_DESCRIPTION = (
    "Every finished public match of the game (the ladder's and tournaments'; never a version comparison's), "
    "in id order, one JSON object per line (`application/x-ndjson`): id, game, rules_version, tournament_id, "
    "rated, deal, players, seed, options, finished_at, seats (position, bot, bot_id, version, owner, score, place, "
    "outcome) and actions. `engines.get(game).new_state(players, seed, options)` with the actions applied "
    "in order replays a match under the same rules_version. A rated match's seed is secret until it is "
    "shown elsewhere: a rotation of a rated duplicate deal appears once its tournament finished. The same "
    "for every reader, logged in or not: no code, logs or forfeit reasons. Streamed: to resume an "
    "interrupted download, send `after` = the last id received. One response holds at most `limit` "
    "matches (by default and at most the server's EXPORT_MATCHES_PER_RESPONSE, 5000 by default), and says "
    "how many it may hold in `X-Export-Limit`: fewer lines is the end of the history; as many, ask again "
    "with `after` = the last id. Throttled per user (per client address when anonymous; scope `exports`): "
    "each request counts, a resumed one too."
)


class ExportQuerySerializer(serializers.Serializer):
    after = serializers.IntegerField(min_value=0, max_value=AFTER_MAX, required=False, default=0,
                                     help_text="Only matches with a larger id (the last id you received).")
    limit = serializers.IntegerField(min_value=1, required=False,
                                     help_text="At most this many matches (the server's cap, "
                                               "EXPORT_MATCHES_PER_RESPONSE, by default and at most).")

    def validate_limit(self, value: int) -> int:
        cap = settings.EXPORT_MATCHES_PER_RESPONSE
        if value > cap:
            raise serializers.ValidationError(f"at most {cap} matches a response: leave out limit, and "
                                              "ask again with after = the last id for the next ones")
        return value


#: The header naming the most lines the response may hold.
LIMIT_HEADER = "X-Export-Limit"


def _lines(matches):
    for match in matches:
        yield orjson.dumps(match) + b"\n"


class GameMatchesExportApi(APIView):
    permission_classes = (AllowAny,)
    throttle_classes = (ExportThrottle,)

    @extend_schema(
        operation_id="exports_matches",
        summary="A game's finished public matches as JSON Lines, to replay with the engines",
        description=_DESCRIPTION,
        parameters=[OpenApiParameter("after", OpenApiTypes.INT, required=False,
                                     description="Only matches with a larger id (resume after the last one "
                                                 "received); 0 by default."),
                    OpenApiParameter("limit", OpenApiTypes.INT, required=False,
                                     description="At most this many matches; the server's cap by default "
                                                 "and at most."),
                    OpenApiParameter(LIMIT_HEADER, OpenApiTypes.INT, location=OpenApiParameter.HEADER,
                                     response=[200], description="The most lines this response may hold: "
                                                                 "fewer means the history ends here.")],
        responses={(200, "application/x-ndjson"): OpenApiResponse(
                       OpenApiTypes.STR, description="One match per line.",
                       examples=[OpenApiExample("line", value=_LINE_EXAMPLE, response_only=True,
                                                status_codes=["200"])]),
                   **error_responses(400, 404, 429)},
        auth=[],
    )
    def get(self, request, game: str):
        query = ExportQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        exported = export_game_get(slug=game)
        limit = query.validated_data.get("limit") or settings.EXPORT_MATCHES_PER_RESPONSE
        matches = exported_matches(game=exported, after=query.validated_data["after"], limit=limit)
        response = StreamingHttpResponse(_lines(matches), content_type="application/x-ndjson")
        # What the lines may number: fewer is the end of the history; as many, ask again after the last.
        response[LIMIT_HEADER] = str(limit)
        response["Content-Disposition"] = f'attachment; filename="{exported.slug}-matches.jsonl"'
        response["Cache-Control"] = "no-store"
        return response
