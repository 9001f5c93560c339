"""Playing the matches of one ``run_matches`` message on a worker, called as the task calls it (the service
path, no broker): claimed together in one transaction, every claimed lease renewed until its result is
recorded, the results recorded together (or as they come, past ``RESULTS_HOLD_S``), and a match that
cannot be played given back alone."""

import contextlib

import pytest
from django.db import connection

from ladder.models import Match, RatingChange
from ladder.services.play import match_sql
from ladder.services.play.matches import match_claim, match_claim_many
from ladder.services.tournaments.round_robins import tournament_create
from tests.factories import FIRST_LEGAL_BOT, LAST_LEGAL_BOT, BotFactory
from tests.held_elsewhere import held_elsewhere
from workers.execution import matches_execute

pytestmark = pytest.mark.django_db

#: A tenth of a second per decision: a match of some seconds, for the heartbeat to beat in.
STEADY_BOT = b"import time\n\ndef act(observation, legal_actions):\n    time.sleep(0.1)\n    return legal_actions[0]\n"


def round_robin(codes, *, games_per_pairing=1, rated=True, game="kingdomino"):
    bots = [BotFactory(code=code) for code in codes]
    tournament = tournament_create(created_by=None, game_slug=game, name="t", bot_ids=[b.id for b in bots],
                                   players_per_match=2, games_per_pairing=games_per_pairing, rated=rated)
    return list(tournament.matches.order_by("id").values_list("id", flat=True))


@contextlib.contextmanager
def statements_run():
    """The texts of the statements run meanwhile on this thread's connection, in order."""
    texts = []

    def remember(execute, sql, params, many, context):
        texts.append(sql)
        return execute(sql, params, many, context)

    with connection.execute_wrapper(remember):
        yield texts


def test_the_matches_of_a_message_are_claimed_together_played_and_recorded_together(settings):
    settings.RESULTS_HOLD_S = 3600
    ids = round_robin([FIRST_LEGAL_BOT, LAST_LEGAL_BOT, FIRST_LEGAL_BOT])
    assert len(ids) == 3
    with statements_run() as texts:
        outcomes = matches_execute(match_ids=ids, worker="here")
    assert outcomes == {match_id: "recorded" for match_id in ids}
    matches = Match.objects.filter(id__in=ids)
    assert {m.status for m in matches} == {"finished"} and {m.attempts for m in matches} == {1}
    assert RatingChange.objects.filter(match__in=ids).count() == 6
    # One claim for the three, one recording for the three.
    assert texts.count(match_sql.claim_many_sql()) == 1 and match_sql.claim_sql() not in texts
    assert texts.count(match_sql.finish_many_sql()) == 1
    # Delivered again, the message finds nothing to play.
    assert matches_execute(match_ids=ids, worker="here") == {match_id: "skipped" for match_id in ids}


def test_results_held_past_the_hold_are_recorded_before_the_next_match_begins(settings):
    ids = round_robin([FIRST_LEGAL_BOT, LAST_LEGAL_BOT, FIRST_LEGAL_BOT])
    seen = {}

    def played(match_id, seconds):
        seen[match_id] = sorted(Match.objects.filter(id__in=ids, status="finished").values_list("id", flat=True))

    settings.RESULTS_HOLD_S = 0
    matches_execute(match_ids=ids, worker="here", played=played)
    # Told after each match is played: the earlier ones are recorded by then, the last one is not yet.
    assert seen == {ids[0]: [], ids[1]: [ids[0]], ids[2]: ids[:2]}


def test_held_results_wait_for_the_last_match(settings):
    settings.RESULTS_HOLD_S = 3600
    ids = round_robin([FIRST_LEGAL_BOT, LAST_LEGAL_BOT, FIRST_LEGAL_BOT])
    seen = {}

    def played(match_id, seconds):
        seen[match_id] = Match.objects.filter(id__in=ids, status="finished").count()

    matches_execute(match_ids=ids, worker="here", played=played)
    assert seen == {ids[0]: 0, ids[1]: 0, ids[2]: 0}
    assert Match.objects.filter(id__in=ids, status="finished").count() == 3


def test_every_claimed_lease_is_renewed_while_the_message_plays_until_its_result_is_recorded(settings):
    settings.MATCH_HEARTBEAT_S = 0.2
    settings.RESULTS_HOLD_S = 0
    ids = round_robin([STEADY_BOT, FIRST_LEGAL_BOT, LAST_LEGAL_BOT])
    leases = {}

    def played(match_id, seconds):
        leases[match_id] = dict(Match.objects.filter(id__in=ids).values_list("id", "lease_expires_at"))

    matches_execute(match_ids=ids, worker="here", played=played)
    first, last = leases[ids[0]], leases[ids[-1]]
    # While the first (slow) match played, the last one's lease, claimed with it, was renewed ...
    assert first[ids[-1]] is not None and last[ids[-1]] > first[ids[-1]]
    # ... and the first one's, recorded before the second began, no longer is.
    assert first[ids[0]] is not None and last[ids[0]] is None


def test_a_match_that_cannot_be_played_is_given_back_alone(settings):
    settings.RESULTS_HOLD_S = 3600
    ids = round_robin([FIRST_LEGAL_BOT, LAST_LEGAL_BOT, FIRST_LEGAL_BOT])
    Match.objects.filter(id=ids[1]).update(options={"no_such_option": True})
    outcomes = matches_execute(match_ids=ids, worker="here")
    assert outcomes == {ids[0]: "recorded", ids[1]: "requeued", ids[2]: "recorded"}
    broken = Match.objects.get(id=ids[1])
    assert broken.status == "queued" and "no_such_option" in broken.failure_reason


def test_matches_claimed_elsewhere_or_missing_are_skipped(settings):
    ids = round_robin([FIRST_LEGAL_BOT, LAST_LEGAL_BOT, FIRST_LEGAL_BOT])
    elsewhere = match_claim(match_id=ids[1], worker="elsewhere")
    outcomes = matches_execute(match_ids=[*ids, 987654], worker="here")
    assert outcomes == {ids[0]: "recorded", ids[1]: "skipped", ids[2]: "recorded", 987654: "skipped"}
    held = Match.objects.get(id=ids[1])
    assert held.status == "running" and str(held.attempt_token) == elsewhere.token


def test_a_claim_of_many_takes_each_match_once_under_a_token_of_its_own():
    ids = round_robin([FIRST_LEGAL_BOT, LAST_LEGAL_BOT, FIRST_LEGAL_BOT], rated=False)
    with statements_run() as texts:
        claims = match_claim_many(match_ids=[ids[2], ids[0], ids[2], 987654], worker="here")
    # One statement claims them and reads them back (besides the transaction's own).
    transaction_control = ("SELECT set_config(", "SET LOCAL", "COMMIT", "SAVEPOINT", "RELEASE SAVEPOINT")
    assert [text for text in texts if not text.startswith(transaction_control)] == [match_sql.claim_many_sql()]
    assert [claim.match_id for claim in claims] == [ids[2], ids[0]]
    assert len({claim.token for claim in claims}) == 2
    for claim in claims:
        match = Match.objects.get(id=claim.match_id)
        assert (match.status, str(match.attempt_token), match.worker) == ("running", claim.token, "here")
        assert (claim.game, claim.players, claim.seed, claim.options, claim.limits) == (
            "kingdomino", 2, match.seed, match.options, match.limits)
        assert [(seat.position, seat.bot_name, seat.bot_version_id, seat.sha256) for seat in claim.seats] == [
            (seat.position, seat.bot.name, seat.bot_version_id, seat.bot_version.sha256)
            for seat in match.seats.order_by("position")]
    assert Match.objects.get(id=ids[1]).status == "queued"
    # A second claim finds them taken.
    assert match_claim_many(match_ids=ids, worker="there")[0].match_id == ids[1]
    assert match_claim_many(match_ids=ids, worker="there") == []


@pytest.mark.django_db(transaction=True)
def test_a_claim_of_many_waits_for_a_match_held_a_moment_elsewhere_rather_than_skipping_it():
    """A match's row held by another transaction (its message being marked sent, the reconciler) when the
    message that carries it is taken: skipped, the match would be left queued with its message spent."""
    import threading

    ids = round_robin([FIRST_LEGAL_BOT, LAST_LEGAL_BOT, FIRST_LEGAL_BOT], rated=False)
    holder, release = held_elsewhere(
        lambda: Match.objects.select_for_update().filter(id=ids[1]).update(enqueued_at=None))
    threading.Timer(0.3, release.set).start()
    claims = match_claim_many(match_ids=ids, worker="here")
    holder.join()
    assert [claim.match_id for claim in claims] == ids
