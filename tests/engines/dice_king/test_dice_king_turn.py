"""Rolling, the claim duty and jokers: rules DK-3.1 to DK-3.8, DK-5.1 to DK-5.5, DK-10.1 to DK-10.4,
ED-8, ED-17, ED-18, ED-19, ED-21 (checklist items 3 and 4, worked examples of 9.2)."""

from __future__ import annotations

import pytest
from dice_king_helpers import at_claim, dice_showing, events, fresh, give_cards, refresh, set_display

from engines import IllegalAction

FIVE_RED = dice_showing("R1", "R3", "R2", "R6", "R5", "G2")
FOUR_RED = dice_showing("R3", "R2", "R6", "R4", "G2", "G2")
NO_RED = dice_showing("G2", "G2", "B5", "G5", "B6", "B3")


def jokers(state):
    return [a["joker"] for a in state.legal_actions() if "joker" in a]


def kinds(state):
    return [next(iter(a)) for a in state.legal_actions()]


def test_dk_3_1_the_first_roll_is_made_by_the_engine():
    state = fresh()
    assert state.phase == "roll" and state.rolls_made == 1
    roll = events(state, "roll")[-1]
    assert roll["dice"] == [0, 1, 2, 3, 4, 5] and roll["values"] == state.dice
    assert all(1 <= v <= 6 for v in state.dice)


def test_dk_3_2_reroll_any_set_nothing_locked_at_most_three_rolls_and_ed_19_stop_still_asked():
    state = fresh(seed=3)
    legal = state.legal_actions()
    assert len(legal) == 64 and legal[0] == {"reroll": [0]} and legal[2] == {"reroll": [0, 1]}
    assert legal[-1] == {"stop": True}
    before = list(state.dice)
    state.apply({"reroll": [1, 2, 3, 4, 5]})
    assert state.rolls_made == 2 and state.dice[0] == before[0]
    state.apply({"reroll": [0]})  # die 0 was left lying after roll 1 and may still be re-rolled
    assert state.rolls_made == 3 and state.dice[1:] == events(state, "roll")[-2]["values"][1:]
    assert state.legal_actions() == [{"stop": True}] and state.phase == "roll"


def test_dk_10_1_reroll_after_the_third_roll_or_of_an_empty_set_is_illegal():
    state = fresh(seed=3)
    with pytest.raises(IllegalAction):
        state.apply({"reroll": []})
    with pytest.raises(IllegalAction):
        state.apply({"reroll": [1, 0]})  # not the canonical ascending list
    state.apply({"reroll": [0]})
    state.apply({"reroll": [0]})
    with pytest.raises(IllegalAction):
        state.apply({"reroll": [0]})


def test_dk_3_3_the_natural_result_is_the_dice_as_they_lie():
    state = at_claim(fresh(), FIVE_RED)
    dice = state.observation(0)["turn"]["dice"]
    assert [d["value"] for d in dice] == FIVE_RED
    assert sum(1 for d in dice if d["colour"] == "R") == 5


def test_dk_3_4_and_3_5_and_dk_10_3_claim_duty_forbids_the_alarm():
    state = fresh()
    set_display(state, {1: "S1-01", 2: "S2-02", 3: "S3-02", 4: "S4-02", 5: "S5-01"})
    at_claim(state, FOUR_RED)
    assert state.natural_claimable == [1]
    assert "alarm" not in kinds(state) and {"claim": 1} in state.legal_actions()
    with pytest.raises(IllegalAction):
        state.apply({"alarm": 5})


def test_dk_3_6_jokers_make_a_card_claimable_when_e_is_empty():
    state = fresh()
    seat = state.active
    set_display(state, {5: "S5-01"}, others_empty=True)
    give_cards(state, seat, front=["S2-01", "S3-01"])  # both R1
    at_claim(state, FIVE_RED)
    assert state.natural_claimable == [] and state.legal_actions()[-1] == {"alarm": 5}
    state.apply({"joker": ["R", 1, "pair"]})
    assert state.claimable_now == [5]
    assert {"claim": 5} in state.legal_actions() and {"alarm": 5} in state.legal_actions()
    state.apply({"claim": 5})
    assert state.front[seat] == ["S5-01"]


def test_dk_3_5_claim_of_a_card_outside_e_through_jokers_while_e_is_not_empty():
    state = fresh()
    seat = state.active
    set_display(state, {1: "S1-01", 5: "S5-01"}, others_empty=True)
    give_cards(state, seat, front=["S2-01", "S3-01"])
    at_claim(state, FIVE_RED)
    assert state.natural_claimable == [1] and state.claimable_now == [1]
    state.apply({"joker": ["R", 1, "pair"]})
    assert state.claimable_now == [1, 5] and "alarm" not in kinds(state)
    state.apply({"claim": 5})
    assert "S5-01" in state.front[seat]


def test_ed_21_order_example_card_of_e_stays_claimable_after_a_joker_that_breaks_it():
    state = fresh()
    seat = state.active
    set_display(state, {2: "S2-06"})
    give_cards(state, seat, front=["S3-04", "S4-04"])  # both G5
    at_claim(state, [1, 1, 4, 3, 5, 3])
    assert [(d["colour"], d["value"]) for d in state.observation(seat)["turn"]["dice"]] == [
        ("R", 1), ("R", 1), ("G", 4), ("B", 3), ("R", 5), ("B", 3)]
    assert state.natural_claimable == [2]
    state.apply({"joker": ["G", 5, "pair"]})
    assert state.virtual == [("G", 5)]
    assert state.claimable_now == [2] and {"claim": 2} in state.legal_actions()
    assert "alarm" not in kinds(state)


def test_dk_3_7_any_subset_of_several_virtual_dice_may_be_used():
    state = fresh()
    seat = state.active
    set_display(state, {2: "S2-06"}, others_empty=True)
    give_cards(state, seat, front=["S3-04", "S4-04"], supers=["S5-10", "S5-11"])
    # Red 7, blue 3, green 4: ORDER fails, and only a blue die without the green one can mend it.
    at_claim(state, dice_showing("R1", "R1", "G4", "B3", "R5", "R3"))
    assert state.natural_claimable == []
    state.apply({"joker": ["G", 5, "pair"]})
    assert state.claimable_now == []
    state.apply({"joker": ["B", 3, "super"]})  # natural + blue 3 (not the green 5) meets ORDER
    assert state.virtual == [("G", 5), ("B", 3)] and state.claimable_now == [2]


def test_dk_3_8_claimed_card_goes_face_up_next_card_shows_and_an_empty_stack_stays_empty():
    state = fresh()
    seat = state.active
    state.stacks[1] = ["S1-01", "S1-02"]
    state.stacks[2] = ["S2-01"]
    refresh(state)
    at_claim(state, FIVE_RED)
    state.apply({"claim": 2})
    assert "S2-01" in state.front[seat] and state.stacks[2] == []
    obs = state.observation(0)
    assert obs["display"][1] == {"stack": 2, "card": None}
    assert {"card": "S2-01", "joker": ["R", 1]} in obs["seats"][seat]["front_cards"]


def test_dk_10_2_claiming_a_card_not_on_display_or_not_met_is_illegal():
    state = fresh()
    set_display(state, {1: "S1-01", 5: "S5-01", 2: None})
    at_claim(state, FOUR_RED)
    for action in ({"claim": 2}, {"claim": 5}, {"claim": 6}, {"claim": "1"}):
        with pytest.raises(IllegalAction):
            state.apply(action)


def test_dk_5_1_and_5_2_worked_joker_example_offers_22_actions_in_canonical_order():
    state = fresh()
    seat = state.active
    give_cards(state, seat, front=["S1-04", "S3-03", "S1-02", "S1-05"], supers=["S5-10", "S5-11"])
    at_claim(state, NO_RED)
    offered = jokers(state)
    assert len(offered) == 22
    expected = []
    for colour in "RGB":
        for value in range(1, 7):
            if (colour, value) == ("R", 4):
                expected += [[colour, value, "pair"], [colour, value, "mixed"]]
            if (colour, value) in (("G", 2), ("B", 6)):
                expected.append([colour, value, "mixed"])
            expected.append([colour, value, "super"])
    assert offered == expected
    legal = state.legal_actions()
    assert [next(iter(a)) for a in legal][:22] == ["joker"] * 22


def test_dk_5_2_and_ed_17_each_joker_kind_spends_the_lowest_ids_and_ed_8_they_leave_the_game():
    state = fresh()
    seat = state.active
    give_cards(state, seat, front=["S3-03", "S1-04", "S4-03", "S1-02"], supers=["S5-11", "S5-10", "S5-12"])
    at_claim(state, NO_RED)
    state.apply({"joker": ["R", 4, "pair"]})
    assert state.front[seat] == ["S1-02", "S4-03"]
    state.apply({"joker": ["G", 2, "mixed"]})
    assert state.front[seat] == ["S4-03"] and state.supers[seat] == ["S5-11", "S5-12"]
    state.apply({"joker": ["B", 1, "super"]})
    assert state.supers[seat] == [] and state.virtual == [("R", 4), ("G", 2), ("B", 1)]
    spent = [card for event in events(state, "joker") for card in event["spent"]]
    assert spent == ["S1-04", "S3-03", "S1-02", "S5-10", "S5-11", "S5-12"]
    everywhere = {card for group in (*state.front, *state.supers, *state.stacks.values()) for card in group}
    assert not set(spent) & everywhere


def test_dk_5_3_several_pairs_in_one_turn_and_a_single_card_is_never_spent():
    state = fresh()
    seat = state.active
    give_cards(state, seat, front=["S1-04", "S3-03", "S4-03", "S5-03"], supers=["S5-10"])
    at_claim(state, NO_RED)
    state.apply({"joker": ["R", 4, "pair"]})
    state.apply({"joker": ["R", 4, "pair"]})
    assert state.virtual == [("R", 4), ("R", 4)] and state.front[seat] == []
    assert jokers(state) == []  # one superjoker alone cannot be spent


def test_dk_10_4_wrong_pairs_and_other_players_cards_are_rejected():
    state = fresh()
    seat = state.active
    other = (seat + 1) % 3
    give_cards(state, seat, front=["S1-04", "S1-02"])
    give_cards(state, other, front=["S3-03", "S4-03"], supers=["S5-10", "S5-11"])
    at_claim(state, NO_RED)
    for action in ({"joker": ["R", 4, "pair"]}, {"joker": ["G", 2, "pair"]}, {"joker": ["R", 4, "mixed"]},
                   {"joker": ["R", 4, "super"]}, {"joker": ["R", 4]}):
        with pytest.raises(IllegalAction):
            state.apply(action)
    assert state.virtual == [] and state.front[seat] == ["S1-02", "S1-04"]


def test_dk_5_4_jokers_only_in_phase_2_of_ones_own_turn():
    state = fresh()
    give_cards(state, state.active, front=["S1-04", "S3-03"])
    assert not any("joker" in a for a in state.legal_actions())  # phase 1
    at_claim(state, FIVE_RED)
    assert jokers(state) == [["R", 4, "pair"]]


def test_ed_18_useless_joker_spends_are_allowed_and_lost_before_an_alarm():
    state = fresh()
    seat = state.active
    set_display(state, {5: "S5-01"}, others_empty=True)
    give_cards(state, seat, front=["S1-04", "S3-03"])
    at_claim(state, NO_RED)
    state.apply({"joker": ["R", 4, "pair"]})
    assert state.claimable_now == []
    state.apply({"alarm": 5})
    assert state.front[seat] == [] and "S5-01" in state.supers[seat]


def test_dk_5_5_superjokers_cannot_be_stolen():
    state = fresh()
    seat = state.active
    victim = (seat + 1) % 3
    give_cards(state, victim, front=["S3-05"], supers=["S5-10"])
    set_display(state, {2: "S2-01"})  # THIEF_CARD, COLOR(R,4)
    at_claim(state, FIVE_RED)
    state.apply({"claim": 2})
    while state.phase == "place":
        state.apply(state.legal_actions()[0])
    assert state.phase == "steal"
    assert state.legal_actions() == [{"steal_card": [victim, "S3-05"]}, {"pass": True}]
