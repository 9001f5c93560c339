"""The continuous ladder's periodic tick."""

import random

import pytest

from ladder.models import Match, Tournament
from ladder.services.ladder import ladder_tick
from ladder.services.tournaments import tournament_create

pytestmark = pytest.mark.django_db


def test_tick_pairs_active_bots_at_low_priority(bot_factory, settings):
    settings.LADDER_MAX_BACKLOG = 100
    bots = [bot_factory() for _ in range(5)]
    bot_factory(active=False)
    scheduled = ladder_tick(matches_per_game=2, rng=random.Random(1))
    assert scheduled == {"kingdomino": 2}
    ladder = Tournament.objects.get(kind="ladder", game__slug="kingdomino")
    matches = list(ladder.matches.prefetch_related("seats"))
    seated = [seat.bot_id for match in matches for seat in match.seats.all()]
    assert len(seated) == len(set(seated)) == 4
    assert set(seated) <= {b.id for b in bots}
    assert {m.priority for m in matches} == {5} and {m.index for m in matches} == {0, 1}
    assert ladder_tick(matches_per_game=1, rng=random.Random(2)) == {"kingdomino": 1}
    assert ladder.matches.count() == 3


def test_tournaments_come_first(bot_factory, settings):
    settings.LADDER_MAX_BACKLOG = 3
    bots = [bot_factory() for _ in range(3)]
    tournament_create(created_by=None, game_slug="kingdomino", name="cup", bot_ids=[b.id for b in bots],
                      players_per_match=2)
    assert ladder_tick(matches_per_game=2) == {}
    assert not Match.objects.filter(tournament__kind="ladder").exists()


def test_tick_does_nothing_when_disabled_or_alone(bot_factory, settings):
    bot_factory()
    assert ladder_tick() == {}
    settings.LADDER_ENABLED = False
    bot_factory()
    assert ladder_tick() == {}


def test_ticks_with_exactly_two_bots_keep_scheduling_one_match_each(bot_factory, settings):
    """Two bots make one match per tick, so the first tick leaves the ladder's highest index at 0: every
    later tick must number its match after it, not collide with it."""
    settings.LADDER_MAX_BACKLOG = 1000
    bot_factory()
    bot_factory()
    for tick in range(12):
        assert ladder_tick(matches_per_game=4, rng=random.Random(tick)) == {"kingdomino": 1}
    ladder = Tournament.objects.get(kind="ladder", game__slug="kingdomino")
    assert sorted(ladder.matches.values_list("index", flat=True)) == list(range(12))
    assert len(set(ladder.matches.values_list("seed", flat=True))) == 12
