"""Server-rendered pages and the two small JSON endpoints their scripts poll.

Views are thin: read through ``ladder.web.selectors``, write through ``ladder.services`` (the same services
the REST API calls), render a template. Templates escape everything users wrote; the only markup inserted
unescaped is SVG that our own code drew (charts, engine renderers), and those escape their text.
"""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from rest_framework.exceptions import Throttled

from ladder.api.throttles import UploadThrottle
from ladder.models import Bot, Game, Match, Tournament
from ladder.services.bots import bot_create, bot_version_create
from ladder.services.errors import ServiceError
from ladder.services.rated_play import match_public_seed
from ladder.services.users import user_register
from ladder.web import charts, replay, selectors
from ladder.web.forms import (
    BotUploadForm,
    BotVersionUploadForm,
    LeaderboardFilterForm,
    SignUpForm,
    add_service_error,
)


def home_page(request):
    return render(request, "ladder/home.html", selectors.home())


def leaderboard_page(request, slug: str):
    game = get_object_or_404(Game, slug=slug)
    form = LeaderboardFilterForm(request.GET or None)
    cleaned = form.cleaned_data if form.is_valid() else {}
    filters = selectors.LeaderboardFilters(
        search=cleaned.get("search") or "",
        owner=cleaned.get("owner") or "",
        min_games=cleaned.get("min_games") or 0,
        include_inactive=bool(cleaned.get("include_inactive")),
    )
    board = selectors.leaderboard(game=game, filters=filters)
    for line in board:
        line["sparkline"] = charts.sparkline_svg(line["trend"])
    return render(request, "ladder/leaderboard.html", {
        "game": game, "board": board, "form": form, "recent": selectors.recent_matches(game=game),
    })


def _history_chart(page: dict) -> str:
    return charts.rating_history_svg(page["ratings_over_time"], title=f"Rating history of {page['bot'].name}")


def bot_page(request, bot_id: int):
    page = selectors.bot_page(bot_id=bot_id, viewer=request.user)
    if page is None:
        raise Http404("no such bot")
    page["chart"] = _history_chart(page)
    if page["owner_view"]:
        page["version_form"] = BotVersionUploadForm()
    return render(request, "ladder/bot.html", page)


def _upload_throttled(request, form) -> int | None:
    """Count an upload against the same per-user limit as the API's (``UploadThrottle``); past it, the
    refusal goes on ``form`` and the seconds to wait are returned."""
    try:
        UploadThrottle().allow_request(request, None)
    except Throttled as refusal:
        form.add_error(None, str(refusal.detail))
        return refusal.wait
    return None


def _render_refused(request, template: str, context: dict, wait: int | None):
    """The page again with the form's errors; a 429 with Retry-After when the upload limit refused it."""
    response = render(request, template, context, status=429 if wait else 200)
    if wait:
        response["Retry-After"] = str(wait)
    return response


@require_POST
@login_required
def bot_version_upload(request, bot_id: int):
    bot = get_object_or_404(Bot.objects.select_related("game", "owner"), pk=bot_id, owner=request.user)
    form = BotVersionUploadForm(request.POST, request.FILES)
    wait = None
    if form.is_valid() and (wait := _upload_throttled(request, form)) is None:
        upload = form.cleaned_data["code"]
        try:
            version = bot_version_create(bot=bot, data=upload.read(), filename=upload.name)
        except ServiceError as error:
            add_service_error(form, error)
        else:
            messages.success(request, f"Version {version.number} was uploaded: a worker is checking it now "
                                      "(it is compiled and plays a smoke match), as the table below shows.")
            return redirect("bot", bot_id=bot.id)
    page = selectors.bot_page(bot_id=bot.id, viewer=request.user)
    page["chart"] = _history_chart(page)
    page["version_form"] = form
    return _render_refused(request, "ladder/bot.html", page, wait)


@login_required
def bot_upload_page(request):
    form = BotUploadForm(request.POST or None, request.FILES or None)
    wait = None
    if request.method == "POST" and form.is_valid() and (wait := _upload_throttled(request, form)) is None:
        upload = form.cleaned_data["code"]
        try:
            bot = bot_create(owner=request.user, game_slug=form.cleaned_data["game"].slug,
                             name=form.cleaned_data["name"], data=upload.read(), filename=upload.name)
        except ServiceError as error:
            add_service_error(form, error)
        else:
            messages.success(request, f"{bot.name} was uploaded: a worker is checking version 1 now (it is "
                                      "compiled and plays a smoke match), as the table below shows.")
            return redirect("bot", bot_id=bot.id)
    return _render_refused(request, "ladder/upload.html", {"form": form}, wait)


@login_required
def my_bots_page(request):
    return render(request, "ladder/my_bots.html", {"bots": selectors.my_bots(owner=request.user)})


def tournaments_page(request):
    return render(request, "ladder/tournaments.html", {"tournaments": selectors.tournaments_list()})


def tournament_page(request, tournament_id: int):
    page = selectors.tournament_page(tournament_id=tournament_id)
    if page is None:
        raise Http404("no such tournament")
    page["progress_url"] = reverse("tournament-progress", args=[tournament_id])
    return render(request, "ladder/tournament.html", page)


@require_GET
def tournament_progress(request, tournament_id: int):
    tournament = get_object_or_404(Tournament, pk=tournament_id)
    return JsonResponse(selectors.progress_json(tournament=tournament))


def _seat_names(match: Match) -> list[str]:
    return [seat.bot.name for seat in match.seats.all()]


def seat_label(seat: int | None, names: list[str]) -> str:
    """``seat 1 (name)``; the replay script builds the same text from the same names."""
    if seat is None:
        return "nobody, the game is over"
    return f"seat {seat} ({names[seat]})" if seat < len(names) else f"seat {seat}"


def step_labels(step: replay.Step, names: list[str]) -> dict[str, str]:
    return {
        "actor_label": seat_label(step.actor, names) if step.action else "",
        "to_move_label": seat_label(step.to_move, names),
        "scores_label": " · ".join(
            f"{names[i] if i < len(names) else f'seat {i}'} {score}" for i, score in enumerate(step.scores)
        ),
    }


def _step_from(request, last: int) -> int:
    try:
        return max(0, min(int(request.GET.get("step", 0)), last))
    except ValueError:
        return 0


def match_page(request, match_id: int):
    match = selectors.match_with_seats(match_id=match_id)
    if match is None:
        raise Http404("no such match")
    context = {"match": match, "seats": list(match.seats.all()), "seed": match_public_seed(match),
               "logs": selectors.match_logs(match=match, viewer=request.user)}
    if match.status != Match.Status.FINISHED:
        return render(request, "ladder/match.html", context)
    try:
        steps = replay.timeline(game=match.game.slug, players=match.players, seed=match.seed,
                                options=match.options, actions=match.actions)
        step = _step_from(request, len(steps) - 1)
        frame = replay.frame(game=match.game.slug, players=match.players, seed=match.seed,
                             options=match.options, actions=match.actions, step=step,
                             seat_names=_seat_names(match))
    except replay.ReplayUnavailable as exc:
        context["replay_error"] = str(exc)
        context["actions_json"] = [replay.action_text(action) for action in match.actions]
        return render(request, "ladder/match.html", context)
    context.update({
        "steps": steps,
        "frame": frame,
        "last_step": len(steps) - 1,
        "timeline_json": [s.to_json() for s in steps],
        "frame_url": reverse("match-frame", args=[match.id]),
        "seat_names_json": _seat_names(match),
        **step_labels(frame.step, _seat_names(match)),
    })
    return render(request, "ladder/match.html", context)


@require_GET
def match_frame(request, match_id: int):
    """One replay step as JSON: ``{"step": {...}, "svg": "<svg...>" | null, "view_json": str | null}``."""
    match = selectors.match_with_seats(match_id=match_id)
    if match is None or match.status != Match.Status.FINISHED:
        raise Http404("no finished match with that id")
    try:
        frame = replay.frame(game=match.game.slug, players=match.players, seed=match.seed, options=match.options,
                             actions=match.actions, step=_step_from(request, len(match.actions)),
                             seat_names=_seat_names(match))
    except replay.ReplayUnavailable as exc:
        return JsonResponse({"detail": str(exc)}, status=409)
    response = JsonResponse({"step": frame.step.to_json(), "svg": frame.svg, "view_json": frame.view_json})
    # A finished match never changes, so a step can be cached by the browser.
    response["Cache-Control"] = "public, max-age=3600"
    return response


def signup_page(request):
    if request.user.is_authenticated:
        return redirect("my-bots")
    form = SignUpForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            user, _token = user_register(username=form.cleaned_data["username"],
                                         password=form.cleaned_data["password"])
        except ServiceError as error:
            add_service_error(form, error)
        else:
            login(request, user)
            messages.success(request, f"Welcome, {user.username}. Upload your first bot below.")
            return redirect("bot-upload")
    return render(request, "ladder/signup.html", {"form": form})
