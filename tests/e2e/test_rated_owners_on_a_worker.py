"""Ladder ticks between bots of few owners, played by a real ``celery worker`` on the configured broker and
database: no rated match ever seats two bots of one owner, in a 2-player game and in a 3-player one, while
every bot that has opponents of other owners keeps playing."""

import random

import pytest

from ladder.models import Game, Match, Tournament
from ladder.services.tournaments.ladder import ladder_tick, ladder_tournament_get
from tests.conftest import wait_until
from tests.factories import BotFactory, UserFactory

pytestmark = [pytest.mark.slow, pytest.mark.timeout(300)]

TICKS = 6


def test_ladder_ticks_never_seat_two_bots_of_one_owner(workers, settings):
    settings.LADDER_MAX_BACKLOG = 1000
    kingdomino, draftosaurus = Game.objects.get(slug="kingdomino"), Game.objects.get(slug="draftosaurus")
    Tournament.objects.filter(pk=ladder_tournament_get(game=draftosaurus).pk).update(players_per_match=3)
    alice, bob, carol = (UserFactory(username=name) for name in ("alice", "bob", "carol"))
    # Two owners in the 2-player game, three in the 3-player one; each owner has two bots or more there.
    for owner in (alice, alice, alice, bob, bob):
        BotFactory(owner=owner, game=kingdomino, name=f"{owner.username}_k{BotFactory._meta.next_sequence()}")
    for owner in (alice, bob, carol) * 2:
        BotFactory(owner=owner, game=draftosaurus, name=f"{owner.username}_d{BotFactory._meta.next_sequence()}")
    ladder = Match.objects.filter(tournament__kind="ladder")

    for tick in range(TICKS):
        scheduled = ladder_tick(matches_per_game=2, rng=random.Random(tick))
        assert scheduled == {"kingdomino": 2, "draftosaurus": 2}, scheduled
        try:
            wait_until(lambda: not ladder.filter(status__in=["queued", "running"]).exists(), timeout=120,
                       message=f"the matches of ladder tick {tick} to finish")
        except BaseException:
            print(workers.logs())
            raise

    assert ladder.count() == 4 * TICKS and ladder.filter(status="finished").count() == 4 * TICKS
    for slug, players in (("kingdomino", 2), ("draftosaurus", 3)):
        for match in ladder.filter(game__slug=slug).prefetch_related("seats__bot"):
            owners = [seat.bot.owner.username for seat in match.seats.all()]
            assert len(owners) == players == len(set(owners)), f"match {match.id} seats {owners}"
            assert all(seat.outcome == "ok" and seat.rating_after is not None for seat in match.seats.all())
