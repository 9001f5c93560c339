"""``rebuild_ratings`` (``ladder.services.ratings.rating_rebuild``): the ratings rebuilt from the history
reproduce the online ones exactly while results keep coming (none lost, none applied twice); rated matches
that were never applied are applied after the rest; a result left to the rebuild while it held the applier
lock is applied when it lets go."""

import random

import pytest
from django.core.management import call_command

from ladder.models import PendingRating, Rating, RatingChange, Tournament
from ladder.services.play.matches import match_record_result
from ladder.services.ratings.rating_rebuild import rebuild_aside, rebuild_sums, rebuild_swap
from ladder.services.tournaments.round_robins import tournament_create
from tests.ladder.services.ratings.test_rating_applier import (
    apply_lock_held,
    assert_history_is_one_sequential_chain,
    claimed_results,
    play_all,
    rated_round_robin,
)

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize("players", [2, 3])
def test_rebuild_equals_incremental(bot_factory, settings, players):
    settings.RATING_PROVISIONAL_GAMES = 3
    bots = [bot_factory() for _ in range(5)]
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="t", rated=True,
                                   bot_ids=[b.id for b in bots], players_per_match=players, games_per_pairing=2)
    play_all(tournament, random.Random(players))
    incremental = {r.bot_id: (r.elo, r.games, r.wins, r.draws, r.losses) for r in Rating.objects.all()}
    history = list(RatingChange.objects.values_list("bot_id", "before", "after"))
    call_command("rebuild_ratings", "kingdomino")
    rebuilt = {r.bot_id: (r.elo, r.games, r.wins, r.draws, r.losses) for r in Rating.objects.all()}
    assert rebuilt == incremental
    assert list(RatingChange.objects.values_list("bot_id", "before", "after")) == history
    assert sum(r[1] for r in rebuilt.values()) == players * tournament.matches.count()


@pytest.mark.django_db(transaction=True)
def test_results_recorded_during_a_rebuild_are_neither_lost_nor_applied_twice(bot_factory, settings):
    """Between the rebuild's read of the history and its swap, one result is applied and another waits
    pending (its applier busy): the swap replays the first on top of the rebuilt ratings and applies the
    second, each once, in order."""
    settings.RATING_PROVISIONAL_GAMES = 2
    tournament = rated_round_robin(bot_factory, bots=4, games=2)
    work = claimed_results(tournament, random.Random(3))
    for match_id, token, result in work[:-2]:
        assert match_record_result(match_id=match_id, token=token, result=result)
    # A history changed by hand, which the rebuild repairs.
    first = RatingChange.objects.order_by("id").first()
    Rating.objects.filter(bot_id=first.bot_id).update(elo=1000.0)
    plan = rebuild_aside(game_id=tournament.game_id)
    match_id, token, result = work[-2]
    assert match_record_result(match_id=match_id, token=token, result=result)
    with apply_lock_held(tournament.game_id):
        match_id, token, result = work[-1]
        assert match_record_result(match_id=match_id, token=token, result=result)
        assert PendingRating.objects.count() == 1
    assert rebuild_swap(plan) == len(work)
    assert not PendingRating.objects.exists()
    assert RatingChange.objects.count() == 2 * len(work)
    assert RatingChange.objects.values("match_id").distinct().count() == len(work)
    assert_history_is_one_sequential_chain(tournament.game_id)


def test_a_rebuild_applies_rated_matches_that_were_never_applied_after_the_rest(bot_factory, settings):
    """A tournament marked rated after its matches were recorded: the rebuild applies them after the
    history, by finish time, once."""
    settings.RATING_PROVISIONAL_GAMES = 2
    rated = rated_round_robin(bot_factory, bots=3, games=1)
    for match_id, token, result in claimed_results(rated, random.Random(5)):
        assert match_record_result(match_id=match_id, token=token, result=result)
    later = tournament_create(created_by=None, game_slug="kingdomino", name="later", rated=False, seed=9,
                              bot_ids=list(rated.bots.values_list("id", flat=True)), players_per_match=2,
                              games_per_pairing=1)
    for match_id, token, result in claimed_results(later, random.Random(6)):
        assert match_record_result(match_id=match_id, token=token, result=result)
    assert not RatingChange.objects.filter(match__tournament=later).exists()
    Tournament.objects.filter(id=later.id).update(rated=True, seed=None)
    call_command("rebuild_ratings", "kingdomino")
    applied = list(RatingChange.objects.order_by("id").values_list("match_id", flat=True))
    assert applied[:6] == list(RatingChange.objects.filter(match__tournament=rated).order_by("id")
                               .values_list("match_id", flat=True))
    assert list(dict.fromkeys(applied[6:])) == list(later.matches.order_by("finished_at", "id")
                                                    .values_list("id", flat=True))
    assert not PendingRating.objects.exists()
    assert_history_is_one_sequential_chain(rated.game_id)


@pytest.mark.django_db(transaction=True)
@pytest.mark.parametrize("part", ["swap", "sums"])
def test_a_result_left_to_the_rebuild_while_it_held_the_applier_lock_is_applied_when_it_lets_go(bot_factory, part):
    """A recorder that finds the game's applier lock taken leaves its result pending to the lock's holder.
    Each part of a rebuild that holds that lock (the swap, the pair records' sums) is such a holder: a
    result committed while it held the lock is applied once it lets go, not left for the reconciler."""
    tournament = rated_round_robin(bot_factory, bots=2, games=1)
    (match_id, token, result), = claimed_results(tournament, random.Random(3))
    with apply_lock_held(tournament.game_id):
        assert match_record_result(match_id=match_id, token=token, result=result)
    # As it stands when the rebuild's part ends: the result committed, its recorder gone, nothing applied.
    assert list(PendingRating.objects.values_list("match_id", flat=True)) == [match_id]
    if part == "swap":
        rebuild_swap(rebuild_aside(game_id=tournament.game_id))
    else:
        rebuild_sums(game_id=tournament.game_id)
    assert not PendingRating.objects.exists()
    assert RatingChange.objects.filter(match_id=match_id).count() == 2
    assert_history_is_one_sequential_chain(tournament.game_id)
