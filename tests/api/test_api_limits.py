"""The serializers of sandbox limits (``ladder.api.limits``): a tournament's overrides shown as set, the
overrides asked for at creation held to known names and to each limit's floor and the server's cap (read from
the settings at each use), and a match's full set of limits. No database."""

from __future__ import annotations

import pytest

from ladder.api.limits import (
    MatchLimitsSerializer,
    TournamentLimitsInputSerializer,
    TournamentLimitsSerializer,
)
from ladder.core.limits import TOURNAMENT_LIMITS, limit_names


def errors_of(data) -> dict:
    serializer = TournamentLimitsInputSerializer(data=data)
    assert not serializer.is_valid()
    return {name: [str(message) for message in messages] for name, messages in serializer.errors.items()}


def test_a_tournament_shows_only_the_limits_it_sets():
    assert TournamentLimitsSerializer({"move_ms": 300}).data == {"move_ms": 300}
    assert TournamentLimitsSerializer({}).data == {}
    assert set(TournamentLimitsSerializer().fields) == set(TOURNAMENT_LIMITS)


def test_overrides_within_floor_and_cap_are_accepted(settings):
    at_the_edges = {"move_ms": 10, "bank_ms": 0, "match_ms": settings.BOTS_MAX_MATCH_MS}
    serializer = TournamentLimitsInputSerializer(data=at_the_edges)
    assert serializer.is_valid(), serializer.errors
    assert serializer.validated_data == at_the_edges
    empty = TournamentLimitsInputSerializer(data={})
    assert empty.is_valid() and empty.validated_data == {}


def test_an_override_past_the_cap_names_the_servers_cap(settings):
    settings.BOTS_MAX_MOVE_MS = 700
    assert errors_of({"move_ms": 701}) == {"move_ms": ["may be at most 700 (the server's cap)"]}
    assert TournamentLimitsInputSerializer(data={"move_ms": 700}).is_valid()


def test_the_cap_follows_the_settings_at_each_use(settings):
    settings.BOTS_MAX_MEMORY_MB = 64
    assert errors_of({"memory_mb": 65})["memory_mb"] == ["may be at most 64 (the server's cap)"]
    assert "16 to 64." in TournamentLimitsInputSerializer().fields["memory_mb"].help_text
    settings.BOTS_MAX_MEMORY_MB = 128
    assert TournamentLimitsInputSerializer(data={"memory_mb": 65}).is_valid()


def test_an_override_below_the_floor_is_refused():
    assert errors_of({"memory_mb": 15, "move_ms": 9}) == {
        "memory_mb": ["must be at least 16"], "move_ms": ["must be at least 10"]}


@pytest.mark.parametrize("value", ["fast", 1.5, None, [100]])
def test_an_override_must_be_a_whole_number(value):
    assert list(errors_of({"move_ms": value})) == ["move_ms"]


def test_unknown_limits_are_refused_each_by_name_listing_the_settable_ones():
    errors = errors_of({"cpu_seconds": 5, "move_msec": 100, "move_ms": 100})
    assert sorted(errors) == ["cpu_seconds", "move_msec"]
    expected = "no such limit; a tournament may set move_ms, bank_ms, match_ms, memory_mb, log_bytes"
    assert errors["cpu_seconds"] == [expected] and errors["move_msec"] == [expected]


def test_overrides_that_are_not_an_object_are_refused():
    serializer = TournamentLimitsInputSerializer(data=["move_ms"])
    assert not serializer.is_valid()
    assert "non_field_errors" in serializer.errors


def test_a_match_shows_every_limit_it_is_played_under_with_help():
    limits = {name: index + 1 for index, name in enumerate(limit_names())}
    assert MatchLimitsSerializer(limits).data == limits
    assert MatchLimitsSerializer({}).data == {}
    fields = MatchLimitsSerializer().fields
    assert list(fields) == list(limit_names())
    assert all(field.help_text for field in fields.values())
    assert fields["move_ms"].help_text == TOURNAMENT_LIMITS["move_ms"].help
