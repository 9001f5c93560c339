"""Section 12: observation and view shape, the action encoding and its canonical order, illegal actions,
and the options (12 intro)."""

import json

import pytest
from carcassonne_dice_helpers import builds, game, new, plane_of, random_game, turn_with, with_planes

from engines import IllegalAction
from engines.carcassonne_dice.faces import FACE_ID

TOP_KEYS = {"game", "options", "players", "phase", "to_act", "active", "round", "turn_index", "scores",
            "reserved_knight", "turn", "history", "winner", "end_reason"}
TURN_KEYS = {"doubled", "rolls_made", "rolls_left", "pool", "collected_knights", "collected_dice", "catapults",
             "catapulted_dice", "planes", "cities", "score_if_stop"}


def test_12_1_observation_is_the_view_plus_you_and_has_the_documented_fields():
    state = new(4, seed=9)
    view = state.view()
    assert set(view) == TOP_KEYS and set(view["turn"]) == TURN_KEYS
    for seat in range(4):
        observation = state.observation(seat)
        assert observation.pop("you") == seat
        assert observation == view
    with pytest.raises(ValueError):
        state.observation(4)


def test_12_1_round_counts_from_one_and_turn_index_from_zero():
    state = turn_with(["KNIGHT"] * 9, players=3, seat=1, round_index=4)
    view = state.view()
    assert (view["turn_index"], view["round"], view["to_act"], view["active"]) == (13, 5, 1, 1)


def test_12_1_planes_and_cities_are_listed_with_rotated_edges():
    state = with_planes(turn_with(["KNIGHT"] * 9), plane_of(("CORNER", 0, 0, 0), ("CAP", 1, 0, 3)))
    turn = state.view()["turn"]
    assert turn["planes"] == [{"plane": 0, "dice": [
        {"die": 0, "face": "CORNER", "x": 0, "y": 0, "r": 0, "edges": "CCFF"},
        {"die": 1, "face": "CAP", "x": 1, "y": 0, "r": 3, "edges": "FFFC"}]}]
    assert turn["cities"] == [{"plane": 0, "dice": [0, 1], "size": 2, "closed": False, "open_edges": 1}]


def test_12_1_history_logs_decisions_and_events_of_the_last_turns():
    state, _ = random_game(3, 2)
    history = state.view()["history"]
    turns = [e for e in history if e.get("event") == "turn_start"]
    assert [e["seat"] for e in turns] == [(state.turn_index - 1) % 3, state.turn_index % 3]
    for entry in history:
        assert ("action" in entry) != ("event" in entry)
    assert history[-1]["event"] == "game_over"
    state = new(2, seed=1)
    state.apply({"roll": True})
    assert {"seat": 0, "action": {"roll": True}} in state.view()["history"]


def test_12_1_everything_is_json():
    state, _ = random_game(2, 8, on_step=lambda s: json.dumps(s.view()) and json.dumps(s.observation(1)))
    assert json.loads(json.dumps(state.view())) == state.view()


def test_12_2_canonical_order_of_legal_actions():
    state = with_planes(
        turn_with(["TRIPLE", "KNIGHT", "CAP", "BAND", "CORNER", "CAP", "KNIGHT", "BAND", "TRIPLE"]),
        plane_of(("CORNER", 0, 0, 0), ("CAP", 1, 0, 3)), plane_of(("BAND", 0, 0, 1)),
    )
    actions = state.legal_actions()
    assert actions[0] == {"collect": "KNIGHT"}
    assert actions[-2:] == [{"roll": True}, {"stop": True}]
    keys = [(FACE_ID[b[0]], -1 if b[1] == "new" else b[1], *b[2:]) for b in builds(state)]
    assert keys == sorted(keys) and len(set(keys)) == len(keys)
    assert {b[0] for b in builds(state)} == {"CAP", "CORNER", "BAND", "TRIPLE"}


def test_12_2_band_lists_only_the_lower_of_two_equal_rotations():
    state = with_planes(turn_with(["BAND"] * 9), plane_of(("BAND", 0, 0, 0)))
    assert {b[4] for b in builds(state) if b[0] == "BAND" and b[1] == 0} <= {0, 1}
    with pytest.raises(IllegalAction):
        state.apply({"build": ["BAND", 0, 0, 1, 2]})
    state.apply({"build": ["BAND", 0, 0, 1, 0]})


BAD_ACTIONS = [
    {"build": ["KNIGHT", "new"]}, {"build": ["CATAPULT", "new"]}, {"build": ["TRIPLE", "new"]},
    {"build": ["CAP", 0, 0, 0, 2]},          # occupied
    {"build": ["CAP", 0, 5, 5, 0]},          # not next to the plane
    {"build": ["CAP", 0, 0, 1, 0]},          # field against the city edge of the CAP below
    {"build": ["CAP", 1, 0, 1, 2]},          # no plane 1
    {"build": ["CAP", 0, 0, 1, True]}, {"build": ["CAP", False, 0, 1, 2]}, {"build": ["CAP"]},
    {"build": ("CAP", "old")}, {"roll": 1}, {"roll": False}, {"stop": "yes"}, {"collect": "CAP"},
    {"score": True}, {"keep_knight": True}, {"roll": True, "stop": True}, ["stop"], "stop", None,
]


@pytest.mark.parametrize("bad", BAD_ACTIONS, ids=[json.dumps(b) for b in BAD_ACTIONS])
def test_12_3_illegal_actions_raise_and_change_nothing(bad):
    state = with_planes(turn_with(["CAP"] * 9), plane_of(("CAP", 0, 0, 0)))
    state.rolls_made = 3
    state.reset_legal_cache()
    before = json.dumps(state.view(), sort_keys=True), json.dumps(state.legal_actions())
    with pytest.raises(IllegalAction):
        state.apply(bad)
    assert (json.dumps(state.view(), sort_keys=True), json.dumps(state.legal_actions())) == before


def test_12_3_a_tuple_equal_as_json_is_accepted():
    state = with_planes(turn_with(["CAP"] * 9), plane_of(("CAP", 0, 0, 0)))
    state.apply({"build": ("CAP", 0, 0, 1, 2)})
    assert state.planes[0].cities()[0].closed


def test_12_3_nothing_is_legal_once_the_game_is_over():
    state = turn_with(["CATAPULT"] * 9)
    assert state.legal_actions() == [] and state.current_player() is None
    with pytest.raises(IllegalAction):
        state.apply({"stop": True})


def test_12_options_default_and_validation():
    assert game().default_options() == {"equal_turns": False}
    assert new(2, equal_turns=True).view()["options"] == {"equal_turns": True}
    with pytest.raises(ValueError, match="equal_turns"):
        game().new_state(2, 1, {"equal_turns": 1})
    with pytest.raises(ValueError, match="unknown"):
        game().new_state(2, 1, {"fast": True})
    assert sorted(game().variants(), key=str) == sorted(
        [(n, {"equal_turns": flag}) for n in range(2, 6) for flag in (False, True)], key=str)
