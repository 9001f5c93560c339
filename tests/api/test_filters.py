"""The list routes' query-string filters (``ladder.api.filters``), applied as FilterSets to querysets: bots by
game, owner, part of the name and activity; tournaments by entered bot and rated; matches by a bot's seat
(each match once), rated or not (a comparison's match is unrated), and times converted to UTC; invalid values
refused naming the filter."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django import forms
from django.utils import timezone

from ladder.api.filters import BotFilter, MatchFilter, TournamentFilter, UtcDateTimeField
from ladder.models import Bot, Game, Match, Tournament
from ladder.services.tournaments.comparisons import comparison_create
from ladder.services.uploads.bots import bot_set_active
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    MatchFactory,
    RatedTournamentFactory,
    SeatFactory,
    TournamentFactory,
    UserFactory,
)

pytestmark = pytest.mark.django_db


def filtered(filterset, model, **query) -> set[int]:
    applied = filterset(data={key: str(value) for key, value in query.items()}, queryset=model.objects.all())
    assert applied.is_valid(), applied.errors
    return set(applied.qs.values_list("id", flat=True))


def errors(filterset, model, **query) -> dict:
    applied = filterset(data=query, queryset=model.objects.all())
    assert not applied.is_valid()
    return applied.errors


def test_bots_by_game_owner_name_and_activity():
    owner = UserFactory(username="ada")
    dice_king = Game.objects.get(slug="dice_king")
    greedy = BotFactory(owner=owner, name="GreedyOne")
    careful = BotFactory(name="careful")
    dicey = BotFactory(owner=owner, game=dice_king, name="dicey")
    bot_set_active(bot=careful, active=False)
    assert filtered(BotFilter, Bot, game="dice_king") == {dicey.id}
    assert filtered(BotFilter, Bot, owner="ada") == {greedy.id, dicey.id}
    assert filtered(BotFilter, Bot, name="greedy") == {greedy.id}
    assert filtered(BotFilter, Bot, active="false") == {careful.id}
    assert filtered(BotFilter, Bot, active="true", owner="ada", game="kingdomino") == {greedy.id}


def test_tournaments_by_entered_bot_and_rated():
    bot = BotFactory()
    entered, other = TournamentFactory(bots=[bot]), TournamentFactory()
    rated = RatedTournamentFactory(bots=[bot])
    assert filtered(TournamentFilter, Tournament, bot=bot.id) == {entered.id, rated.id}
    assert filtered(TournamentFilter, Tournament, bot=bot.id, rated="false") == {entered.id}
    assert other.id in filtered(TournamentFilter, Tournament, rated="false")
    assert filtered(TournamentFilter, Tournament, kind="round_robin", bot=bot.id) == {entered.id, rated.id}


@pytest.mark.parametrize("value", ["0", "-3", str(1 << 63), "x", "1.5"])
def test_an_id_out_of_range_or_not_whole_is_refused_naming_the_filter(value):
    assert "bot" in errors(TournamentFilter, Tournament, bot=value)
    assert "tournament" in errors(MatchFilter, Match, tournament=value)


def test_a_bad_choice_is_refused_naming_the_filter():
    assert "status" in errors(MatchFilter, Match, status="done-ish")
    assert "kind" in errors(TournamentFilter, Tournament, kind="swiss-ish")


def test_matches_of_a_bot_are_listed_once_however_many_seats_it_held():
    bot = BotFactory()
    BotVersionFactory(bot=bot)
    comparison = comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=2, max_games=10)
    cup_match = MatchFactory()
    SeatFactory(match=cup_match, bot=bot, position=0)
    SeatFactory(match=cup_match, position=1)
    listed = MatchFilter(data={"bot": str(bot.id)}, queryset=Match.objects.all()).qs
    expected = set(comparison.matches.values_list("id", flat=True)) | {cup_match.id}
    assert sorted(listed.values_list("id", flat=True)) == sorted(expected)


def test_rated_matches_are_those_of_rated_tournaments_and_the_rest_are_not():
    bot = BotFactory()
    BotVersionFactory(bot=bot)
    rated = MatchFactory(tournament=RatedTournamentFactory())
    unrated = MatchFactory()
    comparison = comparison_create(user=bot.owner, bot_id=bot.id, baseline=1, candidate=2, max_games=10)
    assert filtered(MatchFilter, Match, rated="true") == {rated.id}
    assert filtered(MatchFilter, Match, rated="false") == {unrated.id} | set(
        comparison.matches.values_list("id", flat=True))


def test_matches_by_game_status_and_time():
    early, late = MatchFactory(), MatchFactory()
    moment = timezone.now()
    Match.objects.filter(pk=early.pk).update(created_at=moment - timedelta(hours=2))
    Match.objects.filter(pk=late.pk).update(created_at=moment, status="finished", started_at=moment,
                                            finished_at=moment)
    hour_ago = (moment - timedelta(hours=1)).isoformat()
    assert filtered(MatchFilter, Match, created_after=hour_ago) == {late.id}
    assert filtered(MatchFilter, Match, created_before=hour_ago) == {early.id}
    assert filtered(MatchFilter, Match, finished_after=hour_ago, status="finished", game="kingdomino") == {late.id}
    # An offset of 18 hours, which ISO allows and PostgreSQL would refuse, is read as the same moment in UTC.
    far_east = (moment - timedelta(hours=1)).astimezone(timezone.get_fixed_timezone(18 * 60)).isoformat()
    assert filtered(MatchFilter, Match, created_after=far_east) == {late.id}
    assert "created_after" in errors(MatchFilter, Match, created_after="yesterday")


def test_the_utc_field_converts_offsets_and_refuses_moments_out_of_range():
    field = UtcDateTimeField()
    assert field.to_python("2024-05-01T23:30:00+18:00") == datetime(2024, 5, 1, 5, 30, tzinfo=UTC)
    assert field.to_python("2024-05-01T05:30:00Z").tzinfo == UTC
    assert field.to_python("") is None
    with pytest.raises(forms.ValidationError, match="out of range: use years 1 to 9999"):
        field.to_python("0001-01-01T00:00:00+01:00")
