"""CD-9 end of the game, CD-7.4, ED-9, ED-10, ED-16; example E.

Checklist item 8: the immediate end at 42 (the rest of the round is not played), the ``equal_turns``
option, the 100-round cap, and ``ranking()`` with shared places and after a nine-catapult win.
"""

from carcassonne_dice_helpers import plane_of, turn_with, with_planes

from engines.carcassonne_dice.state import GAME_OVER, ROUND_CAP

KNIGHTS = ["KNIGHT"] * 9
CAPS = ["CAP"] * 9


def closed_line(size: int):
    middle = [("BAND", 0, y, 0) for y in range(1, size - 1)]
    return plane_of(("CAP", 0, 0, 0), *middle, ("CAP", 0, size - 1, 2))


def score_turn(state, size: int | None):
    """Finish the active seat's turn with a closed city of ``size`` dice (None: no city)."""
    if size:
        with_planes(state, closed_line(size))
    state.round_dice.load(*CAPS)
    state.apply({"stop": True})


def test_cd_7_4_cd_9_1_example_e_42_points_end_the_game_at_once():
    state = turn_with(KNIGHTS, players=4, totals=[35, 12, 30, 20])
    score_turn(state, 6)
    assert state.scores() == [45, 12, 30, 20]
    assert state.is_terminal() and state.phase == GAME_OVER and state.current_player() is None
    assert state.turn_index == 0, "seats 1-3 do not play the rest of the round"
    assert state.view()["winner"] == [0] and state.view()["end_reason"] == "42_points"
    assert state.ranking() == [1, 4, 2, 3]
    assert state.legal_actions() == []


def test_cd_7_4_exactly_42_wins():
    state = turn_with(KNIGHTS, players=2, totals=[41, 0])
    score_turn(state, 3)
    assert state.is_terminal() and state.scores() == [42, 0]


def test_cd_9_4_ed_10_equal_turns_finishes_the_round():
    state = turn_with(KNIGHTS, players=4, seat=1, totals=[10, 35, 30, 20], equal_turns=True)
    score_turn(state, 6)  # seat 1 reaches 45
    assert not state.is_terminal() and state.active == 2
    score_turn(state, 7)  # seat 2 reaches 45 too
    assert not state.is_terminal() and state.active == 3
    score_turn(state, None)
    assert state.is_terminal() and state.view()["end_reason"] == "equal_turns"
    assert state.view()["winner"] == [1, 2]
    assert state.ranking() == [4, 1, 1, 3]


def test_cd_9_4_equal_turns_ends_at_once_when_the_last_seat_reaches_42():
    state = turn_with(KNIGHTS, players=3, seat=2, totals=[40, 20, 40], equal_turns=True)
    score_turn(state, 4)
    assert state.is_terminal() and state.view()["winner"] == [2] and state.turn_index == 2


def test_cd_9_4_nine_catapults_stay_immediate_with_equal_turns():
    state = turn_with(["CATAPULT"] * 9, players=3, seat=1, totals=[40, 0, 41], equal_turns=True)
    assert state.is_terminal() and state.view()["winner"] == [1]
    assert state.ranking() == [3, 1, 2]


def test_cd_9_3_ed_9_the_game_ends_after_100_rounds():
    state = turn_with(KNIGHTS, players=3, seat=2, totals=[7, 9, 5], round_index=ROUND_CAP - 1)
    assert state.view()["round"] == 100
    score_turn(state, None)
    assert state.is_terminal() and state.view()["end_reason"] == "round_cap"
    assert state.view()["winner"] == [1] and state.ranking() == [2, 1, 3]


def test_cd_9_3_round_99_does_not_end_the_game():
    state = turn_with(KNIGHTS, players=3, seat=2, totals=[7, 9, 5], round_index=ROUND_CAP - 2)
    score_turn(state, None)
    assert not state.is_terminal() and state.view()["round"] == 100


def test_cd_9_3_tied_leaders_at_the_cap_share_first_place():
    state = turn_with(KNIGHTS, players=3, seat=2, totals=[9, 9, 5], round_index=ROUND_CAP - 1)
    score_turn(state, None)
    assert state.view()["winner"] == [0, 1] and state.ranking() == [1, 1, 3]


def test_cd_9_5_ed_16_a_nine_catapult_winner_is_first_alone_whatever_the_totals():
    state = turn_with(["CATAPULT"] * 9, players=4, seat=2, totals=[30, 30, 3, 12])
    assert state.scores() == [30, 30, 3, 12]
    assert state.ranking() == [2, 2, 1, 4]


def test_cd_9_5_ranking_during_the_game_follows_the_totals():
    state = turn_with(KNIGHTS, players=4, totals=[5, 20, 5, 1])
    assert state.ranking() == [2, 1, 2, 4]
