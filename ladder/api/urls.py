from django.urls import path

from ladder.api import auth, bots, games, matches, tournaments

urlpatterns = [
    path("auth/register/", auth.AuthRegisterApi.as_view(), name="api-register"),
    path("auth/token/", auth.AuthTokenApi.as_view(), name="api-token"),
    path("games/", games.GameListApi.as_view(), name="api-games"),
    path("bots/", bots.BotListCreateApi.as_view(), name="api-bots"),
    path("bots/<int:bot_id>/", bots.BotDetailApi.as_view(), name="api-bot"),
    path("bots/<int:bot_id>/versions/", bots.BotVersionCreateApi.as_view(), name="api-bot-versions"),
    path("bots/<int:bot_id>/versions/<int:number>/code/", bots.BotVersionCodeApi.as_view(), name="api-bot-code"),
    path("tournaments/", tournaments.TournamentListCreateApi.as_view(), name="api-tournaments"),
    path("tournaments/<int:tournament_id>/", tournaments.TournamentDetailApi.as_view(), name="api-tournament"),
    path("matches/", matches.MatchListApi.as_view(), name="api-matches"),
    path("matches/<int:match_id>/", matches.MatchDetailApi.as_view(), name="api-match"),
    path("matches/<int:match_id>/replay/", matches.MatchReplayApi.as_view(), name="api-match-replay"),
    path("matches/<int:match_id>/logs/", matches.MatchLogsApi.as_view(), name="api-match-logs"),
    path("leaderboards/<slug:game>/", games.LeaderboardApi.as_view(), name="api-leaderboard"),
]
