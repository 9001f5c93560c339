"""Admin pages for every model: the operator's view of bots, tournaments, comparisons, matches and ratings."""

from django import forms
from django.contrib import admin

from ladder import models
from ladder.core.rated_play import RATED_SEED_REFUSED, match_public_seed
from ladder.models import PairFlag
from ladder.services.ratings.collusion import pair_flag_review


@admin.register(models.Game)
class GameAdmin(admin.ModelAdmin):
    list_display = ("slug", "title", "min_players", "max_players", "available")


class BotVersionInline(admin.TabularInline):
    model = models.BotVersion
    fields = ("number", "sha256", "size", "kind", "validation_status", "created_at")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(models.Bot)
class BotAdmin(admin.ModelAdmin):
    list_display = ("name", "game", "owner", "active", "created_at")
    list_filter = ("game", "active")
    search_fields = ("name", "owner__username")
    inlines = (BotVersionInline,)


@admin.register(models.BotVersion)
class BotVersionAdmin(admin.ModelAdmin):
    list_display = ("bot", "number", "kind", "size", "validation_status", "created_at")
    list_filter = ("validation_status", "kind")
    # The code itself is bytes; the checksum identifies it.
    exclude = ("code",)
    readonly_fields = ("sha256", "size")


class TournamentAdminForm(forms.ModelForm):
    class Meta:
        model = models.Tournament
        fields = "__all__"

    def clean(self):
        cleaned = super().clean()
        rated = cleaned.get("rated", self.instance.rated)
        seed = cleaned.get("seed", self.instance.seed)
        if rated and seed is not None:
            self.add_error("seed", RATED_SEED_REFUSED)
        if not rated and seed is None:
            self.add_error("seed", "an unrated tournament needs a seed: its matches' seeds derive from it")
        return cleaned


@admin.register(models.Tournament)
class TournamentAdmin(admin.ModelAdmin):
    form = TournamentAdminForm
    list_display = ("name", "game", "kind", "rated", "status", "players_per_match", "games_per_pairing",
                    "created_at")
    list_filter = ("game", "kind", "rated", "status")
    filter_horizontal = ("bots",)

    def get_readonly_fields(self, request, obj=None):
        # Whether a tournament is rated, and its seed, are chosen once: marking a round robin rated after
        # its creator chose the seeds and the bots would let them arrange leaderboard games. Whether it is
        # duplicate describes the schedule already made.
        return ("kind", "rated", "duplicate", "seed") if obj is not None else ()


class SeatInline(admin.TabularInline):
    model = models.Seat
    fields = ("position", "bot", "bot_version", "score", "place", "outcome", "reason", "rating_before",
              "rating_after")
    readonly_fields = fields
    extra = 0
    can_delete = False


@admin.register(models.Match)
class MatchAdmin(admin.ModelAdmin):
    list_display = ("id", "game", "tournament", "comparison", "status", "attempts", "worker", "finished_at")
    list_filter = ("status", "game")
    search_fields = ("id", "tournament__name")
    inlines = (SeatInline,)
    raw_id_fields = ("tournament", "comparison", "setup")
    # A rated match's seed stays secret until it finished, here too; no seed is edited by hand.
    exclude = ("seed",)
    readonly_fields = ("public_seed",)

    @admin.display(description="seed")
    def public_seed(self, match) -> str:
        seed = match_public_seed(match) if match.pk else None
        return "secret until the match finished" if seed is None else str(seed)


@admin.register(models.Comparison)
class ComparisonAdmin(admin.ModelAdmin):
    list_display = ("id", "bot", "baseline", "candidate", "status", "verdict", "max_games", "created_at")
    list_filter = ("status", "verdict")
    search_fields = ("bot__name", "created_by__username")
    raw_id_fields = ("bot", "baseline", "candidate", "created_by")
    filter_horizontal = ("opponents",)
    # The counts and the LLR are the test's record: written by the services as pairs complete, never by hand.
    readonly_fields = ("pairs", "llr_history", "status", "verdict", "finished_at")


@admin.register(models.Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ("match", "position", "bot", "score", "place", "outcome")
    list_filter = ("outcome",)
    raw_id_fields = ("match", "bot", "bot_version")
    # Unpacked from the seat's compressed ``logs``: shown, not edited (they are the referee's record).
    readonly_fields = ("log", "decisions")


@admin.register(models.Rating)
class RatingAdmin(admin.ModelAdmin):
    list_display = ("bot", "game", "elo", "games", "wins", "draws", "losses")
    list_filter = ("game",)


@admin.register(models.RatingChange)
class RatingChangeAdmin(admin.ModelAdmin):
    list_display = ("id", "bot", "match", "before", "after", "delta")
    raw_id_fields = ("seat", "match", "bot")


@admin.register(models.PairFlag)
class PairFlagAdmin(admin.ModelAdmin):
    """Pairs flagged for arranged games: staff clear them (their games count again) or confirm them."""

    list_display = ("game", "bot_low", "bot_high", "status", "weight", "score", "expected", "p_value", "flagged_at",
                    "reviewed_by")
    list_filter = ("status", "game")
    readonly_fields = ("game", "bot_low", "bot_high", "status", "weight", "score", "expected", "p_value",
                       "flagged_at", "reviewed_at", "reviewed_by")
    actions = ("clear", "confirm")

    def has_add_permission(self, request) -> bool:
        return False

    def _review(self, request, queryset, verdict: str) -> None:
        for flag in queryset:
            pair_flag_review(flag_id=flag.id, reviewer=request.user, verdict=verdict)
        self.message_user(request, f"{queryset.count()} pair(s) {verdict}; the ratings were rebuilt where it changed "
                                   "what counts.")

    @admin.action(description="Clear: the pairs' games count again")
    def clear(self, request, queryset) -> None:
        self._review(request, queryset, PairFlag.Status.CLEARED)

    @admin.action(description="Confirm: the pairs' games stay out of the ratings")
    def confirm(self, request, queryset) -> None:
        self._review(request, queryset, PairFlag.Status.CONFIRMED)


@admin.register(models.ApiToken)
class ApiTokenAdmin(admin.ModelAdmin):
    """Tokens can be seen and deleted (revoked) here, never made: a key exists only in the answer that
    makes it (``ladder.services.accounts.tokens``)."""

    list_display = ("prefix", "user", "name", "created_at", "expires_at")
    search_fields = ("user__username", "prefix", "name")
    readonly_fields = ("user", "digest", "prefix", "name", "created_at", "expires_at")

    def has_add_permission(self, request) -> bool:
        return False
