"""The system checks of the ladder's settings (``ladder.checks``): the shipped settings pass, each bad limit
setting is refused with its id and the setting's name (E001-E003), the match time cap is held against
the soft time limit (E004), the soft limit below the hard one (E005), the lease against its heartbeats
(E006), and Django's own check run reports them.

No database: the checks read settings only.
"""

from __future__ import annotations

import pytest
from django.core import checks

from ladder.checks import ENGINE_MARGIN_S, HEARTBEATS_PER_LEASE, sandbox_limits_check
from ladder.core.limits import MATCH_OVERHEAD_S


def check_messages() -> list[tuple[str, str]]:
    return [(message.id, message.msg) for message in sandbox_limits_check()]


def test_the_shipped_settings_pass_the_check():
    assert check_messages() == []


@pytest.mark.parametrize(
    "by_game,check_id,fragment",
    [
        ({"chess": {"move_ms": 500}}, "ladder.E001", "BOTS_LIMITS_BY_GAME['chess']: no game 'chess' is installed"),
        ({"kingdomino": 500}, "ladder.E001", "BOTS_LIMITS_BY_GAME['kingdomino'] must be a JSON object"),
        (["kingdomino"], "ladder.E001", "BOTS_LIMITS_BY_GAME must be a JSON object of games"),
        ({"kingdomino": {"move_msec": 500}}, "ladder.E002",
         "BOTS_LIMITS_BY_GAME['kingdomino']['move_msec']: no such limit"),
        ({"kingdomino": {"memory_mb": 0}}, "ladder.E003",
         "BOTS_LIMITS_BY_GAME['kingdomino']['memory_mb'] = 0: must be at least 16"),
        ({"kingdomino": {"cpu_seconds": -3}}, "ladder.E003",
         "BOTS_LIMITS_BY_GAME['kingdomino']['cpu_seconds'] = -3: must be at least 1"),
        ({"kingdomino": {"start_ms": "5000"}}, "ladder.E003",
         "BOTS_LIMITS_BY_GAME['kingdomino']['start_ms'] = '5000': must be a whole number"),
        ({"kingdomino": {"move_ms": 60000}}, "ladder.E003",
         "BOTS_LIMITS_BY_GAME['kingdomino']['move_ms'] = 60000: may be at most 5000"),
        ({"kingdomino": {"match_ms": 60000}}, "ladder.E003",
         "BOTS_LIMITS_BY_GAME['kingdomino']['match_ms'] = 60000: may be at most 40000 (the server's cap, "
         "BOTS_MAX_MATCH_MS)"),
    ],
)
def test_the_check_refuses_bad_per_game_limits_naming_the_key(settings, by_game, check_id, fragment):
    settings.BOTS_MAX_MOVE_MS, settings.BOTS_MAX_MATCH_MS = 5000, 40000
    settings.BOTS_LIMITS_BY_GAME = by_game
    messages = check_messages()
    assert [message_id for message_id, _ in messages] == [check_id]
    assert fragment in messages[0][1]


def test_the_check_refuses_global_limits_beyond_their_caps(settings):
    settings.BOTS_MEMORY_MB = 2048
    settings.BOTS_MAX_MEMORY_MB = 1024
    assert check_messages() == [
        ("ladder.E003", "BOTS_MEMORY_MB = 2048: may be at most 1024 (the server's cap, BOTS_MAX_MEMORY_MB)")]
    settings.BOTS_MEMORY_MB = 1024
    settings.BOTS_MATCH_MS, settings.BOTS_MAX_MATCH_MS = 45000, 40000
    assert check_messages() == [
        ("ladder.E003", "BOTS_MATCH_MS = 45000: may be at most 40000 (the server's cap, BOTS_MAX_MATCH_MS)")]
    settings.BOTS_MAX_MATCH_MS = 5
    assert check_messages() == [("ladder.E003", "BOTS_MAX_MATCH_MS = 5: must be a whole number of at least 10")]


def test_the_check_holds_the_match_time_cap_against_the_soft_time_limit(settings):
    settings.MATCH_SOFT_TIME_LIMIT_S, settings.MATCH_TIME_LIMIT_S = 80, 90
    settings.BOTS_MAX_MATCH_MS, settings.BOTS_MATCH_MS = 9000, 5000
    settings.BOTS_LIMITS_BY_GAME = {}
    # Five seats of the largest games, one after the other: 5 x (5 s start + 9 s) + 10 s engine = 80 s.
    [(check_id, message)] = check_messages()
    assert check_id == "ladder.E004"
    assert "5-player" in message and "may last 80 s" in message and "MATCH_SOFT_TIME_LIMIT_S (80 s)" in message
    assert "BOTS_MAX_MATCH_MS 9000 ms" in message and "start_ms 5000 ms" in message
    [error] = sandbox_limits_check()
    assert "lower BOTS_MAX_MATCH_MS" in error.hint and "raise MATCH_SOFT_TIME_LIMIT_S" in error.hint
    settings.BOTS_MAX_MATCH_MS = 8999
    assert check_messages() == []
    # Moves and banks no longer matter: the match time caps them all.
    settings.BOTS_MAX_MOVE_MS, settings.BOTS_MAX_BANK_MS = 60000, 600000
    assert check_messages() == []
    # A game that starts slower needs more of the time limit, and the hint names its entry.
    settings.BOTS_LIMITS_BY_GAME = {"draftosaurus": {"start_ms": 6000}}
    [error] = sandbox_limits_check()
    assert error.id == "ladder.E004" and "5-player draftosaurus" in error.msg
    assert "start_ms in BOTS_LIMITS_BY_GAME['draftosaurus']" in error.hint


def test_the_check_wants_the_soft_time_limit_below_the_hard_one(settings):
    settings.MATCH_SOFT_TIME_LIMIT_S, settings.MATCH_TIME_LIMIT_S = 240, 240
    [(check_id, message)] = check_messages()
    assert check_id == "ladder.E005" and "MATCH_SOFT_TIME_LIMIT_S (240) < MATCH_TIME_LIMIT_S (240)" in message


def test_the_lease_need_not_outlast_a_match_only_three_heartbeats(settings):
    """The lease is renewed while a match plays: a lease far shorter than the longest match is right."""
    settings.MATCH_LEASE_S, settings.MATCH_HEARTBEAT_S = 30, 5
    assert settings.MATCH_SOFT_TIME_LIMIT_S > settings.MATCH_LEASE_S
    assert check_messages() == []
    settings.MATCH_HEARTBEAT_S = 10
    assert check_messages() == []
    settings.MATCH_HEARTBEAT_S = 10.5
    [error] = sandbox_limits_check()
    assert error.id == "ladder.E006" and "MATCH_HEARTBEAT_S (10.5)" in error.msg and "MATCH_LEASE_S (30)" in error.msg
    assert "set MATCH_HEARTBEAT_S to 10 or less" in error.hint
    settings.MATCH_HEARTBEAT_S = 0
    assert [e.id for e in sandbox_limits_check()] == ["ladder.E006"]



def test_settings_problems_come_alone_without_the_time_checks(settings):
    # With unusable limits the time arithmetic means nothing: only the limit problem is reported.
    settings.BOTS_LIMITS_BY_GAME = {"chess": {}}
    settings.MATCH_HEARTBEAT_S = 0
    assert [message_id for message_id, _ in check_messages()] == ["ladder.E001"]


def test_every_message_is_an_error(settings):
    settings.MATCH_SOFT_TIME_LIMIT_S, settings.MATCH_TIME_LIMIT_S = 300, 200
    [error] = sandbox_limits_check()
    assert isinstance(error, checks.Error) and error.is_serious()
    assert "MATCH_TIME_LIMIT_S" in error.hint


def test_the_margin_and_the_lease_rule_are_those_of_the_limits(settings):
    assert ENGINE_MARGIN_S == MATCH_OVERHEAD_S
    settings.MATCH_LEASE_S = 30
    settings.MATCH_HEARTBEAT_S = 30 / HEARTBEATS_PER_LEASE
    assert check_messages() == []


def test_django_runs_the_check_with_the_ladder_tag(settings):
    settings.MATCH_HEARTBEAT_S = -1
    ids = {message.id for message in checks.run_checks(tags=["ladder"])}
    assert "ladder.E006" in ids
    settings.MATCH_HEARTBEAT_S = 1
    assert not {message.id for message in checks.run_checks(tags=["ladder"])} & {"ladder.E006"}
