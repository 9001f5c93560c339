"""``ladder.web.forms`` on their own (no request): a service's refusal shown beside the field it names or
above the form, a quota's with the time it frees up; the tournament form's fields for one game (rated for
staff only, one field per sandbox limit with its bounds as hints), its bot ids collected whatever they
are, its options parsed as strict bounded JSON; the leaderboard filters; the comparison form's versions."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from django import forms

from ladder.core.errors import ServiceError
from ladder.core.limits import TOURNAMENT_LIMITS
from ladder.core.quotas import QuotaExceeded
from ladder.models import Game
from ladder.web.forms import (
    BotUploadForm,
    ComparisonForm,
    LeaderboardFilterForm,
    TournamentCreateForm,
    add_quota_error,
    add_service_error,
)
from tests.factories import BotFactory

pytestmark = pytest.mark.django_db


class NameForm(forms.Form):
    name = forms.CharField(required=False)


def bound_name_form() -> NameForm:
    form = NameForm({"name": "x"})
    assert form.is_valid()
    return form


def test_a_refusal_is_shown_beside_the_field_it_names_with_its_detail():
    form = bound_name_form()
    add_service_error(form, ServiceError("pick another name", field="name", detail="the log's tail"))
    assert form.errors == {"name": ["pick another name", "the log's tail"]}


def test_a_refusal_naming_no_field_or_another_forms_field_is_shown_above_the_form():
    form = bound_name_form()
    add_service_error(form, ServiceError("only staff may do this", field="rated"))
    add_service_error(form, ServiceError("the sandbox is busy"))
    assert form.non_field_errors() == ["only staff may do this", "the sandbox is busy"]


@pytest.mark.parametrize(("seconds", "wait", "at"), [
    (90, "in 2 min", "12:01 UTC on 3 March"),
    (3 * 3600 + 60, "in 3 h 1 min", "15:01 UTC on 3 March"),
    (13 * 3600, "in 13 h 0 min", "01:00 UTC on 4 March"),
])
def test_a_quota_refusal_says_when_enough_is_free_again(seconds, wait, at):
    form = bound_name_form()
    now = datetime(2025, 3, 3, 12, 0, tzinfo=UTC)
    add_quota_error(form, QuotaExceeded("too many matches", retry_after_s=seconds), now=now, what="comparison")
    first, second = form.non_field_errors()
    assert first == "too many matches"
    assert second == f"Enough of your quota for this comparison is free again at {at} ({wait})."


def tournament_form(data=None, *, staff=False, limits_allowed=None, bots=()) -> TournamentCreateForm:
    game = Game.objects.get(slug="kingdomino")
    return TournamentCreateForm(data, games=list(Game.objects.filter(available=True)), game=game, bots=list(bots),
                                staff=staff, limits_allowed=limits_allowed)


def test_the_tournament_form_is_drawn_for_its_game_with_rated_for_staff_only():
    game = Game.objects.get(slug="kingdomino")
    bots = [BotFactory(), BotFactory()]
    form = tournament_form(bots=bots)
    assert "rated" not in form.fields and "rated" in tournament_form(staff=True).fields
    assert ("kingdomino", game.title) in form.fields["game"].choices
    assert form.fields["bots"].choices == [(bot.id, bot.name) for bot in bots]
    assert [bot for _, bot in form.bot_choices()] == bots
    players = form.fields["players_per_match"]
    assert (players.widget.attrs["min"], players.widget.attrs["max"]) == (game.min_players, game.max_players)
    assert [field.name for field in form.limit_fields()] == [f"limits.{name}" for name in TOURNAMENT_LIMITS]
    assert not any(field.name.startswith("limits.") for field in form.other_fields())


def test_each_limit_field_carries_its_bounds_as_hints_and_says_whose_they_are():
    name = next(iter(TOURNAMENT_LIMITS))
    user = tournament_form(limits_allowed={name: 900}).fields[f"limits.{name}"]
    assert user.widget.attrs == {"min": TOURNAMENT_LIMITS[name].minimum, "max": 900}
    assert "tighten it, not loosen it" in user.help_text
    staff = tournament_form(staff=True, limits_allowed={name: 5000}).fields[f"limits.{name}"]
    assert "the server's cap" in staff.help_text and staff.widget.attrs["max"] == 5000
    assert "max" not in tournament_form().fields[f"limits.{name}"].widget.attrs


def valid_data(**fields) -> dict:
    return {"game": "kingdomino", "name": "cup", "players_per_match": "2", "games_per_pairing": "1", **fields}


def test_bot_ids_are_collected_whatever_bots_they_name_and_limits_left_empty_are_left_out():
    name = next(iter(TOURNAMENT_LIMITS))
    form = tournament_form(valid_data(bots=["5", "123456789012345678"], **{f"limits.{name}": "700"}))
    assert form.is_valid(), form.errors
    assert form.cleaned_data["bots"] == [5, 123456789012345678]
    assert form.limits() == {name: 700}
    assert form.cleaned_data["options"] is None


@pytest.mark.parametrize("bot_id", ["1234567890123456789", "-1", "x", "1.5"])
def test_a_bot_id_no_bigint_holds_is_refused(bot_id):
    form = tournament_form(valid_data(bots=[bot_id]))
    assert not form.is_valid() and "bots" in form.errors


def test_a_posted_rated_is_ignored_for_anyone_but_staff():
    form = tournament_form(valid_data(rated="on"))
    assert form.is_valid() and "rated" not in form.cleaned_data
    staff = tournament_form(valid_data(rated="on"), staff=True)
    assert staff.is_valid() and staff.cleaned_data["rated"] is True


@pytest.mark.parametrize(("text", "parsed"), [
    ('{"mighty_duel": true}', {"mighty_duel": True}), ("  [1, 2]  ", [1, 2]), ("   ", None),
])
def test_options_are_strict_json_of_any_shape_the_service_then_judges(text, parsed):
    form = tournament_form(valid_data(options=text))
    assert form.is_valid(), form.errors
    assert form.cleaned_data["options"] == parsed


@pytest.mark.parametrize("text", ["{bad", '{"x": NaN}', '{"x": Infinity}', "[" * 100 + "]" * 100])
def test_options_that_are_not_strict_bounded_json_are_refused_beside_the_field(text):
    form = tournament_form(valid_data(options=text))
    assert not form.is_valid()
    assert form.errors["options"][0].startswith("options must be JSON: ")


@pytest.mark.parametrize(("field", "value"), [("players_per_match", "0"), ("games_per_pairing", "1001"),
                                              ("seed", "-1"), ("seed", str((1 << 62) + 1))])
def test_numbers_outside_what_a_field_holds_are_refused(field, value):
    assert field in tournament_form(valid_data(**{field: value})).errors


def test_leaderboard_filters_are_all_optional_and_a_negative_count_is_invalid():
    assert LeaderboardFilterForm({}).is_valid()
    form = LeaderboardFilterForm({"search": "bo", "min_games": "3", "include_inactive": "on"})
    assert form.is_valid() and form.cleaned_data["min_games"] == 3 and form.cleaned_data["include_inactive"]
    assert not LeaderboardFilterForm({"min_games": "-1"}).is_valid()


def test_the_upload_form_offers_available_games_by_title_and_takes_their_slug():
    Game.objects.filter(slug="dice_king").update(available=False)
    form = BotUploadForm()
    offered = list(form.fields["game"].choices)
    assert ("kingdomino", Game.objects.get(slug="kingdomino").title) in [(str(v), label) for v, label in offered]
    assert "dice_king" not in [str(value) for value, _ in offered]


def test_the_comparison_form_offers_the_versions_and_starts_on_the_newest_two():
    form = ComparisonForm(versions=[1, 3, 4])
    assert form.fields["baseline"].choices == [(1, "v1"), (3, "v3"), (4, "v4")]
    assert (form.initial["baseline"], form.initial["candidate"]) == (3, 4)
    assert "baseline" not in ComparisonForm(versions=[1]).initial
    bound = ComparisonForm({"baseline": "1", "candidate": "4", "max_games": ""}, versions=[1, 3, 4])
    assert bound.is_valid() and bound.cleaned_data == {"baseline": 1, "candidate": 4, "max_games": None}
    assert not ComparisonForm({"baseline": "2", "candidate": "4"}, versions=[1, 3, 4]).is_valid()
    assert not ComparisonForm({"baseline": "1", "candidate": "4", "max_games": "1"}, versions=[1, 3, 4]).is_valid()
