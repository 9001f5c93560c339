"""The matches' models (``ladder.models.matches``): a match's actions kept packed and read from either column,
saved and updated through the property, a seat's log and decisions kept in one packed column, the forfeit
rule, and the database constraints that hold a match's and a seat's invariants whoever writes them. The
shared setups are ``tests/ladder/test_match_setups.py``."""

from __future__ import annotations

import pytest
from django.db import IntegrityError, transaction

from ladder import packed_actions
from ladder.models import Game, Match, Seat
from tests.factories import (
    MatchFactory,
    SeatFactory,
)

pytestmark = pytest.mark.django_db

ACTIONS = [{"pick": 1}, {"place": [2, 3, "n"]}, "pass"]


def test_actions_are_read_from_the_packed_column_or_the_older_json():
    assert Match.actions_from(actions_json=[], actions_packed=packed_actions.pack(ACTIONS)) == ACTIONS
    assert Match.actions_from(actions_json=ACTIONS, actions_packed=None) == ACTIONS
    assert MatchFactory().actions == []


def test_assigned_actions_are_saved_packed_with_update_fields():
    match = MatchFactory()
    match.actions = ACTIONS
    assert match.actions_json == [] and packed_actions.unpack(match.actions_packed) == ACTIONS
    match.save(update_fields=["actions"])
    stored = Match.objects.get(pk=match.pk)
    assert stored.actions == ACTIONS and stored.actions_json == []


def test_a_queryset_update_of_actions_writes_the_packed_column():
    match = MatchFactory(actions_json=["old"])
    assert Match.objects.get(pk=match.pk).actions == ["old"]
    Match.objects.filter(pk=match.pk).update(actions=ACTIONS)
    stored = Match.objects.get(pk=match.pk)
    assert stored.actions == ACTIONS and stored.actions_json == []
    Match.objects.filter(pk=match.pk).update(actions=[])
    assert Match.objects.get(pk=match.pk).actions_packed is None


def test_the_actions_follow_a_reload():
    match = MatchFactory()
    assert match.actions == []
    Match.objects.filter(pk=match.pk).update(actions=ACTIONS)
    match.refresh_from_db()
    assert match.actions == ACTIONS


def test_a_seats_log_and_decisions_live_in_one_column():
    seat = SeatFactory()
    assert seat.log == "" and seat.decisions == []
    seat.log = "hello\n"
    seat.decisions = [{"step": 0, "ms": 3, "log": "thinking"}]
    assert seat.log == "hello\n"
    seat.save(update_fields=["log", "decisions"])
    stored = Seat.objects.get(pk=seat.pk)
    assert stored.log == "hello\n" and stored.decisions == [{"step": 0, "ms": 3, "log": "thinking"}]
    stored.log = "replaced"
    stored.save(update_fields=["log"])
    again = Seat.objects.get(pk=seat.pk)
    assert again.log == "replaced" and again.decisions == [{"step": 0, "ms": 3, "log": "thinking"}]


@pytest.mark.parametrize(("outcome", "forfeits"), [("ok", False), ("", False), ("timeout", True),
                                                   ("crash", True), ("illegal", True)])
def test_any_outcome_but_ok_or_not_played_forfeits(outcome, forfeits):
    assert Seat.outcome_forfeits(outcome) is forfeits


def refused(make) -> None:
    with pytest.raises(IntegrityError), transaction.atomic():
        make()


def test_a_match_belongs_to_a_tournament_and_a_done_or_running_one_has_its_times():
    refused(lambda: MatchFactory(tournament=None, game=Game.objects.get(slug="kingdomino")))
    refused(lambda: MatchFactory(status="finished", finished_at=None))
    refused(lambda: MatchFactory(status="running", attempt_token=None))
    match = MatchFactory()
    refused(lambda: MatchFactory(tournament=match.tournament, index=match.index))


def test_a_seat_is_one_per_position_and_version_and_its_place_positive():
    seat = SeatFactory()
    refused(lambda: SeatFactory(match=seat.match, position=seat.position))
    refused(lambda: SeatFactory(match=seat.match, bot=seat.bot, bot_version=seat.bot_version))
    refused(lambda: SeatFactory(place=0))
