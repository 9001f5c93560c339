"""Which bots are given their decision's allowance: an ``act`` that takes ``time_left_ms``."""

import pytest

from bots.loader import wants_time_left


def plain(observation, legal_actions):
    return legal_actions[0]


def timed(observation, legal_actions, time_left_ms):
    return legal_actions[0]


def timed_with_default(observation, legal_actions, time_left_ms=None):
    return legal_actions[0]


def keywords(observation, legal_actions, **options):
    return legal_actions[0]


def other_name(observation, legal_actions, budget=None):
    return legal_actions[0]


class Bot:
    def act(self, observation, legal_actions, time_left_ms=0):
        return legal_actions[0]


@pytest.mark.parametrize("act,expected", [
    (plain, False), (timed, True), (timed_with_default, True), (keywords, True), (other_name, False),
    (Bot().act, True), (len, False),
])
def test_wants_time_left(act, expected):
    assert wants_time_left(act) is expected


def test_in_process_matches_give_a_timed_act_the_default_allowance(race):
    from bots.referee import BotSpec, Limits, play_match_in_process

    code = (b"def act(observation, legal_actions, time_left_ms):\n"
            b"    assert time_left_ms == %d\n"
            b"    return legal_actions[0]\n" % (Limits().move_ms + Limits().bank_ms))
    result = play_match_in_process(race, [BotSpec("timed", code), BotSpec("also", code)], seed=1)
    assert sum(result.actions) == 12
