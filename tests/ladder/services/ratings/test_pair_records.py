"""The pair records the leaderboard's confidence fit reads: kept by the recorder in the transaction that
rates a match, equal to the history read pairwise as the ratings read it, rebuilt by ``rebuild_ratings``,
and backfilled by their migration."""

from __future__ import annotations

import random
from collections import defaultdict

import pytest
from django.core.management import call_command

from bots.referee import MatchResult, SeatResult
from ladder.models import Match, PairRecord, Seat
from ladder.ratings.bradley_terry import match_pairwise_results
from ladder.ratings.tables import crosstable
from ladder.services.play.matches import match_claim, match_record_result
from ladder.services.tournaments.round_robins import tournament_create
from tests.ladder.migration_steps import migrate, migrate_to_latest

pytestmark = pytest.mark.django_db


def play(tournament, rng) -> None:
    """Record every match of ``tournament`` with random places (ties included) and some forfeits."""
    for match in tournament.matches.order_by("index"):
        claim = match_claim(match_id=match.id)
        places = [rng.randint(1, claim.players) for _ in claim.seats]
        outcomes = ["ok" if rng.random() > 0.15 else "timeout" for _ in claim.seats]
        result = MatchResult(
            game=claim.game, players=claim.players, seed=claim.seed, options=claim.options, actions=[],
            seats=[SeatResult(bot=s.bot_name, score=0, place=p, outcome=o, reason="", time_used_ms=1, log="")
                   for s, p, o in zip(claim.seats, places, outcomes, strict=True)],
            duration_s=0.1,
        )
        assert match_record_result(match_id=match.id, token=claim.token, result=result)


def history_read_pairwise(game) -> dict[tuple[int, int], tuple]:
    """The finished rated matches of ``game`` read by ``ladder.ratings`` (an independent path):
    per pair of bots, the lower id first, its wins, draws, losses, total weight and weighted score."""
    seats = defaultdict(list)
    rated = Match.objects.filter(game=game, status="finished", tournament__rated=True)
    for seat in Seat.objects.filter(match__in=rated).order_by("match_id", "position"):
        seats[seat.match_id].append((seat.bot_id, seat.place, 0, Seat.outcome_forfeits(seat.outcome)))
    table = crosstable(seats.values())
    totals: dict[tuple[int, int], list[float]] = defaultdict(lambda: [0.0, 0.0])
    for a, b, score_a, weight in match_pairwise_results(seats.values()):
        low, high, score = (a, b, score_a) if a < b else (b, a, 1.0 - score_a)
        totals[low, high][0] += weight
        totals[low, high][1] += weight * score
    return {(low, high): (table[low][high].wins, table[low][high].draws, table[low][high].losses,
                          pytest.approx(weight), pytest.approx(score))
            for (low, high), (weight, score) in totals.items()}


def records(game) -> dict[tuple[int, int], tuple]:
    return {(r.bot_low_id, r.bot_high_id): (r.wins, r.draws, r.losses, r.weight, r.score)
            for r in PairRecord.objects.filter(game=game)}


@pytest.mark.parametrize("players", [2, 3, 4])
def test_recorded_matches_add_their_pairs_as_the_ratings_read_them(bot_factory, players):
    bots = [bot_factory() for _ in range(5)]
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="t", rated=True,
                                   bot_ids=[b.id for b in bots], players_per_match=players, games_per_pairing=2)
    play(tournament, random.Random(players))
    expected = history_read_pairwise(tournament.game)
    assert len(expected) == 10
    assert records(tournament.game) == expected


def test_rebuild_ratings_rebuilds_the_records_from_the_history(bot_factory):
    bots = [bot_factory() for _ in range(4)]
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="t", rated=True,
                                   bot_ids=[b.id for b in bots], players_per_match=3, games_per_pairing=2)
    play(tournament, random.Random(11))
    kept = records(tournament.game)
    PairRecord.objects.filter(game=tournament.game).update(wins=0, weight=0.0)  # drift, to be repaired
    call_command("rebuild_ratings", "kingdomino")
    assert records(tournament.game) == {pair: (*counts[:3], pytest.approx(counts[3]), pytest.approx(counts[4]))
                                        for pair, counts in kept.items()}


def test_unrated_matches_add_no_pairs(bot_factory):
    bots = [bot_factory() for _ in range(3)]
    tournament = tournament_create(created_by=bots[0].owner, game_slug="kingdomino", name="mine",
                                   bot_ids=[b.id for b in bots], players_per_match=2, games_per_pairing=1)
    play(tournament, random.Random(2))
    assert not PairRecord.objects.exists()


BEFORE = [("ladder", "0010_worker_seconds")]
AFTER = [("ladder", "0011_pair_records")]


@pytest.mark.django_db(transaction=True)
def test_the_migration_sums_the_rated_history_into_pair_records(bot_factory):
    bots = [bot_factory() for _ in range(4)]
    rated = tournament_create(created_by=None, game_slug="kingdomino", name="rated", rated=True,
                              bot_ids=[b.id for b in bots], players_per_match=3, games_per_pairing=1)
    play(rated, random.Random(5))
    unrated = tournament_create(created_by=bots[0].owner, game_slug="kingdomino", name="mine",
                                bot_ids=[b.id for b in bots], players_per_match=2, games_per_pairing=1)
    play(unrated, random.Random(6))
    expected = history_read_pairwise(rated.game)
    try:
        migrate(BEFORE)
        new = migrate(AFTER)
        rows = new.get_model("ladder", "PairRecord").objects.all()
        assert {(r.bot_low_id, r.bot_high_id): (r.wins, r.draws, r.losses, r.weight, r.score) for r in rows} == expected
    finally:
        migrate_to_latest()
