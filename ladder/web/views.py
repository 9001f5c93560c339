"""Server-rendered pages and the two small JSON endpoints their scripts poll.

Views are thin: read through ``ladder.selectors`` (the same selectors the REST API calls), write through ``ladder.services`` (the same services
the REST API calls), render a template. Templates escape everything users wrote; the only markup inserted
unescaped is SVG that our own code drew (charts, engine renderers), and those escape their text.
"""

from __future__ import annotations

import math

from django.contrib import messages
from django.contrib.auth import login
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import Http404, JsonResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.http import require_GET, require_POST

from ladder.core.client_address import client_ident
from ladder.core.errors import ServiceError
from ladder.core.limits import limits_playable, limits_resolve, tournament_limits_allowed
from ladder.core.quotas import QuotaExceeded, rate_check
from ladder.core.rated_play import match_public_seed
from ladder.models import Match
from ladder.ratings.sequential import elo_interval
from ladder.selectors import access
from ladder.selectors import bots as bot_reads
from ladder.selectors import comparisons as comparison_reads
from ladder.selectors import games as game_reads
from ladder.selectors import leaderboards as leaderboard_reads
from ladder.selectors import matches as match_reads
from ladder.selectors import tournaments as tournament_reads
from ladder.services.accounts.tokens import token_create, token_revoke, tokens_of
from ladder.services.accounts.users import user_register
from ladder.services.tournaments.comparisons import comparison_create
from ladder.services.tournaments.round_robins import tournament_create
from ladder.services.uploads.bots import bot_create, bot_version_create
from ladder.web import charts, replay
from ladder.web.forms import (
    BotUploadForm,
    BotVersionUploadForm,
    ComparisonForm,
    LeaderboardFilterForm,
    SignUpForm,
    TokenCreateForm,
    TournamentCreateForm,
    add_quota_error,
    add_service_error,
)


def _found(read, **lookup):
    """What ``read(**lookup)`` returns; the site's 404 page when it answers ServiceError 404."""
    try:
        return read(**lookup)
    except ServiceError as error:
        if error.status == 404:
            raise Http404(error.message) from error
        raise


def home_page(request):
    return render(request, "ladder/home.html", {
        "games": game_reads.games_with_counts(), "running": tournament_reads.tournaments_running(),
        "recent": match_reads.recent_matches(user=request.user),
    })


def leaderboard_page(request, slug: str):
    game = _found(leaderboard_reads.leaderboard_game, slug=slug)
    form = LeaderboardFilterForm(request.GET or None)
    cleaned = form.cleaned_data if form.is_valid() else {}
    filters = leaderboard_reads.LeaderboardFilters(
        search=cleaned.get("search") or "",
        owner=cleaned.get("owner") or "",
        min_games=cleaned.get("min_games") or 0,
        include_inactive=bool(cleaned.get("include_inactive")),
    )
    page = leaderboard_reads.leaderboard_page(game=game, filters=filters)
    board = page["board"]
    domain = charts.interval_domain(board)
    for line in board:
        line["sparkline"] = charts.sparkline_svg(line["trend"])
        line["interval_bar"] = charts.interval_bar_svg(elo=line["elo"], domain=domain, **line["elo_interval"])
        line["p_above_text"] = _chance_text(line["p_above"])
    return render(request, "ladder/leaderboard.html", {
        "game": game, "board": board, "form": form,
        "recent": match_reads.recent_matches(user=request.user, game=game),
        "order": page["order"], "pace": leaderboard_reads.ladder_pace(game=game),
    })


def _chance_text(p: float | None) -> str:
    """A probability as a whole percentage that never rounds to a certainty it is not: "> 99%" above 0.99."""
    if p is None:
        return ""
    if p > 0.99:
        return "> 99%"
    if p < 0.01:
        return "< 1%"
    return f"{math.floor(p * 100)}%" if p >= 0.5 else f"{math.ceil(p * 100)}%"


def _history_chart(page: dict) -> str:
    return charts.rating_history_svg(page["ratings_over_time"], title=f"Rating history of {page['bot'].name}")


def _accepted_numbers(page: dict) -> list[int]:
    return sorted(v.number for v in page["versions"] if v.validation_status == "accepted")


def _with_comparisons(page: dict, user, form: ComparisonForm | None = None) -> dict:
    """The private part of a bot page (its owner, staff): the bot's comparisons and, for the owner
    alone (only they may start one), the form that starts one."""
    page["comparisons"] = list(comparison_reads.comparisons_of_bot(bot=page["bot"], with_opponents=False)[:20])
    for comparison in page["comparisons"]:
        comparison.games_counted = 2 * sum(comparison.pairs or [])
    if page["bot"].owner_id == user.id:
        page["comparison_form"] = form or ComparisonForm(versions=_accepted_numbers(page))
    return page


def bot_page(request, bot_id: int):
    page = _found(bot_reads.bot_page_data, bot_id=bot_id, viewer=request.user)
    page["chart"] = _history_chart(page)
    if page["owner_view"]:
        page["version_form"] = BotVersionUploadForm()
        _with_comparisons(page, request.user)
    if request.user.is_staff:
        page["pair_flags"] = bot_reads.bot_pair_flags(bot_id=bot_id)
    return render(request, "ladder/bot.html", page)


@require_POST
@login_required
def comparison_start(request, bot_id: int):
    """Start a version comparison from the bot page's form (owner only; anyone else 404)."""
    bot = _found(access.bot_for_change, user=request.user, bot_id=bot_id)
    page = bot_reads.bot_page_data(bot_id=bot.id, viewer=request.user)
    form = ComparisonForm(request.POST, versions=_accepted_numbers(page))
    wait = None
    if form.is_valid():
        try:
            comparison = comparison_create(user=request.user, bot_id=bot.id, baseline=form.cleaned_data["baseline"],
                                           candidate=form.cleaned_data["candidate"],
                                           max_games=form.cleaned_data["max_games"])
        except ServiceError as error:
            wait = _refused(form, error, what="comparison")
        else:
            return redirect("comparison", comparison_id=comparison.id)
    page["chart"] = _history_chart(page)
    page["version_form"] = BotVersionUploadForm()
    return _render_refused(request, "ladder/bot.html", _with_comparisons(page, request.user, form), wait)


def _elo_text(value: float) -> str:
    """An Elo figure as shown: one decimal, signed infinities (a version that won every game), a dash
    before the first pair."""
    if math.isnan(value):
        return "–"
    if math.isinf(value):
        return "+∞" if value > 0 else "−∞"
    return f"{value:.1f}"


def comparison_page(request, comparison_id: int):
    """A version comparison: its parameters, progress, verdict, Elo interval and LLR chart; its bot's
    owner (and staff) only, anyone else 404. While it runs its script reloads the live part."""
    comparison = _found(access.comparison_for_read, user=request.user, comparison_id=comparison_id)
    state = comparison_reads.comparison_state(comparison=comparison)
    estimate, low, high = elo_interval(state["pairs"])
    return render(request, "ladder/comparison.html", {
        "comparison": comparison, "state": state,
        "elo_text": {"estimate": _elo_text(estimate), "low": _elo_text(low), "high": _elo_text(high)},
        "chart": charts.llr_chart_svg(state["llr_history"], lower=state["llr"]["lower"],
                                      upper=state["llr"]["upper"]),
        "pair_labels": list(zip(["0", "½", "1", "1½", "2"], state["pairs"], strict=True)),
    })


def _refused(form, error: ServiceError, *, what: str) -> int | None:
    """A service's refusal of the ``what`` asked (an upload, a round robin) shown on ``form``; the seconds to
    wait when it was a limit (``QuotaExceeded``: the services count every write against the same limits
    as the API's), None otherwise."""
    if isinstance(error, QuotaExceeded):
        add_quota_error(form, error, now=timezone.now(), what=what)
        return error.retry_after_s
    add_service_error(form, error)
    return None


def _render_refused(request, template: str, context: dict, wait: int | None):
    """The page again with the form's errors; a 429 with Retry-After when a limit refused it."""
    response = render(request, template, context, status=429 if wait else 200)
    if wait:
        response["Retry-After"] = str(wait)
    return response


@require_POST
@login_required
def bot_version_upload(request, bot_id: int):
    bot = _found(access.bot_for_change, user=request.user, bot_id=bot_id)
    form = BotVersionUploadForm(request.POST, request.FILES)
    wait = None
    if form.is_valid():
        upload = form.cleaned_data["code"]
        try:
            version = bot_version_create(bot=bot, data=upload.read(), filename=upload.name)
        except ServiceError as error:
            wait = _refused(form, error, what="upload")
        else:
            messages.success(request, f"Version {version.number} was uploaded: a worker is checking it now "
                                      "(it is compiled and plays a smoke match), as the table below shows.")
            return redirect("bot", bot_id=bot.id)
    page = bot_reads.bot_page_data(bot_id=bot.id, viewer=request.user)
    page["chart"] = _history_chart(page)
    page["version_form"] = form
    return _render_refused(request, "ladder/bot.html", page, wait)


@login_required
def bot_upload_page(request):
    form = BotUploadForm(request.POST or None, request.FILES or None)
    wait = None
    if request.method == "POST" and form.is_valid():
        upload = form.cleaned_data["code"]
        try:
            bot = bot_create(owner=request.user, game_slug=form.cleaned_data["game"].slug,
                             name=form.cleaned_data["name"], data=upload.read(), filename=upload.name)
        except ServiceError as error:
            wait = _refused(form, error, what="upload")
        else:
            messages.success(request, f"{bot.name} was uploaded: a worker is checking version 1 now (it is "
                                      "compiled and plays a smoke match), as the table below shows.")
            return redirect("bot", bot_id=bot.id)
    return _render_refused(request, "ladder/upload.html", {"form": form}, wait)


@login_required
def my_bots_page(request):
    return render(request, "ladder/my_bots.html", {"bots": bot_reads.bots_of_owner(user=request.user)})


def tournaments_page(request):
    return render(request, "ladder/tournaments.html", {"tournaments": tournament_reads.tournaments_listed()})


@login_required
def tournament_create_page(request):
    """A round robin of the signed-in user, asked through the same service and limits as
    ``POST /api/tournaments/``. The form is drawn for one game, named by ``game`` in the POST or, to
    switch games, the query string (the first game otherwise); its bots are that game's enterable ones."""
    games = list(game_reads.games_available())
    if not games:
        raise Http404("no game is available")
    source = request.POST if request.method == "POST" else request.GET
    game = next((g for g in games if g.slug == source.get("game")), games[0])
    form = TournamentCreateForm(
        request.POST if request.method == "POST" else None,
        games=games, game=game, bots=bot_reads.bots_enterable(game=game), staff=request.user.is_staff,
        limits_allowed=tournament_limits_allowed(game_slug=game.slug, staff=request.user.is_staff),
        initial={"game": game.slug, "name": request.GET.get("name", ""), "players_per_match": game.min_players},
    )
    wait = None
    if request.method == "POST" and form.is_valid():
        values = form.cleaned_data
        try:
            tournament = tournament_create(
                created_by=request.user, game_slug=values["game"], name=values["name"], bot_ids=values["bots"],
                players_per_match=values["players_per_match"], games_per_pairing=values["games_per_pairing"],
                options=values["options"], seed=values["seed"], rated=values.get("rated", False),
                duplicate=values["duplicate"], limits=form.limits(),
            )
        except ServiceError as error:
            wait = _refused(form, error, what="round robin")
        else:
            messages.success(request, f"{tournament.name} is scheduled: its matches play as workers take them, "
                                      "and this page follows them live.")
            return redirect("tournament", tournament_id=tournament.id)
    return _render_refused(request, "ladder/tournament_new.html", {"form": form, "games": games}, wait)


def tournament_page(request, tournament_id: int):
    page = _found(tournament_reads.tournament_page_data, tournament_id=tournament_id)
    page["progress_url"] = reverse("tournament-progress", args=[tournament_id])
    return render(request, "ladder/tournament.html", page)


@require_GET
def tournament_progress_json(request, tournament_id: int):
    tournament = _found(tournament_reads.tournament_get, tournament_id=tournament_id)
    return JsonResponse(tournament_reads.tournament_progress_summary(tournament=tournament))


def _seat_names(match: Match) -> list[str]:
    return [seat.bot.name for seat in match.seats.all()]


def seat_label(seat: int | None, names: list[str]) -> str:
    """``seat 1 (name)``; the replay script builds the same text from the same names."""
    if seat is None:
        return "nobody, the game is over"
    return f"seat {seat} ({names[seat]})" if seat < len(names) else f"seat {seat}"


def step_labels(step: match_reads.Step, names: list[str]) -> dict[str, str]:
    return {
        "actor_label": seat_label(step.actor, names) if step.action else "",
        "to_move_label": seat_label(step.to_move, names),
        "scores_label": " · ".join(
            f"{names[i] if i < len(names) else f'seat {i}'} {score}" for i, score in enumerate(step.scores)
        ),
    }


def clock_label(bank_left: int, *, move_ms: int, bank_ms: int) -> str:
    """The clock line of a log panel; replay.js builds the same text (``clockLabel``)."""
    return f"move clock {move_ms} ms · bank left {bank_left / 1000:.1f} s of {bank_ms / 1000:.1f} s"


def _step_from(request, last: int) -> int:
    try:
        return max(0, min(int(request.GET.get("step", 0)), last))
    except ValueError:
        return 0


def _seat_panels(match: Match, private: dict[int, tuple[str, list]], names: list[str], step: int,
                 last: int) -> tuple[list[dict], dict]:
    """The log panel at ``step`` of each seat in ``private`` (what the viewer may read) that recorded
    decisions, and the data the replay script redraws them from: ``{"last", "move_ms", "bank_ms", "seats":
    [{"position", "seat_label", "decisions": [{"step", "ms", "log", "bank_ms"}]}]}``."""
    limits = limits_resolve(game_slug=match.game.slug, overrides=limits_playable(match.limits or {}))
    move_ms, bank_ms = limits["move_ms"], limits["bank_ms"]
    panels, seats = [], []
    for position, (_log, records) in sorted(private.items()):
        decisions = replay.seat_decisions(records, move_ms=move_ms, bank_ms=bank_ms)
        if not decisions:  # played before decisions were recorded, or forfeited before its first one
            continue
        label = seat_label(position, names)
        shown = replay.decision_shown(decisions, step=step, last=last)
        panels.append({
            "position": position,
            "seat_label": label,
            "label": replay.decision_label(decisions, shown, step=step, last=last, seat=label),
            "log": None if shown is None else decisions[shown].log,
            "clock": clock_label(bank_ms if shown is None else decisions[shown].bank_ms, move_ms=move_ms,
                                 bank_ms=bank_ms),
            "chart": charts.think_time_svg(decisions, move_ms=move_ms, bank_ms=bank_ms, last_step=last, step=step,
                                           title=f"Think time of {label}, step by step"),
        })
        seats.append({"position": position, "seat_label": label, "decisions": [d.to_json() for d in decisions]})
    return panels, {"last": last, "move_ms": move_ms, "bank_ms": bank_ms, "seats": seats}


def match_page(request, match_id: int):
    """A match's seats and results and, once it finished, its replay with every seat's score after every
    step. A match the installed rules cannot replay (played under another rules version, or actions the
    engine refuses) still shows its result and its actions, with a notice saying why there is no replay.

    The owner of a seat's bot (and staff) also get, beside the board, what the bot printed while deciding
    the move shown and how long it thought, with a think-time chart; nobody else receives any of it."""
    match = _found(match_reads.match_get, match_id=match_id, user=request.user)
    private = match_reads.match_private_by_position(match=match, user=request.user)
    seats = list(match.seats.all())
    for seat in seats:
        seat.reason = access.seat_reason_public(match, seat.reason)
    # Who would read logs here is told when they come (a rated match's wait for its seed); others are not.
    withheld = access.match_logs_withheld(match)
    context = {"match": match, "seats": seats, "seed": match_public_seed(match),
               "logs": {position: log for position, (log, _decisions) in private.items()},
               "logs_withheld": withheld if withheld and any(
                   access.bot_private_readable(user=request.user, bot=seat.bot) for seat in seats) else None}
    names = _seat_names(match)
    try:
        steps = match_reads.match_timeline(match=match)
        step = _step_from(request, len(steps) - 1)
        frame = replay.frame(match_reads.match_position(match=match, step=step), game=match.game.slug,
                             seat_names=names)
    except match_reads.ReplayUnavailable as exc:
        # Until it finished, or while a rated deal's seed is a secret (a replay shows the opening the seed
        # deals), the page says when its replay comes; otherwise why there is none, beside the actions.
        if exc.reason not in ("unfinished", "seed_secret"):
            context["replay_error"] = exc.message
            context["actions_json"] = [match_reads.action_text(action) for action in match.actions]
        return render(request, "ladder/match.html", context)
    last = len(steps) - 1
    panels, decisions_json = _seat_panels(match, private, names, step, last)
    context.update({
        "steps": steps,
        "frame": frame,
        "last_step": last,
        "timeline_json": [s.to_json() for s in steps],
        "frame_url": reverse("match-frame", args=[match.id]),
        "seat_names_json": names,
        "score_chart": charts.score_chart_svg([s.scores for s in steps], seat_names=names, step=step),
        "seat_panels": panels,
        "decisions_json": decisions_json if panels else None,
        **step_labels(frame.step, names),
    })
    return render(request, "ladder/match.html", context)


@require_GET
def match_frame(request, match_id: int):
    """One replay step as JSON: ``{"step": {...}, "svg": "<svg...>" | null, "view_json": str | null}``;
    ``{"detail"}`` with the status the REST API answers for the same match (``REPLAY_STATUS``: 409 until it
    finished or while its seed is secret, 410 under another rules version, 409 when the engine refuses its
    actions)."""
    match = _found(match_reads.match_get, match_id=match_id, user=request.user)
    try:
        position = match_reads.match_position(match=match, step=_step_from(request, len(match.actions)))
    except match_reads.ReplayUnavailable as exc:
        return JsonResponse({"detail": exc.message}, status=exc.status)
    frame = replay.frame(position, game=match.game.slug, seat_names=_seat_names(match))
    response = JsonResponse({"step": frame.step.to_json(), "svg": frame.svg, "view_json": frame.view_json})
    # A finished match never changes, so a step can be cached by the browser; a comparison's match by the
    # owner's browser alone, never by a shared cache.
    response["Cache-Control"] = f"{'public' if match.comparison_id is None else 'private'}, max-age=3600"
    return response


def _limit_refusal(request, *, scope: str, what: str) -> QuotaExceeded | None:
    """Count this request against the per-address rate ``scope`` (the same counter as the API's: a client
    cannot alternate between the two to get twice the tries); the refusal when it is over."""
    try:
        rate_check(scope=scope, ident=client_ident(request), what=what)
    except QuotaExceeded as refusal:
        return refusal
    return None


def _limited(request, template: str, context: dict, refusal: QuotaExceeded):
    """``template`` again with the limit's refusal above the form: a 429 with Retry-After."""
    response = render(request, template, {**context, "refusal": refusal.message}, status=429)
    response["Retry-After"] = str(refusal.retry_after_s)
    return response


class LoginPage(auth_views.LoginView):
    """Django's log-in page behind the API's limit on token requests (scope ``logins``, per client address):
    past it the password is not even checked."""

    template_name = "ladder/login.html"
    next_page = "my-bots"

    def post(self, request, *args, **kwargs):
        refusal = _limit_refusal(request, scope="logins", what="log-in attempts")
        if refusal:
            form = self.form_class(request, initial={"username": request.POST.get("username", "")})
            return _limited(request, self.template_name, self.get_context_data(form=form), refusal)
        return super().post(request, *args, **kwargs)


def signup_page(request):
    if request.user.is_authenticated:
        return redirect("my-bots")
    if request.method == "POST":
        refusal = _limit_refusal(request, scope="registrations", what="registrations")
        if refusal:
            return _limited(request, "ladder/signup.html", {"form": SignUpForm()}, refusal)
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


@login_required
def account_page(request):
    """The signed-in user's API tokens: listed (never their keys), made (the key shown this once), revoked."""
    form = TokenCreateForm(request.POST or None)
    new_key = None
    if request.method == "POST" and form.is_valid():
        try:
            token, new_key = token_create(user=request.user, name=form.cleaned_data["name"],
                                          expires_in_days=form.cleaned_data["expires_in_days"])
        except ServiceError as error:
            add_service_error(form, error)
        else:
            form = TokenCreateForm()
            messages.success(request, f"Token {token.prefix}… was made. Copy its key now: it is not shown again.")
    return render(request, "ladder/account.html", {"form": form, "new_key": new_key,
                                                   "tokens": tokens_of(user=request.user), "now": timezone.now()})


@require_POST
@login_required
def token_revoke_page(request, token_id: int):
    try:
        token_revoke(user=request.user, token_id=token_id)
    except ServiceError as error:
        messages.error(request, error.message)
    else:
        messages.success(request, "The token was revoked: its key is refused from now on.")
    return redirect("account")
