from django.urls import path

from ladder.web import views

urlpatterns = [
    path("", views.home_page, name="home"),
    path("games/<slug:slug>/", views.leaderboard_page, name="leaderboard"),
]
