"""Ratings applied once per match, and rebuild_ratings reproducing them exactly."""

import random

import pytest
from django.core.management import call_command

from bots.referee import MatchResult, SeatResult
from ladder.models import Rating, RatingChange
from ladder.services.matches import match_claim, match_record_result
from ladder.services.rating_updates import seat_record
from ladder.services.tournaments import tournament_create

pytestmark = pytest.mark.django_db


def play_all(tournament, rng):
    for match in tournament.matches.order_by("?"):
        claim = match_claim(match_id=match.id)
        places = [rng.randint(1, claim.players) for _ in claim.seats]
        outcomes = ["ok" if rng.random() > 0.1 else "crash" for _ in claim.seats]
        result = MatchResult(
            game=claim.game, players=claim.players, seed=claim.seed, options=claim.options, actions=[],
            seats=[SeatResult(bot=s.bot_name, score=0, place=p, outcome=o, reason="", time_used_ms=1, log="")
                   for s, p, o in zip(claim.seats, places, outcomes)],
            duration_s=0.1,
        )
        assert match_record_result(match_id=match.id, token=claim.token, result=result)


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


def test_two_player_elo_is_conserved_with_equal_k(bot_factory, settings):
    settings.RATING_PROVISIONAL_K = settings.RATING_K
    bots = [bot_factory() for _ in range(4)]
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="t", rated=True,
                                   bot_ids=[b.id for b in bots], players_per_match=2, games_per_pairing=2)
    play_all(tournament, random.Random(7))
    assert sum(Rating.objects.values_list("elo", flat=True)) == pytest.approx(1500.0 * 4)


@pytest.mark.parametrize(
    "place,places,forfeited,expected",
    [(1, [1, 2], False, "win"), (1, [1, 1], False, "draw"), (2, [1, 2], False, "loss"), (1, [1, 2], True, "loss"),
     (1, [1, 1, 3], False, "draw")],
)
def test_seat_record(place, places, forfeited, expected):
    assert seat_record(place=place, places=places, forfeited=forfeited) == expected


def test_a_rating_row_deleted_by_hand_is_recreated_when_a_result_is_recorded(bot_factory):
    bots = [bot_factory() for _ in range(2)]
    tournament = tournament_create(created_by=None, game_slug="kingdomino", name="t", rated=True,
                                   bot_ids=[b.id for b in bots], players_per_match=2, games_per_pairing=1)
    Rating.objects.filter(bot=bots[0]).delete()
    play_all(tournament, random.Random(1))
    rows = {r.bot_id: r for r in Rating.objects.filter(bot__in=bots)}
    assert set(rows) == {bots[0].id, bots[1].id}
    assert rows[bots[0].id].games == rows[bots[1].id].games == 1
    assert RatingChange.objects.filter(bot=bots[0]).count() == 1
