"""The lease heartbeat thread of a worker process, against the real database, on the connection of the
thread that holds the match."""

import time

import pytest

from ladder.models import Match
from ladder.services.play.matches import match_claim, match_record_result
from ladder.services.tournaments.round_robins import tournament_create
from tests.ladder.services.play.test_matches_lifecycle import result_for
from workers.heartbeat import LeaseHeartbeat

# The heartbeat renews outside any transaction, which a test's own transaction would otherwise hold open.
pytestmark = pytest.mark.django_db(transaction=True)


@pytest.fixture
def claimed(bot_factory):
    a, b = bot_factory(), bot_factory()
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="t", bot_ids=[a.id, b.id],
                                   players_per_match=2, seed=5)
    match = tournament.matches.get()
    return match, match_claim(match_id=match.id, worker="here")


def lease_of(match) -> object:
    return Match.objects.values_list("lease_expires_at", flat=True).get(id=match.id)


def test_the_lease_is_renewed_while_the_match_is_held_and_not_after(claimed):
    match, claim = claimed
    heartbeat = LeaseHeartbeat(interval_s=0.2)
    first = lease_of(match)
    with heartbeat.holding(match_id=match.id, token=claim.token):
        time.sleep(0.9)
        renewed = lease_of(match)
    assert heartbeat.renewals >= 2 and renewed > first
    time.sleep(0.5)
    assert lease_of(match) == renewed
    assert heartbeat.renewals <= 5


def test_a_match_shorter_than_the_interval_costs_no_renewal(claimed):
    match, claim = claimed
    heartbeat = LeaseHeartbeat(interval_s=5)
    first = lease_of(match)
    for _ in range(20):
        with heartbeat.holding(match_id=match.id, token=claim.token):
            time.sleep(0.01)
    assert heartbeat.renewals == 0 and lease_of(match) == first


def test_a_lost_claim_stops_the_renewals(claimed):
    match, claim = claimed
    heartbeat = LeaseHeartbeat(interval_s=0.1)
    with heartbeat.holding(match_id=match.id, token=claim.token):
        with heartbeat.database():
            assert match_record_result(match_id=match.id, token=claim.token, result=result_for(claim)) is True
        time.sleep(0.6)
    # The first renewal found the match no longer running under the token and stopped there.
    assert heartbeat.renewals == 1
    assert lease_of(match) is None


def test_the_heartbeat_opens_no_connection_of_its_own(claimed):
    """It renews on the holder's connection: the database sees no new backend while it beats."""
    from django.db import connection

    match, claim = claimed

    def backends() -> int:
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = current_database()")
            return cursor.fetchone()[0]

    heartbeat = LeaseHeartbeat(interval_s=0.1)
    before = backends()
    with heartbeat.holding(match_id=match.id, token=claim.token):
        time.sleep(0.5)
        with heartbeat.database():
            during = backends()
    assert heartbeat.renewals >= 3
    assert during == before
