"""``ladder.services.ratings.collusion``: a pair whose results against each other depart from the rest of
their games is flagged, held out of the ratings, the pair records and the ladder's pairing, and staff's review
puts its games back or keeps them out."""

from __future__ import annotations

import pytest

from ladder.core.errors import ServiceError
from ladder.models import Game, Match, PairFlag, PairRecord, Rating, RatingChange
from ladder.services.ratings.collusion import collusion_screen, held_pairs, pair_flag_review
from ladder.services.ratings.rating_rebuild import ratings_rebuild
from ladder.services.tournaments.ladder import ladder_field, ladder_tournament_get
from tests.factories import (
    BotFactory,
    MatchFactory,
    RatedTournamentFactory,
    SeatFactory,
    StaffFactory,
    rated_result,
)

pytestmark = pytest.mark.django_db(transaction=True)


def elo(bot) -> float:
    return Rating.objects.get(bot=bot).elo


@pytest.fixture
def arranged(settings):
    """Six equal bots, a weak ``climber`` that loses 9 of 10 to each of them, a ``thrower`` that splits its
    games with them and loses 12 of 12 to the climber."""
    settings.COLLUSION_SCREEN_MIN_GAMES = 4
    settings.COLLUSION_SCREEN_P = 1e-5
    game = Game.objects.get(slug="kingdomino")
    field = [BotFactory(game=game, name=f"field{i}") for i in range(6)]
    climber, thrower = BotFactory(game=game, name="climber"), BotFactory(game=game, name="thrower")
    tournament = RatedTournamentFactory(game=game, bots=[*field, climber, thrower])
    for round_ in range(10):
        for i, a in enumerate(field):
            for b in field[i + 1:]:
                rated_result(bots=[a, b], places=[1, 2] if round_ % 2 else [2, 1], tournament=tournament)
            rated_result(bots=[a, climber], places=[2, 1] if round_ == 0 else [1, 2], tournament=tournament)
            rated_result(bots=[a, thrower], places=[1, 2] if round_ % 2 else [2, 1], tournament=tournament)
    for _ in range(12):
        rated_result(bots=[climber, thrower], places=[1, 2], tournament=tournament)
    return {"game": game, "field": field, "climber": climber, "thrower": thrower}


def test_an_arranged_pair_is_flagged_and_its_games_held_out_of_the_ratings(arranged):
    game, climber, thrower = arranged["game"], arranged["climber"], arranged["thrower"]
    with_arranged = elo(climber)
    ladder = ladder_tournament_get(game=game)
    queued = MatchFactory(tournament=ladder)
    SeatFactory(match=queued, position=0, bot=climber)
    SeatFactory(match=queued, position=1, bot=thrower)

    flags = collusion_screen(game=game)

    assert [(f.bot_low_id, f.bot_high_id, f.status) for f in flags] == [(climber.id, thrower.id, "held")]
    assert flags[0].weight == 12 and flags[0].score == 12 and flags[0].p_value < 1e-5
    # What the twelve arranged games gave the climber is gone; the rest of its history stands.
    assert elo(climber) < with_arranged - 100
    pair_matches = Match.objects.filter(seats__bot=climber).filter(seats__bot=thrower)
    assert not RatingChange.objects.filter(match__in=pair_matches).exists()
    assert RatingChange.objects.filter(bot=climber).count() == 60
    assert not PairRecord.objects.filter(bot_low=climber, bot_high=thrower).exists()
    # The ladder never seats them together again, and their queued match is never played.
    assert not Match.objects.filter(pk=queued.pk).exists()
    assert held_pairs(game_id=game.id) == {frozenset({climber.id, thrower.id})}
    assert frozenset({climber.id, thrower.id}) in ladder_field(game=game, now=queued.created_at).apart
    # A second screen finds nothing new, and a rebuild keeps the pair out.
    assert collusion_screen(game=game) == []
    held_elo = elo(climber)
    ratings_rebuild(game_slug=game.slug)
    assert elo(climber) == pytest.approx(held_elo)


def test_honest_results_are_not_flagged(arranged):
    game = arranged["game"]
    # The same history without the arranged games: the climber's few wins are what its standing allows.
    Match.objects.filter(seats__bot=arranged["climber"]).filter(seats__bot=arranged["thrower"]).delete()
    ratings_rebuild(game_slug=game.slug)
    assert collusion_screen(game=game) == []
    assert not PairFlag.objects.exists()


def test_a_result_rated_while_the_pair_was_flagged_is_undone_by_the_next_screen(arranged):
    game, climber, thrower = arranged["game"], arranged["climber"], arranged["thrower"]
    collusion_screen(game=game)
    held_elo = elo(climber)
    # A match of the pair that was being played when the flag came is rated as it finishes...
    rated_result(bots=[climber, thrower], places=[1, 2], tournament=ladder_tournament_get(game=game))
    assert elo(climber) > held_elo
    # ...and the next screen takes it out again.
    assert collusion_screen(game=game) == []
    assert elo(climber) == pytest.approx(held_elo)


def test_staff_clear_a_flag_and_the_games_count_again_and_confirm_keeps_them_out(arranged):
    game, climber = arranged["game"], arranged["climber"]
    with_arranged = elo(climber)
    flag = collusion_screen(game=game)[0]
    with pytest.raises(ServiceError) as refused:
        pair_flag_review(flag_id=flag.id, reviewer=arranged["field"][0].owner, verdict="cleared")
    assert refused.value.status == 403
    staff = StaffFactory()
    pair_flag_review(flag_id=flag.id, reviewer=staff, verdict="confirmed", note="signed first move")
    assert elo(climber) < with_arranged - 100
    cleared = pair_flag_review(flag_id=flag.id, reviewer=staff, verdict="cleared")
    assert cleared.status == "cleared" and cleared.reviewed_by == staff
    assert elo(climber) == pytest.approx(with_arranged)
    assert held_pairs(game_id=game.id) == set()
    # A cleared pair is not flagged again for the games staff looked at.
    assert collusion_screen(game=game) == []


def test_the_bot_pages_of_staff_show_the_flag_and_nobody_else_sees_it(arranged, client):
    climber, thrower = arranged["climber"], arranged["thrower"]
    collusion_screen(game=arranged["game"])
    client.force_login(StaffFactory())
    page = client.get(f"/bots/{thrower.id}/").content.decode()
    assert "Flagged pairs" in page and "climber" in page and "held" in page
    client.force_login(climber.owner)
    assert "Flagged pairs" not in client.get(f"/bots/{climber.id}/").content.decode()
