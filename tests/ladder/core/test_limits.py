"""Sandbox limits: resolution (defaults <- global settings <- per game <- tournament), the referee's
``Limits`` built from it, what matches store and workers claim, and the service's refusals (the system
check over the limit settings is ``tests/ladder/test_checks.py``)."""

import dataclasses
import random

import pytest
from django.core.exceptions import ImproperlyConfigured

from bots.referee import Limits
from ladder.core.errors import ServiceError
from ladder.core.limits import (
    limits_playable,
    limits_resolve,
    sandbox_limit_caps,
    sandbox_limits,
    tournament_limits_allowed,
    tournament_limits_check,
)
from ladder.models import Match, Tournament
from ladder.services.play.matches import match_claim
from ladder.services.tournaments.ladder import ladder_tick
from ladder.services.tournaments.round_robins import tournament_create
from tests.factories import BotFactory, MatchFactory, SeatFactory

REFEREE_DEFAULTS = dataclasses.asdict(Limits())


@pytest.fixture
def limit_settings(settings):
    """Global limits unlike the referee's defaults, and per-game limits for kingdomino only."""
    settings.BOTS_MOVE_MS = 900
    settings.BOTS_BANK_MS = 9000
    settings.BOTS_MATCH_MS = 20000
    settings.BOTS_MEMORY_MB = 300
    settings.BOTS_LOG_BYTES = 4096
    settings.BOTS_LIMITS_BY_GAME = {"kingdomino": {"move_ms": 400, "cpu_seconds": 30}}
    return settings


def round_robin(bots, **kwargs):
    return tournament_create(created_by=None, game_slug=bots[0].game.slug, name="cup",
                             bot_ids=[b.id for b in bots], players_per_match=2, seed=7, **kwargs)


# --- Resolution -------------------------------------------------------------------------------------


def test_each_layer_overrides_the_one_before(limit_settings):
    globals_ = {"move_ms": 900, "bank_ms": 9000, "match_ms": 20000, "memory_mb": 300, "log_bytes": 4096}
    assert limits_resolve(game_slug="draftosaurus") == {**REFEREE_DEFAULTS, **globals_}
    assert limits_resolve(game_slug="kingdomino") == {**REFEREE_DEFAULTS, **globals_, "move_ms": 400,
                                                      "cpu_seconds": 30}
    assert limits_resolve(game_slug="kingdomino", overrides={"move_ms": 250, "log_bytes": 0, "match_ms": 5000}) == {
        **REFEREE_DEFAULTS, **globals_, "move_ms": 250, "log_bytes": 0, "match_ms": 5000, "cpu_seconds": 30}


def test_match_time_comes_from_the_settings_then_the_game_then_the_tournament(limit_settings):
    assert limits_resolve(game_slug="kingdomino")["match_ms"] == 20000
    limit_settings.BOTS_LIMITS_BY_GAME = {"kingdomino": {"match_ms": 15000}}
    assert limits_resolve(game_slug="kingdomino")["match_ms"] == 15000
    assert limits_resolve(game_slug="draftosaurus")["match_ms"] == 20000
    assert limits_resolve(game_slug="kingdomino", overrides={"match_ms": 3000})["match_ms"] == 3000


def test_the_sandbox_gets_the_resolved_limits_as_the_referees_type(limit_settings):
    assert sandbox_limits(game="kingdomino", overrides={"bank_ms": 0}) == Limits(
        move_ms=400, bank_ms=0, match_ms=20000, memory_mb=300, log_bytes=4096, cpu_seconds=30)
    # Without a game (the play command), the global settings alone.
    assert sandbox_limits() == Limits(move_ms=900, bank_ms=9000, match_ms=20000, memory_mb=300, log_bytes=4096)


def test_stored_names_this_version_does_not_know_are_ignored_at_play_time(limit_settings):
    assert limits_playable({"move_ms": 300, "gpu_ms": 5}) == {"move_ms": 300}
    assert sandbox_limits(game="kingdomino", overrides={"move_ms": 300, "gpu_ms": 5}).move_ms == 300
    with pytest.raises(ValueError, match="gpu_ms"):
        limits_resolve(game_slug="kingdomino", overrides={"gpu_ms": 5})


def test_limits_stored_before_match_time_existed_play_under_todays_match_time(limit_settings):
    scheduled = limits_resolve(game_slug="kingdomino", overrides={"move_ms": 300})
    stored = {name: value for name, value in scheduled.items() if name != "match_ms"}
    assert limits_playable(stored) == stored
    played = sandbox_limits(game="kingdomino", overrides=stored)
    # The setting, held to today's cap, fills the gap; everything stored is kept.
    assert (played.match_ms, played.move_ms, played.cpu_seconds) == (20000, 300, 30)
    limit_settings.BOTS_LIMITS_BY_GAME = {"kingdomino": {"match_ms": 12000}}
    assert sandbox_limits(game="kingdomino", overrides=stored).match_ms == 12000


def test_unusable_settings_stop_their_game_but_not_the_others(settings):
    settings.BOTS_LIMITS_BY_GAME = {"kingdomino": {"move_ms": 0}}
    with pytest.raises(ImproperlyConfigured, match=r"BOTS_LIMITS_BY_GAME\['kingdomino'\]\['move_ms'\] = 0"):
        limits_resolve(game_slug="kingdomino")
    assert limits_resolve(game_slug="draftosaurus")["move_ms"] == settings.BOTS_MOVE_MS
    settings.BOTS_BANK_MS = -1
    with pytest.raises(ImproperlyConfigured, match="BOTS_BANK_MS = -1: must be at least 0"):
        limits_resolve(game_slug="draftosaurus")


# --- Scheduling: what matches store and workers claim -----------------------------------------------


@pytest.mark.django_db
def test_a_round_robin_stores_its_overrides_and_each_match_its_effective_limits(limit_settings):
    tournament = round_robin(BotFactory.create_batch(3), limits={"move_ms": 250, "bank_ms": 0})
    assert tournament.limits == {"move_ms": 250, "bank_ms": 0}
    expected = {**REFEREE_DEFAULTS, "move_ms": 250, "bank_ms": 0, "match_ms": 20000, "memory_mb": 300,
                "log_bytes": 4096, "cpu_seconds": 30}
    assert [match.limits for match in tournament.matches.all()] == [expected] * 3


@pytest.mark.django_db
def test_a_claim_carries_the_stored_limits_whatever_the_settings_say_by_then(limit_settings):
    tournament = round_robin(BotFactory.create_batch(2), limits={"move_ms": 250})
    limit_settings.BOTS_MOVE_MS = 5000
    limit_settings.BOTS_LIMITS_BY_GAME = {}
    match = tournament.matches.get()
    claim = match_claim(match_id=match.id)
    assert claim.limits == match.limits
    played = sandbox_limits(game=claim.game, overrides=claim.limits)
    assert (played.move_ms, played.memory_mb, played.cpu_seconds) == (250, 300, 30)


@pytest.mark.django_db
def test_a_match_stored_without_limits_plays_under_the_settings_at_play_time(limit_settings):
    match = MatchFactory()
    SeatFactory(match=match, position=0)
    SeatFactory(match=match, position=1)
    assert Match.objects.get(pk=match.pk).limits == {}
    claim = match_claim(match_id=match.id)
    assert claim.limits == {}
    assert sandbox_limits(game=claim.game, overrides=claim.limits).move_ms == 400


@pytest.mark.django_db
def test_ladder_matches_play_under_their_games_limits(limit_settings):
    limit_settings.LADDER_MAX_BACKLOG = 100
    BotFactory.create_batch(4)
    assert ladder_tick(matches_per_game=2, rng=random.Random(3)) == {"kingdomino": 2}
    ladder = Tournament.objects.get(kind="ladder", game__slug="kingdomino")
    assert ladder.limits == {}
    assert {match.limits["move_ms"] for match in ladder.matches.all()} == {400}
    assert {match.limits["cpu_seconds"] for match in ladder.matches.all()} == {30}


@pytest.mark.django_db
@pytest.mark.parametrize(
    "limits,field,fragment",
    [
        ({"cpu_seconds": 5}, "limits.cpu_seconds",
         "a tournament may set move_ms, bank_ms, match_ms, memory_mb, log_bytes"),
        ({"move_ms": "500"}, "limits.move_ms", "whole number"),
        ({"memory_mb": 2.5}, "limits.memory_mb", "whole number"),
        ({"log_bytes": True}, "limits.log_bytes", "whole number"),
        ({"move_ms": 9}, "limits.move_ms", "at least 10"),
        ({"bank_ms": -1}, "limits.bank_ms", "at least 0"),
        ({"bank_ms": 30001}, "limits.bank_ms", "at most 30000 (the server's cap, BOTS_MAX_BANK_MS)"),
        ({"match_ms": 40001}, "limits.match_ms", "at most 40000 (the server's cap, BOTS_MAX_MATCH_MS)"),
        ({"match_ms": 9}, "limits.match_ms", "at least 10"),
        ([("move_ms", 500)], "limits", "JSON object"),
    ],
)
def test_the_service_refuses_overrides_naming_the_limit(settings, limits, field, fragment):
    settings.BOTS_MAX_BANK_MS, settings.BOTS_MAX_MATCH_MS = 30000, 40000
    with pytest.raises(ServiceError) as refused:
        round_robin(BotFactory.create_batch(2), limits=limits)
    assert refused.value.field == field and fragment in refused.value.message
    assert not Tournament.objects.exists()


def test_overrides_at_the_caps_are_accepted(settings):
    settings.BOTS_MAX_MOVE_MS, settings.BOTS_MAX_MATCH_MS = 2000, 25000
    assert tournament_limits_check(limits={"move_ms": 2000, "bank_ms": 0, "match_ms": 25000, "log_bytes": 0}) == {
        "move_ms": 2000, "bank_ms": 0, "match_ms": 25000, "log_bytes": 0}
    assert tournament_limits_check(limits=None) == {}


@pytest.mark.django_db
def test_a_users_round_robin_may_tighten_but_never_loosen_its_games_limits(limit_settings, user_factory):
    user = user_factory()
    bots = BotFactory.create_batch(2)
    # kingdomino's own: move_ms 400 (per game), log_bytes 4096 (global); the caps are far above.
    for name, own in (("move_ms", 400), ("log_bytes", 4096), ("match_ms", 20000), ("memory_mb", 300)):
        with pytest.raises(ServiceError) as refused:
            tournament_create(created_by=user, game_slug="kingdomino", name="cup", bot_ids=[b.id for b in bots],
                              players_per_match=2, limits={name: own + 1})
        assert refused.value.field == f"limits.{name}"
        assert refused.value.message.startswith(f"{name} may be at most {own} (kingdomino's own limit)")
    assert not Tournament.objects.exists()
    tight = tournament_create(created_by=user, game_slug="kingdomino", name="cup", bot_ids=[b.id for b in bots],
                              players_per_match=2, limits={"move_ms": 400, "log_bytes": 0})
    assert tight.matches.get().limits["move_ms"] == 400


def test_staff_and_the_server_may_loosen_up_to_the_caps(limit_settings):
    loosened = {"move_ms": 5000, "log_bytes": limit_settings.BOTS_MAX_LOG_BYTES}
    assert tournament_limits_check(limits=loosened, game_slug="kingdomino", staff=True) == loosened
    with pytest.raises(ServiceError, match="log_bytes may be at most 4096"):
        tournament_limits_check(limits={"log_bytes": 4097}, game_slug="kingdomino", staff=False)
    assert tournament_limits_allowed(game_slug="kingdomino", staff=False) == {
        "move_ms": 400, "bank_ms": 9000, "match_ms": 20000, "memory_mb": 300, "log_bytes": 4096}
    assert tournament_limits_allowed(game_slug="kingdomino", staff=True)["log_bytes"] == \
        limit_settings.BOTS_MAX_LOG_BYTES


def test_the_referees_limits_come_from_the_settings_under_a_matchs_overrides(settings):
    settings.BOTS_MOVE_MS = 700
    assert sandbox_limits().move_ms == 700
    assert sandbox_limits(game="kingdomino", overrides={"move_ms": 300, "unknown_limit": 1}).move_ms == 300
    caps = dataclasses.asdict(sandbox_limit_caps())
    assert caps["move_ms"] == settings.BOTS_MAX_MOVE_MS
    assert all(caps[name] >= value for name, value in dataclasses.asdict(sandbox_limits()).items())
