"""Playing a match on a worker, called as the task calls it (the service path, no broker)."""

import pytest

from ladder.models import Match, RatingChange
from ladder.services.tournaments import tournament_create
from tests.conftest import FIRST_LEGAL_BOT, LAST_LEGAL_BOT
from workers.code_cache import CodeCache
from workers.execution import match_execute

pytestmark = pytest.mark.django_db


@pytest.fixture
def match(bot_factory):
    a, b = bot_factory(code=FIRST_LEGAL_BOT), bot_factory(code=LAST_LEGAL_BOT)
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="t", bot_ids=[a.id, b.id],
                                   players_per_match=2, seed=3)
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


def test_code_is_fetched_once_per_checksum(match):
    cache = CodeCache()
    shas = list(match.seats.values_list("bot_version__sha256", flat=True))
    first = cache.get_many(shas)
    again = cache.get_many(shas)
    assert first == again and set(first.values()) == {FIRST_LEGAL_BOT, LAST_LEGAL_BOT}
    assert (cache.misses, cache.hits) == (2, 2)
    with pytest.raises(KeyError):
        cache.get_many(["0" * 64])
