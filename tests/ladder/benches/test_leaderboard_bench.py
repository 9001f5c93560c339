"""The leaderboard bench's generated history (``ladder.benches.leaderboard``) is what it claims: finished
rated ladder matches whose pair records and ratings agree with their seats, read by the same leaderboard."""

from __future__ import annotations

import pytest

from ladder.benches.leaderboard import _field_fit, _History
from ladder.models import Match, PairRecord, Rating
from tests.ladder.services.ratings.test_pair_records import history_read_pairwise, records

pytestmark = pytest.mark.django_db


def test_the_generated_history_grows_with_its_pair_records_and_ratings(api_client):
    history = _History(bots=6)
    history.grow_to(300)
    history.grow_to(700)
    game = history.game
    assert Match.objects.filter(tournament=history.tournament, status="finished").count() == 700
    assert records(game) == history_read_pairwise(game)
    assert sum(PairRecord.objects.filter(game=game).values_list("weight", flat=True)) == pytest.approx(700)
    assert sum(Rating.objects.filter(game=game).values_list("games", flat=True)) == 1400
    # The strongest bot (the last) won most of its games, and the leaderboard reads it.
    board = api_client.get("/api/leaderboards/kingdomino/").json()
    assert board[0]["bot"] == "bench-005" and board[0]["p_above"] > 0.5
    history.fit_from_history()


def test_the_recorder_costs_are_measured_on_recorded_matches():
    history = _History(bots=4)
    history.grow_to(50)
    with_pairs, without_pairs = history.record_costs(4, batch=2)
    assert with_pairs > 0 and without_pairs > 0
    # Two batches of two with the pair records' writes, two without.
    assert sum(PairRecord.objects.values_list("weight", flat=True)) == pytest.approx(50 + 4)
    assert Match.objects.filter(status="finished").count() == 58


def test_the_field_fit_covers_every_pair():
    assert len(_field_fit(5)()) == 5
