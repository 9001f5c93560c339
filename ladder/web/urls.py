from django.contrib.auth import views as auth_views
from django.urls import path

from ladder.web import views

urlpatterns = [
    path("", views.home_page, name="home"),
    path("games/<slug:slug>/", views.leaderboard_page, name="leaderboard"),
    path("bots/new/", views.bot_upload_page, name="bot-upload"),
    path("bots/mine/", views.my_bots_page, name="my-bots"),
    path("bots/<int:bot_id>/", views.bot_page, name="bot"),
    path("bots/<int:bot_id>/versions/", views.bot_version_upload, name="bot-version-upload"),
    path("bots/<int:bot_id>/comparisons/", views.comparison_start, name="comparison-start"),
    path("comparisons/<int:comparison_id>/", views.comparison_page, name="comparison"),
    path("tournaments/", views.tournaments_page, name="tournaments"),
    path("tournaments/new/", views.tournament_create_page, name="tournament-create"),
    path("tournaments/<int:tournament_id>/", views.tournament_page, name="tournament"),
    path("tournaments/<int:tournament_id>/progress/", views.tournament_progress_json, name="tournament-progress"),
    path("matches/<int:match_id>/", views.match_page, name="match"),
    path("matches/<int:match_id>/frame/", views.match_frame, name="match-frame"),
    path("accounts/signup/", views.signup_page, name="signup"),
    path("accounts/login/", views.LoginPage.as_view(), name="login"),
    path("accounts/", views.account_page, name="account"),
    path("accounts/tokens/<int:token_id>/revoke/", views.token_revoke_page, name="token-revoke"),
    path("accounts/logout/", auth_views.LogoutView.as_view(next_page="home"), name="logout"),
]
