"""Server-rendered pages: the game list and each game's leaderboard."""

from __future__ import annotations

from django.db.models import Count, Q
from django.shortcuts import get_object_or_404, render

from ladder import selectors
from ladder.models import Game, Match


def home_page(request):
    games = Game.objects.filter(available=True).annotate(
        bot_count=Count("bots", filter=Q(bots__active=True), distinct=True),
        finished=Count("matches", filter=Q(matches__status=Match.Status.FINISHED), distinct=True),
    )
    return render(request, "ladder/home.html", {"games": games})


def leaderboard_page(request, slug: str):
    game = get_object_or_404(Game, slug=slug)
    recent = (
        Match.objects.filter(game=game, status=Match.Status.FINISHED)
        .prefetch_related("seats__bot")
        .order_by("-finished_at")[:20]
    )
    return render(
        request,
        "ladder/leaderboard.html",
        {"game": game, "board": selectors.leaderboard(game=game), "recent": recent},
    )
