"""Forms of the website. They only collect input; the services decide (and say what to fix)."""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from datetime import datetime, timedelta

from django import forms

from bots.untrusted import MAX_DEPTH, UntrustedOutput, parse_json
from ladder.core.errors import ServiceError
from ladder.core.limits import TOURNAMENT_LIMITS
from ladder.core.quotas import QuotaExceeded
from ladder.models import Bot, Game
from ladder.services.accounts.tokens import MAX_EXPIRY_DAYS
from ladder.services.accounts.users import USERNAME_RULE, validate_username


def add_service_error(form: forms.Form, error: ServiceError) -> None:
    """Show a service's refusal beside the field it names (or above the form when it names none)."""
    field = error.field if error.field in form.fields else None
    form.add_error(field, error.message)
    if error.detail:
        form.add_error(field, error.detail)


def add_quota_error(form: forms.Form, error: QuotaExceeded, *, now: datetime, what: str = "round robin") -> None:
    """Show a quota's refusal above the form, with the time (UTC) enough of the quota is free again for
    ``what`` was asked (a round robin, a comparison)."""
    add_service_error(form, error)
    free_at = now + timedelta(seconds=error.retry_after_s)
    hours, minutes = divmod((error.retry_after_s + 59) // 60, 60)
    wait = f"{hours} h {minutes} min" if hours else f"{minutes} min"
    form.add_error(None, f"Enough of your quota for this {what} is free again at {free_at:%H:%M} UTC on "
                         f"{free_at.day} {free_at:%B} (in {wait}).")


class SignUpForm(forms.Form):
    # The one username rule of the API and the service (user_register checks it again).
    username = forms.CharField(max_length=150, validators=[validate_username],
                               help_text=USERNAME_RULE[:1].upper() + USERNAME_RULE[1:] + ".",
                               widget=forms.TextInput(attrs={"autocomplete": "username"}))
    password = forms.CharField(widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}))


class TokenCreateForm(forms.Form):
    name = forms.CharField(max_length=100, required=False, help_text="What it is for: a script, a machine.")
    expires_in_days = forms.IntegerField(required=False, min_value=1, max_value=MAX_EXPIRY_DAYS,
                                         label="Expires in (days)", help_text="Leave empty for a token that "
                                                                              "never expires.")


class GameChoiceField(forms.ModelChoiceField):
    """Games by title; the submitted value is the slug, as in the API."""

    def label_from_instance(self, obj: Game) -> str:
        return obj.title


class BotUploadForm(forms.Form):
    game = GameChoiceField(queryset=Game.objects.filter(available=True).order_by("id"),
                                  to_field_name="slug", empty_label=None)
    name = forms.CharField(max_length=200, help_text="1 to 64 letters, digits, '_', '.' or '-'.")
    code = forms.FileField(help_text="bot.py, or a .zip whose root holds bot.py.")


class BotVersionUploadForm(forms.Form):
    code = forms.FileField(help_text="bot.py, or a .zip whose root holds bot.py. The bot keeps its rating.")


class LeaderboardFilterForm(forms.Form):
    """GET filters of a leaderboard; bad values are ignored rather than refused."""

    search = forms.CharField(required=False, label="Bot name")
    owner = forms.CharField(required=False)
    min_games = forms.IntegerField(required=False, min_value=0, label="Min. games")
    include_inactive = forms.BooleanField(required=False, label="Include inactive")


# The API's bounds (ladder/api/tournaments.py): what a field can hold, not what a tournament may be.
SEED_MAX = 1 << 62
OPTIONS_MAX_CHARS = 10_000


class BotIdsField(forms.TypedMultipleChoiceField):
    """Bot ids, offered as the game's enterable bots but collected whatever they are: which bots may
    enter is the tournament service's to say, and it names what is wrong with each (inactive, another
    game, no accepted version), also for a bot that changed since the page was drawn."""

    def __init__(self, **kwargs) -> None:
        super().__init__(coerce=int, **kwargs)

    def valid_value(self, value) -> bool:
        # Any id the database's bigint can hold; a longer number is no bot's.
        return re.fullmatch(r"[0-9]{1,18}", str(value)) is not None


class TournamentCreateForm(forms.Form):
    """The round robin a signed-in user asks for, collected for ``tournament_create``, which decides.

    Built for one ``game`` (the bots offered are ``bots``, that game's enterable ones) among ``games``;
    ``rated`` is a field only for staff (``staff``), so anyone else's posted ``rated`` is never read.
    ``options`` is parsed as strict JSON here (no NaN or Infinity); whether it is an object the game
    accepts is the service's to say.
    """

    DUPLICATE_HELP = ("Every deal is played once in every seat rotation of its bots, so each bot meets the same "
                      "luck from each seat; games per pairing then counts deals.")

    game = forms.ChoiceField()
    name = forms.CharField(max_length=100, required=False)
    bots = BotIdsField(required=False, widget=forms.CheckboxSelectMultiple)
    players_per_match = forms.IntegerField(min_value=1, max_value=10)
    games_per_pairing = forms.IntegerField(min_value=1, max_value=1000, initial=1,
                                           help_text="How often each group of bots plays, seats rotating.")
    duplicate = forms.BooleanField(required=False, label="Duplicate deals", help_text=DUPLICATE_HELP)
    seed = forms.IntegerField(required=False, min_value=0, max_value=SEED_MAX,
                              help_text="Optional: the same seed deals the same games again. Random if empty.")
    options = forms.CharField(required=False, max_length=OPTIONS_MAX_CHARS,
                              widget=forms.Textarea(attrs={"rows": 3, "spellcheck": "false"}))
    rated = forms.BooleanField(required=False, label="Rated",
                               help_text="Staff only: the matches move leaderboard ratings, each with a secret "
                                         "seed (leave the seed empty).")

    #: Labels of the sandbox limits a tournament may set; each is a field named ``limits.<name>``, the
    #: name the service's refusals give, so that a refusal is shown beside its field.
    LIMIT_LABELS = {"move_ms": "Time per move (ms)", "bank_ms": "Time bank (ms)", "match_ms": "Time per match (ms)",
                    "memory_mb": "Memory (MiB)", "log_bytes": "Log kept per seat (bytes)"}

    def __init__(self, data=None, *, games: Sequence[Game], game: Game, bots: Sequence[Bot], staff: bool,
                 limits_allowed: dict[str, int] | None = None, **kwargs) -> None:
        super().__init__(data, **kwargs)
        self.chosen_game = game
        self._bots = list(bots)
        self.fields["game"].choices = [(g.slug, g.title) for g in games]
        self.fields["bots"].choices = [(bot.id, bot.name) for bot in self._bots]
        players = self.fields["players_per_match"]
        players.widget.attrs.update(min=game.min_players, max=game.max_players)
        players.help_text = f"{game.title} is played by {game.min_players} to {game.max_players} players."
        self.fields["options"].help_text = (f"Optional: a JSON object of game options over {game.title}'s defaults, "
                                            f"{json.dumps(game.default_options, sort_keys=True)}.")
        if not staff:
            del self.fields["rated"]
        allowed = limits_allowed or {}
        for name, settable in TOURNAMENT_LIMITS.items():
            # The bounds go to the browser as a hint; the service decides, with the API's message.
            field = forms.IntegerField(required=False, label=self.LIMIT_LABELS.get(name, name))
            field.widget.attrs.update(min=settable.minimum)
            if name in allowed:
                field.widget.attrs.update(max=allowed[name])
                reach = "the server's cap" if staff else f"{game.title}'s own limit: you may tighten it, not loosen it"
                field.help_text = f"Optional: {settable.minimum} to {allowed[name]} ({reach})."
            self.fields[f"limits.{name}"] = field

    def limit_fields(self) -> list[forms.BoundField]:
        """The sandbox limit fields, in :data:`TOURNAMENT_LIMITS` order."""
        return [self[f"limits.{name}"] for name in TOURNAMENT_LIMITS]

    def other_fields(self) -> list[forms.BoundField]:
        """Every field but the sandbox limits, in declaration order."""
        return [field for field in self if not field.name.startswith("limits.")]

    def limits(self) -> dict[str, int]:
        """The limits asked for (the ones left empty take the game's own), once the form is valid."""
        return {name: self.cleaned_data[f"limits.{name}"] for name in TOURNAMENT_LIMITS
                if self.cleaned_data.get(f"limits.{name}") is not None}

    def bot_choices(self) -> list[tuple[forms.BoundField, Bot]]:
        """Each offered bot with its checkbox, in the order offered."""
        return list(zip(self["bots"], self._bots, strict=True))

    def clean_options(self) -> object | None:
        text = self.cleaned_data["options"].strip()
        if not text:
            return None
        # The API's bounded parse (ladder.api.parsers): strict JSON, at most MAX_DEPTH levels deep.
        try:
            return parse_json(text, max_depth=MAX_DEPTH, what="it")
        except UntrustedOutput as refusal:
            raise forms.ValidationError(f"options must be JSON: {refusal.reason}") from None


class ComparisonForm(forms.Form):
    """Two accepted versions of one bot to compare; the test's other parameters take their defaults
    unless given (the API takes them all)."""

    baseline = forms.TypedChoiceField(coerce=int, help_text="The version to beat.")
    candidate = forms.TypedChoiceField(coerce=int, help_text="The new version.")
    max_games = forms.IntegerField(required=False, min_value=2, label="Max. games",
                                   help_text="Leave empty for the server's default.")

    def __init__(self, *args, versions: list[int], **kwargs) -> None:
        super().__init__(*args, **kwargs)
        choices = [(number, f"v{number}") for number in versions]
        self.fields["baseline"].choices = choices
        self.fields["candidate"].choices = choices
        if len(versions) >= 2 and not self.is_bound:
            self.initial.setdefault("baseline", versions[-2])
            self.initial.setdefault("candidate", versions[-1])
