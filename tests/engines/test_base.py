"""``engines.base``: the contract every engine fulfils, checked on a toy game that implements only the hooks.

Covers :class:`GameFacts` validation and what :class:`GameEngine` derives from it, ``new_state``'s argument
checks and option merging, the legal-action cache and the copies :class:`State` hands out, ``apply`` refusing
what is not legal without changing anything, ``observation``'s seat check, ``clone``, and the helpers
``same_action``, ``find_action``, ``canonical_json`` and ``competition_ranking``. Chance and its streams
(``engines.chance``) have their own module (``test_chance.py``).
"""

from __future__ import annotations

import pytest

from engines.base import (
    GameEngine,
    GameFacts,
    IllegalAction,
    Information,
    State,
    canonical_json,
    competition_ranking,
    find_action,
    same_action,
)

FACTS = GameFacts(name="countdown", title="Countdown", min_players=2, max_players=3, chance=False,
                  simultaneous=False, information=Information.PERFECT, max_game_length=10, rules_version=4)


class CountdownState(State):
    """Seats take turns subtracting 1 or 2 from a counter; whoever reaches 0 scores a point."""

    def __init__(self, players: int, start: int) -> None:
        self.players = players
        self.counter = start
        self.turn = 0
        self.points = [0] * players
        self.history: list = []
        self.listed = 0

    def current_player(self):
        return None if self.is_terminal() else self.turn % self.players

    def _legal_actions(self):
        self.listed += 1
        return [{"take": n} for n in (1, 2) if n <= self.counter]

    def _apply(self, action):
        self.counter -= action["take"]
        self.history.append(action)
        if self.counter == 0:
            self.points[self.turn % self.players] += 1
        self.turn += 1

    def _observation(self, player):
        return {"counter": self.counter, "me": player}

    def view(self):
        return {"counter": self.counter, "history": list(self.history)}

    def is_terminal(self):
        return self.counter == 0

    def scores(self):
        return list(self.points)

    def ranking(self):
        return competition_ranking(self.points)


class Countdown(GameEngine):
    facts = FACTS

    def default_options(self):
        return {"start": 5, "label": None, "mode": "plain"}

    def option_choices(self):
        return {"mode": ["plain", "fast"]}

    def _new_state(self, players, seed, options):
        return CountdownState(players, options["start"])


class Bare(GameEngine):
    facts = GameFacts(name="bare", title="Bare", min_players=1, max_players=1, chance=True, simultaneous=False,
                      information=Information.IMPERFECT, max_game_length=1, rules_version=1)


def test_game_takes_its_attributes_from_its_facts():
    game = Countdown()
    assert (game.name, game.title, game.min_players, game.max_players, game.rules_version) == (
        "countdown", "Countdown", 2, 3, 4)
    assert game.hidden_information is False and Bare().hidden_information is True
    assert repr(game) == "<GameEngine countdown>"


@pytest.mark.parametrize("changes", [{"name": ""}, {"title": ""}, {"min_players": 0}, {"min_players": 4},
                                     {"max_game_length": 0}, {"rules_version": 0}])
def test_bad_facts_are_refused(changes):
    fields = {**FACTS.__dict__, **changes}
    with pytest.raises(ValueError):
        GameFacts(**fields)


def test_variants_default_to_every_player_count_with_the_defaults():
    assert Countdown().variants() == [(2, {"start": 5, "label": None, "mode": "plain"}),
                                      (3, {"start": 5, "label": None, "mode": "plain"})]


def test_new_state_merges_options_over_the_defaults():
    game = Countdown()
    assert game.new_state(2, 0).counter == 5
    assert game.new_state(3, 0, {"start": 7}).counter == 7
    assert game.resolve_options({"label": "anything", "mode": "fast"}) == {"start": 5, "label": "anything",
                                                                           "mode": "fast"}


@pytest.mark.parametrize("players", [1, 4, True, 2.0, "2"])
def test_bad_player_counts_raise_value_error(players):
    with pytest.raises(ValueError, match="Countdown"):
        Countdown().new_state(players, 0)


@pytest.mark.parametrize("seed", [True, 1.5, "1", None])
def test_bad_seeds_raise_value_error(seed):
    with pytest.raises(ValueError, match="seed"):
        Countdown().new_state(2, seed)


@pytest.mark.parametrize(("options", "message"), [
    ([("start", 5)], "JSON object"),
    ({"speed": 1}, r"unknown option\(s\) for countdown: speed \(known: label, mode, start\)"),
    ({"start": "5"}, "must be int"),
    ({"start": True}, "must be int"),
    ({"mode": "slow"}, "must be one of"),
])
def test_bad_options_raise_value_error(options, message):
    with pytest.raises(ValueError, match=message):
        Countdown().new_state(2, 0, options)


def test_a_game_without_new_state_says_so():
    with pytest.raises(NotImplementedError):
        Bare().new_state(1, 0)


def test_legal_actions_are_cached_per_position_and_handed_out_as_copies():
    state = Countdown().new_state(2, 0)
    first = state.legal_actions()
    first.append("junk")
    first[0]["take"] = 99
    assert state.legal_actions() == [{"take": 1}, {"take": 2}]
    assert state.listed == 1
    state.apply({"take": 1})
    assert state.legal_actions() == [{"take": 1}, {"take": 2}] and state.listed == 2
    state.reset_legal_cache()
    state.legal_actions()
    assert state.listed == 3


def test_apply_plays_an_action_equal_as_json_and_moves_the_turn():
    state = Countdown().new_state(2, 0)
    assert state.current_player() == 0
    state.apply({"take": 2})
    assert state.counter == 3 and state.current_player() == 1


@pytest.mark.parametrize("action", [{"take": 3}, {"take": True}, {"take": 1.0}, [1], object(), {1: 2, "a": 3}])
def test_illegal_actions_raise_and_change_nothing(action):
    state = Countdown().new_state(2, 0)
    before = state.view()
    with pytest.raises(IllegalAction):
        state.apply(action)
    assert state.view() == before and state.current_player() == 0


def test_the_end_has_no_actions_and_refuses_more():
    state = Countdown().new_state(2, 0, {"start": 3})
    state.apply({"take": 2})
    state.apply({"take": 1})
    assert state.is_terminal() and state.current_player() is None and state.legal_actions() == []
    assert state.scores() == [0, 1] and state.ranking() == [2, 1]
    with pytest.raises(IllegalAction, match="over"):
        state.apply({"take": 1})


@pytest.mark.parametrize("seat", [-1, 2, True, "0", 1.0])
def test_observation_refuses_seats_not_in_the_game(seat):
    with pytest.raises(ValueError, match="no seat"):
        Countdown().new_state(2, 0).observation(seat)


def test_observation_of_a_valid_seat_comes_from_the_hook():
    assert Countdown().new_state(3, 0).observation(2) == {"counter": 5, "me": 2}


def test_clone_is_independent_and_resample_hidden_defaults_to_a_clone():
    state = Countdown().new_state(2, 0)
    state.apply({"take": 1})
    twin = state.clone()
    twin.apply({"take": 2})
    assert state.counter == 4 and state.history == [{"take": 1}]
    assert twin.counter == 2 and len(twin.history) == 2
    other = state.resample_hidden(0, 99)
    assert other is not state and other.view() == state.view()


def test_hooks_not_implemented_say_which_class():
    class Silent(State):
        players = 1

        def current_player(self):
            return 0

        def view(self):
            return {}

        def is_terminal(self):
            return False

        def scores(self):
            return [0]

        def ranking(self):
            return [1]

    silent = Silent()
    with pytest.raises(NotImplementedError, match="Silent"):
        silent.legal_actions()
    with pytest.raises(NotImplementedError, match="Silent"):
        silent._apply(None)
    with pytest.raises(NotImplementedError, match="Silent"):
        silent.observation(0)


def test_same_action_compares_as_json():
    assert same_action([1, 2], (1, 2))
    assert same_action({"a": 1, "b": 2}, {"b": 2, "a": 1})
    assert not same_action(1, True)
    assert not same_action({"a": 1}, {"a": 2})


def test_canonical_json_sorts_keys_without_spaces():
    assert canonical_json({"b": [1, 2], "a": None}) == '{"a":null,"b":[1,2]}'


def test_find_action_returns_the_listed_element():
    legal = [{"take": 1}, {"take": 2}]
    assert find_action(legal, {"take": 2}) is legal[1]
    assert find_action([[1, 2]], (1, 2)) == [1, 2]


def test_find_action_turns_every_bad_value_into_a_short_illegal_action():
    deep: list = []
    for _ in range(5000):
        deep = [deep]
    for value in (object(), {1: 2, "a": 3}, deep, float("nan"), "x" * 10_000):
        with pytest.raises(IllegalAction) as raised:
            find_action([1, 2], value)
        assert len(str(raised.value)) < 300


def test_competition_ranking_shares_places_and_skips():
    assert competition_ranking([3, 5, 5, 1]) == [3, 1, 1, 4]
    assert competition_ranking([(2, 1), (2, 0), (2, 1)]) == [1, 3, 1]
    assert competition_ranking([]) == []

