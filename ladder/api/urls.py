"""Routes under /api/ (docs/architecture.md, "Interfaces"), the OpenAPI schema and its two locally served
viewers."""

from django.urls import path, re_path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerSplitView

from ladder.api import auth, bots, comparisons, exports, games, matches, tokens, tournaments, webhooks
from ladder.api.docs import LocalRedocView
from ladder.api.errors import api_not_found

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # The split view serves its script from this site (no inline script, no CDN: assets come from the sidecar).
    path("docs/", SpectacularSwaggerSplitView.as_view(url_name="api-schema"), name="api-docs"),
    path("redoc/", LocalRedocView.as_view(url_name="api-schema"), name="api-redoc"),
    path("auth/register/", auth.AuthRegisterApi.as_view(), name="api-register"),
    path("auth/token/", auth.AuthTokenApi.as_view(), name="api-token"),
    path("auth/tokens/", tokens.AuthTokenListApi.as_view(), name="api-tokens"),
    path("auth/tokens/<int:token_id>/", tokens.AuthTokenDetailApi.as_view(), name="api-token-detail"),
    path("auth/tokens/<int:token_id>/rotate/", tokens.AuthTokenRotateApi.as_view(), name="api-token-rotate"),
    path("auth/me/", auth.AuthMeApi.as_view(), name="api-me"),
    path("games/", games.GameListApi.as_view(), name="api-games"),
    path("leaderboards/<slug:game>/", games.LeaderboardApi.as_view(), name="api-leaderboard"),
    path("bots/", bots.BotListCreateApi.as_view(), name="api-bots"),
    path("bots/<int:bot_id>/", bots.BotDetailApi.as_view(), name="api-bot"),
    path("bots/<int:bot_id>/deactivate/", bots.BotDeactivateApi.as_view(), name="api-bot-deactivate"),
    path("bots/<int:bot_id>/reactivate/", bots.BotReactivateApi.as_view(), name="api-bot-reactivate"),
    path("bots/<int:bot_id>/ratings/", bots.BotRatingHistoryApi.as_view(), name="api-bot-ratings"),
    path("bots/<int:bot_id>/head-to-head/<int:opponent_id>/", bots.BotHeadToHeadApi.as_view(),
         name="api-bot-head-to-head"),
    path("bots/<int:bot_id>/versions/", bots.BotVersionListCreateApi.as_view(), name="api-bot-versions"),
    path("bots/<int:bot_id>/versions/<int:number>/code/", bots.BotVersionCodeApi.as_view(), name="api-bot-code"),
    path("bots/<int:bot_id>/comparisons/", comparisons.BotComparisonListCreateApi.as_view(),
         name="api-bot-comparisons"),
    path("comparisons/<int:comparison_id>/", comparisons.ComparisonDetailApi.as_view(), name="api-comparison"),
    path("tournaments/", tournaments.TournamentListCreateApi.as_view(), name="api-tournaments"),
    path("tournaments/<int:tournament_id>/", tournaments.TournamentDetailApi.as_view(), name="api-tournament"),
    path("tournaments/<int:tournament_id>/standings/", tournaments.TournamentStandingsApi.as_view(),
         name="api-tournament-standings"),
    path("tournaments/<int:tournament_id>/crosstable/", tournaments.TournamentCrosstableApi.as_view(),
         name="api-tournament-crosstable"),
    path("matches/", matches.MatchListApi.as_view(), name="api-matches"),
    path("matches/<int:match_id>/", matches.MatchDetailApi.as_view(), name="api-match"),
    path("matches/<int:match_id>/replay/", matches.MatchReplayApi.as_view(), name="api-match-replay"),
    path("matches/<int:match_id>/logs/", matches.MatchLogsApi.as_view(), name="api-match-logs"),
    path("matches/<int:match_id>/bundle/", matches.MatchBundleApi.as_view(), name="api-match-bundle"),
    path("webhooks/", webhooks.WebhookListCreateApi.as_view(), name="api-webhooks"),
    path("webhooks/<int:webhook_id>/", webhooks.WebhookDetailApi.as_view(), name="api-webhook"),
    path("webhooks/<int:webhook_id>/deliveries/", webhooks.WebhookDeliveryListApi.as_view(),
         name="api-webhook-deliveries"),
    path("exports/<slug:game>/matches/", exports.GameMatchesExportApi.as_view(), name="api-export-matches"),
    # Last: anything else under /api/ is a JSON 404, not the site's HTML page.
    re_path(r"", api_not_found),
]
