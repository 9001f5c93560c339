"""CD-3 where the dice are, CD-4 turn structure, CD-8 catapults, ED-5, ED-6, ED-12, ED-15.

Checklist items 1 (pool sizes), 2 (catapults in every roll, the cumulative nine-catapult win) and 3
(collect and build only the latest roll, re-rolls, no 4th roll, no roll with an empty pool).
"""

import pytest
from carcassonne_dice_helpers import random_game, turn_with

from engines import IllegalAction
from engines.carcassonne_dice.state import GAME_OVER, KNIGHT_CHOICE, RESOLVE

CAPS = ["CAP"] * 9


def events(state, kind):
    return [entry for entry in state.view()["history"] if entry.get("event") == kind]


def dice_places(view):
    """Where each die is, from the public view: one list per place of CD-3.1."""
    turn = view["turn"]
    return {
        "pool": [p["die"] for p in turn["pool"]],
        "built": [d["die"] for plane in turn["planes"] for d in plane["dice"]],
        "collected": list(turn["collected_dice"]),
        "catapulted": list(turn["catapulted_dice"]),
    }


def test_cd_3_1_every_die_is_in_exactly_one_place_throughout_a_game():
    def check(state):
        places = dice_places(state.view())
        reserved = [die for seat, die in enumerate(state.reserved) if die is not None and seat != state.active]
        every = [die for dice in places.values() for die in dice] + reserved
        assert sorted(every) == list(range(9)), places
        assert all(held is None for held in [state.reserved[state.active]])
        assert sum(1 for die in state.reserved if die is not None) <= state.players - 1

    random_game(3, 5, on_step=check)


@pytest.mark.parametrize("held_by_others", [0, 1, 2, 3, 4])
def test_cd_3_2_pool_size_is_nine_minus_knights_reserved_by_others(held_by_others):
    reserved = {seat: die for seat, die in zip(range(1, 5), range(held_by_others))}
    state = turn_with(CAPS, players=5, reserved=reserved)
    assert len(state.pool) == 9 - held_by_others
    assert [die for die, _ in state.pool] == list(range(held_by_others, 9))
    assert events(state, "turn_start")[0]["dice"] == 9 - held_by_others
    assert state.view()["turn"]["doubled"] is False


def test_cd_3_2_own_reserved_knight_returns_to_the_pool_and_doubles_the_turn():
    state = turn_with(CAPS, players=3, reserved={0: 4, 1: 0})
    view = state.view()
    assert [p["die"] for p in view["turn"]["pool"]] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert view["turn"]["doubled"] is True
    assert view["reserved_knight"] == [False, True, False]


def test_cd_4_1_the_first_roll_is_made_by_the_engine_with_every_pool_die():
    state = turn_with(["CAP", "KNIGHT", "BAND", "CATAPULT", "CAP", "TRIPLE", "CORNER", "KNIGHT", "CAP"])
    assert state.rolls_made == 1 and state.phase == RESOLVE and state.current_player() == 0
    assert events(state, "roll")[0]["faces"][3] == "CATAPULT"
    assert state.view()["turn"]["catapults"] == 1
    assert len(state.pool) == 8


def test_cd_4_2_catapults_leave_first_then_collect_and_build_in_any_order():
    state = turn_with(["KNIGHT", "CATAPULT", "CAP", "KNIGHT", "CAP"] + ["BAND"] * 4)
    assert state.view()["turn"]["catapulted_dice"] == [1]
    state.apply({"build": ["CAP", "new"]})
    state.apply({"collect": "KNIGHT"})
    state.apply({"build": ["CAP", 0, 0, 1, 2]})
    state.apply({"collect": "KNIGHT"})
    turn = state.view()["turn"]
    assert turn["collected_dice"] == [0, 3]
    assert [d["die"] for d in turn["planes"][0]["dice"]] == [2, 4]
    assert turn["cities"][0]["closed"] is True


def test_cd_4_2_rolling_again_is_legal_only_before_the_third_roll():
    state = turn_with(CAPS + CAPS + CAPS)
    assert {"roll": True} in state.legal_actions()
    state.apply({"roll": True})
    state.apply({"roll": True})
    assert state.rolls_made == 3
    assert {"roll": True} not in state.legal_actions()
    with pytest.raises(IllegalAction):
        state.apply({"roll": True})


def test_checklist_3_roll_with_an_empty_pool_is_illegal():
    state = turn_with(CAPS)
    state.pool = []
    state.reset_legal_cache()
    assert {"roll": True} not in state.legal_actions()
    with pytest.raises(IllegalAction):
        state.apply({"roll": True})


def test_cd_4_3_ed_5_unresolved_dice_are_rerolled_by_the_next_roll():
    state = turn_with(["CAP", "KNIGHT", "BAND"] + ["CORNER"] * 6 + ["TRIPLE"] * 8)
    state.apply({"build": ["BAND", "new"]})
    state.apply({"roll": True})
    assert events(state, "roll")[-1]["faces"] == ["TRIPLE"] * 8
    assert [p["face"] for p in state.view()["turn"]["pool"]] == ["TRIPLE"] * 8
    # The knight and the CAP of roll 1 are gone: only the latest roll can be collected or built.
    assert {"collect": "KNIGHT"} not in state.legal_actions()
    with pytest.raises(IllegalAction):
        state.apply({"build": ["CAP", "new"]})


def test_cd_4_4_built_dice_and_collected_knights_are_never_rerolled():
    state = turn_with(["BAND", "KNIGHT"] + ["CAP"] * 7 + ["CORNER"] * 7)
    state.apply({"build": ["BAND", "new"]})
    state.apply({"collect": "KNIGHT"})
    state.apply({"roll": True})
    turn = state.view()["turn"]
    assert len(events(state, "roll")[-1]["faces"]) == 7
    assert turn["planes"][0]["dice"] == [{"die": 0, "face": "BAND", "x": 0, "y": 0, "r": 0, "edges": "CFCF"}]
    assert turn["collected_dice"] == [1]


def test_cd_4_5_after_the_third_roll_only_collect_build_and_stop_remain():
    state = turn_with(CAPS + CAPS + ["KNIGHT"] + ["CAP"] * 8)
    state.apply({"roll": True})
    state.apply({"roll": True})
    kinds = {next(iter(action)) for action in state.legal_actions()}
    assert kinds == {"collect", "build", "stop"}


def test_cd_4_5_ed_15_the_engine_stops_when_the_pool_is_empty():
    state = turn_with(["CAP", "CAP"] + ["CATAPULT"] * 7 + CAPS, players=2)
    state.apply({"build": ["CAP", "new"]})
    assert state.current_player() == 0
    state.apply({"build": ["CAP", 0, 0, 1, 2]})
    # Pool empty: the engine stopped, scored (a 2-dice city: 0 points) and started seat 1's turn.
    assert state.current_player() == 1 and state.turn_index == 1
    assert events(state, "auto_stop")[0]["seat"] == 0
    assert [e["points"] for e in events(state, "score")] == [0]


def test_ed_15_the_knight_choice_is_asked_after_a_forced_stop():
    state = turn_with(["KNIGHT"] * 3 + ["CATAPULT"] * 6)
    for _ in range(3):
        state.apply({"collect": "KNIGHT"})
    assert state.phase == KNIGHT_CHOICE and state.current_player() == 0
    assert state.legal_actions() == [{"score": True}, {"keep_knight": True}]


def test_cd_4_6_a_player_may_reroll_everything_without_setting_anything_aside():
    state = turn_with(["KNIGHT"] * 9 + CAPS)
    state.apply({"roll": True})
    assert len(state.pool) == 9 and state.view()["turn"]["collected_knights"] == 0


def test_cd_5_1_a_knight_from_the_third_roll_can_be_collected():
    state = turn_with(CAPS + CAPS + ["KNIGHT"] + ["CAP"] * 8)
    state.apply({"roll": True})
    state.apply({"roll": True})
    state.apply({"collect": "KNIGHT"})
    assert state.view()["turn"]["collected_knights"] == 1


@pytest.mark.parametrize("roll", [1, 2, 3])
def test_cd_8_1_catapults_of_any_roll_are_handed_on_at_once(roll):
    pattern = {1: ["CATAPULT"] + ["CAP"] * 8 + ["CAP"] * 8 + ["CAP"] * 8,
               2: ["CAP"] * 9 + ["CATAPULT"] + ["CAP"] * 8 + ["CAP"] * 8,
               3: ["CAP"] * 9 + ["CAP"] * 9 + ["CATAPULT"] + ["CAP"] * 8}[roll]
    state = turn_with(pattern)
    for _ in range(roll - 1):
        state.apply({"roll": True})
    turn = state.view()["turn"]
    assert turn["catapults"] == 1 and len(state.pool) == 8
    assert all(p["face"] != "CATAPULT" for p in turn["pool"])
    assert events(state, "catapults")[-1] == {"seat": 0, "event": "catapults", "count": 1, "turn_total": 1, "to": 1}


def test_cd_8_2_catapulted_dice_come_back_in_the_neighbours_turn_and_add_nothing():
    state = turn_with(["CATAPULT", "CATAPULT"] + ["CAP"] * 7 + CAPS, players=3)
    assert len(state.pool) == 7
    state.apply({"stop": True})
    assert state.current_player() == 1 and len(state.pool) == 9


def test_cd_8_3_a_catapult_does_not_stop_the_other_dice_of_its_roll_from_building():
    state = turn_with(["CATAPULT", "CAP", "BAND", "CAP"] + ["KNIGHT"] * 5)
    state.apply({"build": ["CAP", "new"]})
    state.apply({"build": ["BAND", 0, 0, 1, 0]})
    state.apply({"build": ["CAP", 0, 0, 2, 2]})
    assert state.score_if_stop() == 1


def test_cd_9_2_ed_6_nine_catapults_over_one_turn_win_at_once():
    faces = ["CATAPULT"] * 3 + ["KNIGHT"] * 6 + ["CATAPULT"] * 3 + ["CAP"] * 3 + ["CATAPULT"] * 3
    state = turn_with(faces, players=3, totals=[0, 30, 40])
    state.apply({"roll": True})
    assert state.phase == RESOLVE and len(state.catapulted) == 6
    state.apply({"roll": True})
    assert state.phase == GAME_OVER and state.current_player() is None
    assert state.view()["winner"] == [0] and state.view()["end_reason"] == "nine_catapults"
    assert state.ranking() == [1, 3, 2]


def test_cd_9_2_nine_catapults_in_the_first_roll_also_win():
    state = turn_with(["CATAPULT"] * 9)
    assert state.is_terminal() and state.view()["winner"] == [0]


def test_cd_9_2_nine_catapults_need_all_nine_dice():
    # Seat 1 holds a knight: seat 0 rolls 8 dice, all catapults; that is no win, the turn just ends.
    state = turn_with(["CATAPULT"] * 8 + ["CAP"] * 9, players=2, reserved={1: 8})
    assert not state.is_terminal() and state.current_player() == 1
    assert events(state, "catapults")[0]["turn_total"] == 8


def test_ed_12_actions_use_the_lowest_id_die_showing_the_face():
    state = turn_with(["KNIGHT", "CAP", "KNIGHT", "CAP", "CAP"] + ["BAND"] * 4)
    state.apply({"collect": "KNIGHT"})
    state.apply({"build": ["CAP", "new"]})
    turn = state.view()["turn"]
    assert turn["collected_dice"] == [0]
    assert turn["planes"][0]["dice"][0]["die"] == 1


def test_cd_3_1_reserved_knights_stay_with_their_holder_between_turns():
    state = turn_with(["KNIGHT"] * 3 + ["CAP"] * 6 + CAPS, players=2)
    for _ in range(3):
        state.apply({"collect": "KNIGHT"})
    state.apply({"stop": True})
    state.apply({"keep_knight": True})
    assert state.reserved == [0, None] and len(state.pool) == 8
    assert 0 not in [die for die, _ in state.pool]
