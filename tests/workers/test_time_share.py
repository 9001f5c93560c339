"""The share of a worker process's time that upload checks may take while matches wait: the ledger's
arithmetic, and the check task's path on the service side (no broker consumer: the task's function called
as the task calls it)."""

import uuid

import pytest

import workers.time_share as time_share_module
from ladder.messaging.enqueue import broker_queue_length
from ladder.models import BotVersion, Match
from ladder.services.tournaments.round_robins import tournament_create
from tests.conftest import broker_queue_purge
from tests.factories import BotVersionFactory
from workers.time_share import CheckShare, check_share, match_timed, validation_run


def test_a_check_while_matches_wait_owes_them_the_rest_of_the_share():
    ledger = CheckShare(0.25)
    ledger.check_ran(2.0, matches_waited=True)
    # A quarter for checks: each second of checking owes three of matches.
    assert ledger.owed_s == pytest.approx(6.0) and ledger.owes
    ledger.match_ran(5.0)
    assert ledger.owed_s == pytest.approx(1.0) and ledger.owes
    ledger.match_ran(5.0)
    assert ledger.owed_s == 0 and not ledger.owes


def test_play_banks_no_credit_and_checks_nobody_waited_for_owe_nothing():
    ledger = CheckShare(0.5)
    ledger.match_ran(100.0)
    ledger.check_ran(3.0, matches_waited=False)
    assert not ledger.owes
    ledger.check_ran(3.0, matches_waited=True)
    assert ledger.owed_s == pytest.approx(3.0)


def test_a_share_of_one_never_owes_and_nonsense_is_refused():
    ledger = CheckShare(1.0)
    ledger.check_ran(60.0, matches_waited=True)
    assert not ledger.owes
    for share in (0, -0.5, 1.5):
        with pytest.raises(ValueError):
            CheckShare(share)


@pytest.fixture
def fresh_ledger(settings, monkeypatch):
    """A fresh ledger of this process at a share of a half."""
    settings.VALIDATION_MAX_SHARE = 0.5
    monkeypatch.setattr(time_share_module, "_ledger", None)
    return check_share()


@pytest.fixture
def queued_match(bot_factory):
    a, b = bot_factory(), bot_factory()
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="t", bot_ids=[a.id, b.id],
                                   players_per_match=2, seed=3)
    return tournament.matches.get()


@pytest.mark.django_db
def test_in_debt_a_check_plays_a_waiting_match_and_goes_back_to_its_queue(fresh_ledger, queued_match, settings,
                                                                           bot_factory, request):
    settings.VALIDATION_QUEUE = f"test-{uuid.uuid4().hex[:10]}.validation"
    request.addfinalizer(lambda: broker_queue_purge(settings.VALIDATION_QUEUE))
    pending = BotVersionFactory(bot=bot_factory(), validation_status="pending")
    fresh_ledger.owed_s = 0.001
    before = broker_queue_length(settings.VALIDATION_QUEUE) or 0
    assert validation_run(version_id=pending.id, worker="here") == "deferred"
    queued_match.refresh_from_db()
    assert queued_match.status == "finished"
    assert BotVersion.objects.get(pk=pending.pk).validation_status == "pending"
    assert broker_queue_length(settings.VALIDATION_QUEUE) == before + 1
    # The match paid the debt back: with nothing waiting any more, the check runs, and owes nothing.
    assert not fresh_ledger.owes
    assert validation_run(version_id=pending.id, worker="here") == "accepted"
    assert not fresh_ledger.owes


@pytest.mark.django_db
def test_a_check_run_while_a_match_waits_is_owed_to_it(fresh_ledger, queued_match, bot_factory):
    pending = BotVersionFactory(bot=bot_factory(), validation_status="pending")
    assert validation_run(version_id=pending.id, worker="here") == "accepted"
    assert fresh_ledger.owes
    assert Match.objects.get(pk=queued_match.pk).status == "queued"
    # Its own message then finds it done; a skipped match costs the ledger nothing.
    owed = fresh_ledger.owed_s
    assert match_timed(match_id=queued_match.id, worker="here") == "recorded"
    assert fresh_ledger.owed_s < owed
    owed = fresh_ledger.owed_s
    assert match_timed(match_id=queued_match.id, worker="here") == "skipped"
    assert fresh_ledger.owed_s == owed


@pytest.mark.django_db
def test_a_decided_version_is_never_deferred(fresh_ledger, queued_match, bot_factory):
    decided = BotVersionFactory(bot=bot_factory(), validation_status="accepted")
    fresh_ledger.owed_s = 100.0
    assert validation_run(version_id=decided.id, worker="here") == "accepted"
    assert Match.objects.get(pk=queued_match.pk).status == "queued"
