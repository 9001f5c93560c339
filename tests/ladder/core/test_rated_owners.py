"""Rated play never seats two bots of one owner in one match: the rule itself, the ladder's pairing, a
staff round robin refused with the bots named, the last guard where rated matches are stored, the house's
example bots as the one exception (a bot's page says why the rule leaves a bot without ladder games:
``tests/ladder/selectors/test_selector_ladder.py``)."""

import random

import pytest
from django.contrib.auth.hashers import make_password

from ladder.core.errors import ServiceError
from ladder.core.rated_play import bots_sharing_an_owner, rated_owner_keys, seating_owners_distinct
from ladder.models import Game, Match, Tournament
from ladder.services.tournaments.ladder import ladder_tick, ladder_tournament_get
from ladder.services.tournaments.round_robins import matches_create, tournament_create
from ladder.services.uploads.examples import examples_owner
from tests.factories import StaffFactory

pytestmark = pytest.mark.django_db


# --- The rule -------------------------------------------------------------------------------------------


def test_a_seating_is_allowed_when_no_two_bots_share_an_owner():
    owners = {1: 10, 2: 10, 3: 20, 4: None, 5: None}
    assert seating_owners_distinct([1, 3], owners=owners)
    assert not seating_owners_distinct([1, 2], owners=owners)
    assert not seating_owners_distinct([3, 1, 4, 2], owners=owners)
    # House bots (no owner) may sit with each other and with anybody's.
    assert seating_owners_distinct([4, 5, 1], owners=owners)
    assert bots_sharing_an_owner([1, 2, 3, 4, 5], owners=owners) == [[1, 2]]
    assert bots_sharing_an_owner([1, 3, 4], owners=owners) == []


def test_owner_keys_name_the_house_bots_none_and_only_while_nobody_can_log_in(bot_factory, user_factory):
    ada = user_factory()
    own = bot_factory(owner=ada)
    house = bot_factory(owner=examples_owner())
    assert rated_owner_keys(bot_ids=[own.id, house.id]) == {own.id: ada.id, house.id: None}
    # An examples account with a password is somebody's: its bots are an owner's like any other.
    type(ada).objects.filter(pk=house.owner_id).update(password=make_password("a-long-passphrase"))
    assert rated_owner_keys(bot_ids=[house.id]) == {house.id: house.owner_id}


# --- The ladder -------------------------------------------------------------------------------------------


def owners_of_ladder_matches(game_slug: str) -> list[list[int]]:
    return [[seat.bot.owner_id for seat in match.seats.all()]
            for match in Match.objects.filter(tournament__kind="ladder", tournament__game__slug=game_slug)
            .prefetch_related("seats__bot")]


def test_the_ladder_never_seats_two_bots_of_one_owner_in_a_two_player_match(bot_factory, user_factory,
                                                                            settings):
    settings.LADDER_MAX_BACKLOG = 10_000
    ada, bob = user_factory(), user_factory()
    for owner in (ada, ada, ada, bob, bob):
        bot_factory(owner=owner)
    for tick in range(30):
        ladder_tick(matches_per_game=2, rng=random.Random(tick))
    matches = owners_of_ladder_matches("kingdomino")
    assert len(matches) >= 30
    assert all(len(set(owners)) == 2 for owners in matches)


def test_the_ladder_never_seats_two_bots_of_one_owner_in_a_three_player_match(bot_factory, user_factory,
                                                                              settings):
    settings.LADDER_MAX_BACKLOG = 10_000
    game = Game.objects.get(slug="draftosaurus")
    Tournament.objects.filter(pk=ladder_tournament_get(game=game).pk).update(players_per_match=3)
    owners = [user_factory() for _ in range(3)]
    for owner in owners * 2:
        bot_factory(owner=owner, game=game)
    for tick in range(20):
        ladder_tick(matches_per_game=2, rng=random.Random(tick))
    matches = owners_of_ladder_matches("draftosaurus")
    assert len(matches) >= 20
    assert all(len(owners) == 3 == len(set(owners)) for owners in matches)


def test_the_ladder_schedules_nothing_between_one_owners_bots(bot_factory, user_factory, settings):
    ada = user_factory()
    for _ in range(3):
        bot_factory(owner=ada)
    assert ladder_tick(matches_per_game=4, rng=random.Random(1)) == {}
    assert not Match.objects.exists()


def test_the_house_bots_meet_each_other_on_the_ladder(bot_factory):
    house = examples_owner()
    bot_factory(owner=house)
    bot_factory(owner=house)
    assert ladder_tick(matches_per_game=1, rng=random.Random(1)) == {"kingdomino": 1}


# --- Tournaments ----------------------------------------------------------------------------------------


def test_a_rated_round_robin_with_two_bots_of_one_owner_is_refused_naming_them(bot_factory, user_factory):
    ada, bob = user_factory(username="ada"), user_factory(username="bob")
    bots = [bot_factory(owner=ada, name="thrower"), bot_factory(owner=ada, name="farmer"),
            bot_factory(owner=bob, name="b1"), bot_factory(owner=bob, name="b2"), bot_factory(name="c1")]
    with pytest.raises(ServiceError) as refused:
        tournament_create(created_by=StaffFactory(), game_slug="kingdomino", name="cup", rated=True,
                          bot_ids=[b.id for b in bots], players_per_match=3)
    error = refused.value
    assert (error.status, error.field) == (400, "bots")
    assert "ada's farmer, thrower" in error.message and "bob's b1, b2" in error.message
    assert "unrated" in error.message
    with pytest.raises(ServiceError, match="ada's farmer, thrower"):
        tournament_create(created_by=StaffFactory(), game_slug="kingdomino", name="cup", rated=True,
                          duplicate=True, bot_ids=[b.id for b in bots[:3]], players_per_match=2)
    assert not Tournament.objects.exists() and not Match.objects.exists()


def test_a_rated_round_robin_of_one_bot_per_owner_and_house_bots_is_scheduled(bot_factory, user_factory):
    house = examples_owner()
    bots = [bot_factory(), bot_factory(), bot_factory(owner=house), bot_factory(owner=house)]
    tournament = tournament_create(created_by=StaffFactory(), game_slug="kingdomino", name="cup", rated=True,
                                   bot_ids=[b.id for b in bots], players_per_match=2)
    assert tournament.matches.count() == 6


def test_an_unrated_round_robin_still_seats_one_owners_bots_together(bot_factory, user_factory):
    ada = user_factory()
    bots = [bot_factory(owner=ada) for _ in range(3)]
    tournament = tournament_create(created_by=ada, game_slug="kingdomino", name="mine", seed=1,
                                   bot_ids=[b.id for b in bots], players_per_match=2)
    assert tournament.matches.count() == 3


def test_no_rated_match_of_two_bots_of_one_owner_is_ever_stored(bot_factory, user_factory):
    ada = user_factory()
    a1, a2 = bot_factory(owner=ada), bot_factory(owner=ada)
    ladder = ladder_tournament_get(game=a1.game)
    with pytest.raises(ValueError, match="two bots of one owner"):
        matches_create(tournament=ladder, seatings=[(a1.id, a2.id)], first_index=0, priority=5)
    assert not Match.objects.exists()
