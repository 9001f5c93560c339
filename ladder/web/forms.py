"""Forms of the website. They only collect input; the services decide (and say what to fix)."""

from __future__ import annotations

from django import forms

from ladder.models import Game
from ladder.services.errors import ServiceError


def add_service_error(form: forms.Form, error: ServiceError) -> None:
    """Show a service's refusal beside the field it names (or above the form when it names none)."""
    field = error.field if error.field in form.fields else None
    form.add_error(field, error.message)
    if error.detail:
        form.add_error(field, error.detail)


class SignUpForm(forms.Form):
    username = forms.CharField(max_length=150, widget=forms.TextInput(attrs={"autocomplete": "username"}))
    password = forms.CharField(widget=forms.PasswordInput(attrs={"autocomplete": "new-password"}))


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
