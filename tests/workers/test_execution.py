"""Playing a match on a worker, called as the task calls it (the service path, no broker)."""

import pytest

from ladder.models import Match, RatingChange
from ladder.services.tournaments.round_robins import tournament_create
from tests.factories import FIRST_LEGAL_BOT, LAST_LEGAL_BOT, BotFactory
from workers.execution import match_execute

pytestmark = pytest.mark.django_db

# Half a second per decision: within the default 1 s per move, beyond 200 ms with no bank.
SLOW_BOT = b"import time\n\ndef act(observation, legal_actions):\n    time.sleep(0.5)\n    return legal_actions[0]\n"


@pytest.fixture
def match(bot_factory):
    a, b = bot_factory(code=FIRST_LEGAL_BOT), bot_factory(code=LAST_LEGAL_BOT)
    # Rated (the server's own), so that recording it moves ratings.
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="t", bot_ids=[a.id, b.id],
                                   players_per_match=2, rated=True)
    return tournament.matches.get()


def test_a_match_is_played_in_the_sandbox_and_recorded_once(match):
    assert match_execute(match_id=match.id, worker="here") == "recorded"
    assert match_execute(match_id=match.id, worker="here") == "skipped"
    match.refresh_from_db()
    assert match.status == "finished" and match.attempts == 1 and len(match.actions) > 10
    assert sorted(match.seats.values_list("place", flat=True)) in ([1, 2], [1, 1])
    assert set(match.seats.values_list("outcome", flat=True)) == {"ok"}
    assert RatingChange.objects.filter(match=match).count() == 2


def test_a_missing_match_is_done_not_an_error(db):
    assert match_execute(match_id=987654, worker="here") == "skipped"


def test_a_match_that_cannot_be_played_is_retried_then_failed(match, settings):
    settings.MATCH_MAX_ATTEMPTS = 2
    Match.objects.filter(id=match.id).update(options={"no_such_option": True})
    assert match_execute(match_id=match.id) == "requeued"
    assert match_execute(match_id=match.id) == "failed"
    match.refresh_from_db()
    assert match.status == "failed" and match.attempts == 2
    assert "no_such_option" in match.failure_reason
    assert not RatingChange.objects.filter(match=match).exists()


def test_a_match_is_played_under_its_tournaments_limits_whatever_the_settings_say_later(settings):
    slow, quick = BotFactory(code=SLOW_BOT), BotFactory(code=FIRST_LEGAL_BOT)
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="blitz", bot_ids=[slow.id, quick.id],
                                   players_per_match=2, seed=3, limits={"move_ms": 200, "bank_ms": 0})
    match = tournament.matches.get()
    # Settings changed after scheduling (a deploy, a retry on another worker) do not change the match.
    settings.BOTS_MOVE_MS, settings.BOTS_BANK_MS = 5000, 30000
    assert match_execute(match_id=match.id, worker="here") == "recorded"
    seats = {seat.bot_id: seat for seat in match.seats.all()}
    assert (seats[slow.id].outcome, seats[slow.id].place) == ("timeout", 2)
    assert "200 ms plus a bank of 0 ms" in seats[slow.id].reason
    assert seats[quick.id].outcome == "ok"


def test_a_match_is_played_under_its_games_limits(settings):
    settings.BOTS_LIMITS_BY_GAME = {"kingdomino": {"move_ms": 200, "bank_ms": 0}}
    slow, quick = BotFactory(code=SLOW_BOT), BotFactory(code=FIRST_LEGAL_BOT)
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="t", bot_ids=[slow.id, quick.id],
                                   players_per_match=2, seed=4)
    match = tournament.matches.get()
    assert match_execute(match_id=match.id, worker="here") == "recorded"
    assert match.seats.get(bot=slow).outcome == "timeout"
    assert match.seats.get(bot=quick).outcome == "ok"


def test_a_match_stored_before_match_time_existed_plays_under_todays_setting(settings):
    """Limits stored without match_ms (scheduled by the previous version) still play: the setting fills in."""
    steady = SLOW_BOT.replace(b"0.5", b"0.1")
    slow, quick = BotFactory(code=steady), BotFactory(code=FIRST_LEGAL_BOT)
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="old",
                                   bot_ids=[slow.id, quick.id], players_per_match=2, seed=5)
    match = tournament.matches.get()
    stored = {name: value for name, value in match.limits.items() if name != "match_ms"}
    Match.objects.filter(id=match.id).update(limits=stored)
    settings.BOTS_MATCH_MS = 500
    assert match_execute(match_id=match.id, worker="here") == "recorded"
    match.refresh_from_db()
    assert match.status == "finished" and "match_ms" not in match.limits
    assert (match.seats.get(bot=slow).outcome, match.seats.get(bot=slow).reason) == (
        "timeout", "the bot used its 500 ms for the whole match")
    assert match.seats.get(bot=quick).outcome == "ok"
