"""Arranged games on real ``celery worker`` processes: a climber and a thrower of two accounts join a ladder of
six honest bots; the thrower loses on purpose to the climber, recognised by a signed first placement, and
plays honestly against everyone else. Within 100 rated ladder matches the screen flags the pair, its games
are held out of the ratings, and the climber's headline rating is within 50 points of where its history
without the arranged games puts it."""

import random
import time
from collections import defaultdict

import pytest
from django.db.models import Min

from ladder.models import Game, Match, PairFlag, Rating, RatingChange, Seat
from ladder.ratings.elo import BotRating, RatedSeat, rate_match
from ladder.services.ratings.collusion import collusion_screen
from ladder.services.ratings.rating_applier import k_factors
from ladder.services.tournaments.ladder import ladder_tick
from tests.arranged_bots import CLIMBER, GREEDY, THROWER
from tests.conftest import wait_until
from tests.factories import BotFactory, UserFactory

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

FIELD = 6
WARM_UP = 60
ARRANGED_RUN = 100


def ladder_finished():
    return Match.objects.filter(tournament__kind="ladder", status="finished")


def play_ladder(*, until, rng, game, screen: bool) -> None:
    """Tick the ladder (and the screen, as beat would) until ``until()`` holds."""
    deadline = time.monotonic() + 240
    while not until():
        assert time.monotonic() < deadline, "the ladder did not play its matches in time"
        ladder_tick(rng=rng, matches_per_game=4)
        if screen:
            collusion_screen(game=game)
        time.sleep(0.5)


def test_an_arranged_pair_is_flagged_and_gains_nothing_on_the_headline(workers, settings):
    settings.LADDER_MAX_BACKLOG = 8
    game = Game.objects.get(slug="kingdomino")
    for i in range(FIELD):
        BotFactory(game=game, owner=UserFactory(username=f"honest{i}"), name=f"greedy{i}", code=GREEDY)
    rng = random.Random(7)
    try:
        play_ladder(until=lambda: ladder_finished().count() >= WARM_UP, rng=rng, game=game, screen=True)
        assert not PairFlag.objects.exists(), "an honest field was flagged"

        climber = BotFactory(game=game, owner=UserFactory(username="climber"), name="climber", code=CLIMBER)
        thrower = BotFactory(game=game, owner=UserFactory(username="thrower"), name="thrower", code=THROWER)
        joined = Match.objects.order_by("-id").values_list("id", flat=True).first()
        arranged = ladder_finished().filter(id__gt=joined)
        play_ladder(until=lambda: arranged.count() >= ARRANGED_RUN, rng=rng, game=game, screen=True)
        wait_until(lambda: not Match.objects.filter(status__in=["queued", "running"]).exists(), timeout=60,
                   message="the queued ladder matches to finish")
        collusion_screen(game=game)
    except BaseException:
        print(workers.logs())
        raise

    flag = PairFlag.objects.get()
    assert {flag.bot_low_id, flag.bot_high_id} == {climber.id, thrower.id} and flag.status == "held"
    pair = Match.objects.filter(seats__bot=climber).filter(seats__bot=thrower)
    assert pair.filter(status="finished").exists()
    # Their games count for nothing, and none was scheduled once the pair was flagged.
    assert not RatingChange.objects.filter(match__in=pair).exists()
    assert not pair.filter(created_at__gt=flag.flagged_at).exists()
    gained = Rating.objects.get(bot=climber).elo - elo_without(game=game, pair=pair)[climber.id]
    assert abs(gained) < 50, gained


def elo_without(*, game, pair) -> dict[int, float]:
    """Every bot's Elo from the game's rated history replayed in the order it was applied, without the
    ``pair`` matches: where the headline would stand had the arranged games never been played."""
    ks = k_factors()
    order = (RatingChange.objects.filter(game=game).exclude(match__in=pair).values("match_id")
             .annotate(first=Min("id")).order_by("first").values_list("match_id", flat=True))
    seats = defaultdict(list)
    for seat in Seat.objects.filter(match_id__in=list(order)).order_by("position"):
        seats[seat.match_id].append(seat)
    ratings = defaultdict(BotRating)
    for match_id in order:
        rate_match(ratings, [RatedSeat(s.bot_id, s.place or len(seats[match_id]), s.outcome not in ("", "ok"))
                             for s in seats[match_id]], ks)
    return {bot_id: rating.elo for bot_id, rating in ratings.items()}
