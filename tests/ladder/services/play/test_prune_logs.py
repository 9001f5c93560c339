"""``manage.py prune_logs``: the logs and decisions of old unrated matches go, their results stay."""

import io
import json
from datetime import timedelta

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone

from ladder.models import Match, Seat
from tests.factories import MatchFactory, RatedTournamentFactory, SeatFactory, TournamentFactory

pytestmark = pytest.mark.django_db

DECISIONS = [{"step": 0, "ms": 3, "log": "thinking\n"}, {"step": 2, "ms": 5, "log": "done\n"}]


def played(match, *, places=(1, 2)):
    seats = []
    for position, place in enumerate(places):
        seat = SeatFactory(match=match, position=position, score=10 - place, place=place, outcome="ok",
                           time_used_ms=40)
        seat.log, seat.decisions = "thinking\ndone\n" * 20, DECISIONS
        seat.save()
        seats.append(seat)
    return seats


def finished(tournament, *, days_ago: float):
    at = timezone.now() - timedelta(days=days_ago)
    return MatchFactory(tournament=tournament, status="finished", started_at=at, finished_at=at, actions=[{"x": 1}])


@pytest.fixture
def history():
    unrated = TournamentFactory()
    return {
        "old": played(finished(unrated, days_ago=40)),
        "recent": played(finished(unrated, days_ago=5)),
        "rated": played(finished(RatedTournamentFactory(), days_ago=40)),
        "queued": played(MatchFactory(tournament=unrated)),
    }


def prune(*args) -> dict:
    out = io.StringIO()
    call_command("prune_logs", *args, stdout=out, stderr=io.StringIO())
    return json.loads(out.getvalue())


def stored(seats) -> list:
    return list(Seat.objects.filter(id__in=[s.id for s in seats]).order_by("id")
                .values_list("score", "place", "outcome", "time_used_ms", "logs"))


def test_old_unrated_logs_go_and_their_results_stay(history):
    old_bytes = sum(len(bytes(s.logs)) for s in history["old"])
    before = {name: stored(seats) for name, seats in history.items()}
    dry = prune("--older-than", "30", "--dry-run")
    assert dry == {"matches": 1, "seats": 2, "bytes": old_bytes, "dry_run": True}
    assert {name: stored(seats) for name, seats in history.items()} == before
    assert prune("--older-than", "30") == {**dry, "dry_run": False}
    after = {name: stored(seats) for name, seats in history.items()}
    assert [row[:4] for row in after["old"]] == [row[:4] for row in before["old"]]
    assert [row[4] for row in after["old"]] == [None, None]
    for seat in Seat.objects.filter(id__in=[s.id for s in history["old"]]):
        assert (seat.log, seat.decisions) == ("", [])
    assert Match.objects.get(id=history["old"][0].match_id).actions == [{"x": 1}]
    for name in ("recent", "rated", "queued"):
        assert after[name] == before[name], name
    assert prune("--older-than", "30") == {"matches": 0, "seats": 0, "bytes": 0, "dry_run": False}
    # Zero days: every unrated match that has ended, the recent one too.
    assert prune("--older-than", "0")["seats"] == 2


@pytest.mark.parametrize("args", [("--older-than", "ten"), ("--older-than", "-1"), ("--older-than", "nan"),
                                  ("--older-than", "inf"), ()])
def test_bad_input_is_a_clear_error(args, history):
    with pytest.raises(CommandError) as error:
        prune(*args)
    message = str(error.value)
    assert "--older-than" in message or "older-than" in message
    assert all(row[4] is not None for row in stored(history["old"]))


def test_a_number_of_days_past_the_calendar_is_refused(history):
    with pytest.raises(CommandError, match="calendar"):
        prune("--older-than", "1e12")
