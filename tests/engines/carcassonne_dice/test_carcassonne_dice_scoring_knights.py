"""CD-5 knights, CD-7 scoring and passing; ED-7, ED-13, ED-14; examples D and F.

Checklist items 6 (the points table, only the largest closed city, doubling, no stacking) and 7 (the
knight option only with 3+ knights, it scores 0, one knight is reserved, the next turn rolls with it).
"""

import pytest
from carcassonne_dice_helpers import plane_of, turn_with, with_planes

from engines import IllegalAction
from engines.carcassonne_dice.state import GAME_OVER, KNIGHT_CHOICE

KNIGHTS = ["KNIGHT"] * 9
CAPS = ["CAP"] * 9


def closed_line(size: int):
    """A closed city of ``size`` dice: CAP, BANDs northwards, CAP facing back."""
    middle = [("BAND", 0, y, 0) for y in range(1, size - 1)]
    return plane_of(("CAP", 0, 0, 0), *middle, ("CAP", 0, size - 1, 2))


def open_line(size: int):
    return plane_of(("CAP", 0, 0, 0), *[("BAND", 0, y, 0) for y in range(1, size)])


def last_score(state):
    return [e for e in state.view()["history"] if e.get("event") == "score"][-1]


def collect_knights(state, count):
    for _ in range(count):
        state.apply({"collect": "KNIGHT"})


@pytest.mark.parametrize(("size", "points"), [(2, 0), (3, 1), (4, 3), (5, 6), (6, 10), (7, 15), (8, 21), (9, 28)])
def test_cd_7_2_points_by_the_size_of_the_largest_closed_city(size, points):
    state = with_planes(turn_with(KNIGHTS + CAPS), closed_line(size))
    assert state.score_if_stop() == points
    state.apply({"stop": True})
    assert last_score(state)["city_size"] == size and state.scores() == [points, 0]


def test_cd_7_2_only_the_largest_closed_city_counts():
    state = with_planes(turn_with(KNIGHTS + CAPS), closed_line(3), open_line(7), closed_line(5), closed_line(4))
    state.apply({"stop": True})
    assert state.scores() == [6, 0]


def test_cd_7_2_open_cities_score_nothing():
    state = with_planes(turn_with(KNIGHTS + CAPS), open_line(8))
    state.apply({"stop": True})
    assert state.scores() == [0, 0] and last_score(state)["city_size"] == 0


def test_ed_14_a_closed_two_dice_city_scores_nothing():
    state = with_planes(turn_with(KNIGHTS + CAPS), closed_line(2))
    state.apply({"stop": True})
    assert last_score(state)["city_size"] == 2 and last_score(state)["points"] == 0


def test_cd_7_1_with_fewer_than_three_knights_scoring_is_automatic():
    state = with_planes(turn_with(["KNIGHT", "KNIGHT"] + CAPS[:7] + CAPS), closed_line(4))
    collect_knights(state, 2)
    state.apply({"stop": True})
    assert state.current_player() == 1 and state.scores() == [3, 0]


def test_cd_5_2_three_knights_open_the_knight_option():
    state = with_planes(turn_with(["KNIGHT"] * 3 + CAPS[:6] + CAPS), closed_line(4))
    collect_knights(state, 3)
    assert state.legal_actions()[-1] == {"stop": True}
    with pytest.raises(IllegalAction):
        state.apply({"keep_knight": True})
    state.apply({"stop": True})
    assert state.phase == KNIGHT_CHOICE and state.current_player() == 0
    assert state.legal_actions() == [{"score": True}, {"keep_knight": True}]
    assert state.view()["turn"]["score_if_stop"] == 3
    state.apply({"score": True})
    assert state.scores() == [3, 0] and state.reserved == [None, None]


def test_cd_7_5_the_knight_option_scores_zero_even_with_a_closed_city():
    state = with_planes(turn_with(["KNIGHT"] * 3 + CAPS[:6] + CAPS), closed_line(6))
    collect_knights(state, 3)
    state.apply({"stop": True})
    state.apply({"keep_knight": True})
    assert state.scores() == [0, 0]
    keep = [e for e in state.view()["history"] if e.get("event") == "keep_knight"]
    assert keep == [{"seat": 0, "event": "keep_knight", "die": 0}]
    assert state.view()["reserved_knight"] == [True, False]


def test_ed_13_the_lowest_id_collected_knight_is_reserved():
    faces = ["CAP"] * 6 + ["KNIGHT"] * 3 + ["CAP"] * 5 + ["KNIGHT"] + ["CAP"] * 9
    state = turn_with(faces)
    collect_knights(state, 3)  # dice 6, 7, 8
    state.apply({"roll": True})  # dice 0..5: die 5 shows a knight
    state.apply({"collect": "KNIGHT"})
    assert state.view()["turn"]["collected_dice"] == [6, 7, 8, 5]
    state.apply({"stop": True})
    state.apply({"keep_knight": True})
    assert state.reserved[0] == 5


def test_cd_5_3_cd_7_6_the_next_turn_rolls_with_the_reserved_knight_and_is_doubled():
    faces = ["KNIGHT"] * 3 + ["CAP"] * 6 + CAPS[:8] + CAPS
    state = turn_with(faces, players=2)
    collect_knights(state, 3)
    state.apply({"stop": True})
    state.apply({"keep_knight": True})
    # CD-7.6: seat 1 rolls every die except the kept knight.
    assert state.current_player() == 1 and [die for die, _ in state.pool] == list(range(1, 9))
    state.apply({"stop": True})
    view = state.view()
    assert view["active"] == 0 and view["turn"]["doubled"] is True
    assert [p["die"] for p in view["turn"]["pool"]] == list(range(9))
    assert view["reserved_knight"] == [False, False]


def test_cd_7_3_a_doubled_turn_doubles_the_points():
    state = with_planes(turn_with(KNIGHTS + CAPS, reserved={0: 3}), closed_line(5))
    state.apply({"stop": True})
    assert state.scores() == [12, 0] and last_score(state)["doubled"] is True


def test_cd_7_3_a_doubled_turn_scoring_zero_still_uses_up_the_knight():
    state = turn_with(KNIGHTS + CAPS + CAPS, reserved={0: 3})
    state.apply({"stop": True})
    assert state.scores() == [0, 0] and state.current_player() == 1
    state.apply({"stop": True})
    assert state.view()["turn"]["doubled"] is False


def test_cd_5_4_ed_7_knight_option_during_a_doubled_turn_doubles_the_next_once():
    faces = ["KNIGHT"] * 3 + CAPS[:6] + CAPS[:8] + CAPS
    state = turn_with(faces, reserved={0: 8})
    assert state.doubled
    collect_knights(state, 3)
    state.apply({"stop": True})
    state.apply({"keep_knight": True})
    assert state.reserved == [0, None]
    state.apply({"stop": True})  # seat 1
    assert state.doubled and state.active == 0
    with_planes(state, closed_line(5))
    state.round_dice.load(*CAPS)
    state.apply({"stop": True})
    assert state.scores() == [12, 0], "x2, never x4"


def test_cd_5_4_a_player_holds_at_most_one_reserved_knight():
    # Keeping a knight again in the doubled turn replaces the returned one: still one die per seat.
    faces = ["KNIGHT"] * 4 + CAPS[:5] + CAPS
    state = turn_with(faces, reserved={0: 8})
    collect_knights(state, 4)
    state.apply({"stop": True})
    state.apply({"keep_knight": True})
    assert state.reserved == [0, None]
    assert len(state.pool) == 8


def test_cd_5_5_the_returned_knight_die_is_an_ordinary_die_in_its_turn():
    faces = ["CAP"] * 8 + ["BAND"] + CAPS
    state = turn_with(faces, players=2, reserved={0: 8})
    assert state.view()["turn"]["collected_knights"] == 0
    state.apply({"build": ["BAND", "new"]})
    assert state.view()["turn"]["planes"][0]["dice"][0]["die"] == 8


def test_cd_5_6_two_reserved_knights_of_others_leave_seven_dice():
    state = turn_with(CAPS, players=3, reserved={1: 0, 2: 1})
    assert len(state.pool) == 7


def test_cd_7_6_a_returned_knight_is_passed_on_unless_reserved_again():
    state = turn_with(CAPS + CAPS, players=2, reserved={0: 2})
    state.apply({"stop": True})
    assert state.reserved == [None, None] and len(state.pool) == 9


def test_example_d_keep_the_knight_then_a_doubled_eight_dice_city_scores_42():
    faces = ["KNIGHT"] * 3 + CAPS[:6] + CAPS[:8] + CAPS
    state = with_planes(turn_with(faces, players=2), closed_line(5))
    collect_knights(state, 3)
    state.apply({"stop": True})
    assert state.view()["turn"]["score_if_stop"] == 6
    state.apply({"keep_knight": True})
    assert state.scores() == [0, 0]
    state.apply({"stop": True})  # seat 1
    with_planes(state, closed_line(8))
    state.apply({"stop": True})
    assert state.scores() == [42, 0]
    assert state.phase == GAME_OVER and state.view()["winner"] == [0]


def test_example_f_dice_flow_with_three_players():
    faces = ["CATAPULT", "CATAPULT"] + CAPS[:6] + CAPS[:8] + CAPS
    state = turn_with(faces, players=3, seat=2, reserved={1: 4})
    assert len(state.catapulted) + len(state.pool) == 8
    assert state.view()["turn"]["catapults"] == 2
    state.apply({"stop": True})
    assert state.active == 0 and len(state.pool) == 8  # seat 1 still holds its knight
    state.apply({"stop": True})
    assert state.active == 1 and len(state.pool) == 9 and state.doubled
