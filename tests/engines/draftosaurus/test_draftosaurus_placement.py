"""Where a dinosaur may go: the zoo (DS-5), placement (DS-6), the die (Section 7, DS-7), every pen's
placement rule (DS-8, DS-9), worked example C and engine decisions ED-10, ED-11, ED-12 and ED-14."""

from __future__ import annotations

import itertools

import pytest
from draftosaurus_helpers import (
    SUMMER,
    WINTER,
    destinations,
    new,
    play_step,
    position,
    quarantine_position,
    random_playout,
    zoo,
)

from engines import IllegalAction
from engines.draftosaurus.board import PENS

SUMMER_ORDER = ["forest_of_sameness", "meadow_of_differences", "prairie_of_love", "woody_trio",
                "king_of_the_jungle", "solitary_island", "river"]
WINTER_ORDER = ["well_ordered_wood", "lovers_bridge_left", "lovers_bridge_right", "pyramid", "lookout",
                "quarantine_zone", "river"]

# Section 7: the pens each face allows on an empty zoo (the River comes on top).
FACE_TABLE = {
    "summer": {
        "woodlands": {"forest_of_sameness", "woody_trio", "king_of_the_jungle"},
        "grasslands": {"meadow_of_differences", "prairie_of_love", "solitary_island"},
        "food_court": {"forest_of_sameness", "woody_trio", "prairie_of_love"},
        "restrooms": {"king_of_the_jungle", "meadow_of_differences", "solitary_island"},
    },
    "winter": {
        "woodlands": {"well_ordered_wood", "lovers_bridge_left", "lookout"},
        "grasslands": {"lovers_bridge_right", "pyramid", "quarantine_zone"},
        "food_court": {"well_ordered_wood", "lovers_bridge_left", "quarantine_zone"},
        "restrooms": {"lookout", "lovers_bridge_right", "pyramid"},
    },
}


def pens_allowed(state, dino):
    return {to.split(":")[0] for to in destinations(state, dino)} - {"river"}


def non_roller(side, zoos_for_seat_1, die, hand=("triceratops",) * 6, players=3):
    """Seat 1 (not the roller, seat 0) about to place with ``die`` showing."""
    options = SUMMER if side == "summer" else WINTER
    zoos = [zoo(side) for _ in range(players)]
    zoos[1] = zoos_for_seat_1
    state = position(players, options, zoos=zoos, hands=[list(hand)] * players, die=die, roller=0)
    state.apply(next(a for a in state.legal_actions() if a["to"] == "river"))
    assert state.current_player() == 1
    return state


# --- DS-5: the zoo --------------------------------------------------------------------------------

def test_ds_5_1_six_pens_and_the_river_which_is_no_pen():
    for side in ("summer", "winter"):
        assert len(PENS[side]) == 6
        encoded = new(2, SUMMER if side == "summer" else WINTER).view()["zoos"][0]
        assert "river" not in encoded["pens"] and encoded["river"] == []
    state = non_roller("summer", zoo("summer", river=["t_rex"]), "empty_pen")
    assert "river" in destinations(state, "triceratops")  # a full River does not make it "not empty"


def test_ds_5_2_pens_left_and_right_of_the_river():
    for side, table in FACE_TABLE.items():
        for pen in PENS[side]:
            expected = "food_court" if pen.id in table["food_court"] else "restrooms"
            assert pen.side == expected, pen.id


def test_ds_5_3_three_pens_per_area_and_per_side():
    for side in ("summer", "winter"):
        areas = [pen.area for pen in PENS[side]]
        sides = [pen.side for pen in PENS[side]]
        assert areas.count("woodlands") == areas.count("grasslands") == 3
        assert sides.count("food_court") == sides.count("restrooms") == 3


def test_ds_5_4_placed_dinosaurs_never_move():
    state = new(4, SUMMER, seed=21)
    snapshots = []
    while not state.is_terminal():
        snapshots.append([z.to_json() for z in state.zoos])
        state.apply(state.legal_actions()[len(state.legal_actions()) // 2])
    for earlier, later in itertools.pairwise(snapshots):
        for before, after in zip(earlier, later):
            for pen, dinos in before["pens"].items():
                assert after["pens"][pen][:len(dinos)] == dinos
            assert after["river"][:len(before["river"])] == before["river"]


# --- DS-6: placement ------------------------------------------------------------------------------

def test_ds_6_1_a_placement_names_a_species_in_hand_and_a_destination():
    state = position(3, WINTER, hands=[["t_rex", "triceratops"]] * 3, die="grasslands", roller=0)
    for bad in ({"dino": "stegosaurus", "to": "river"},  # not in hand
                {"dino": "t_rex", "to": "pyramid"},  # the Pyramid needs a cell
                {"dino": "t_rex", "to": "lookout", "cell": "B1"},  # only the Pyramid takes a cell
                {"dino": "t_rex"}, {"to": "river"}, {"dino": "t_rex", "to": "volcano"}):
        with pytest.raises(IllegalAction):
            state.apply(bad)
    state.apply({"to": "pyramid", "cell": "B2", "dino": "t_rex"})  # key order does not matter
    assert state.pending[0] == {"dino": "t_rex", "to": "pyramid", "cell": "B2"}


def test_ds_6_2_the_roller_obeys_pen_rules():
    full = zoo("summer", king_of_the_jungle=["t_rex"], woody_trio=["t_rex"] * 3,
               forest_of_sameness=["t_rex"])
    state = position(3, zoos=[full, zoo("summer"), zoo("summer")], hands=[["triceratops"]] * 3, roller=0)
    assert pens_allowed(state, "triceratops") == {"meadow_of_differences", "prairie_of_love", "solitary_island"}


def test_ds_6_3_non_rollers_obey_the_die():
    state = non_roller("summer", zoo("summer"), "grasslands")
    assert pens_allowed(state, "triceratops") == FACE_TABLE["summer"]["grasslands"]
    assert state.observation(1)["die_applies_to_you"] is True
    before = state.view()
    with pytest.raises(IllegalAction):
        state.apply({"dino": "triceratops", "to": "forest_of_sameness"})  # woodlands, refused by the die
    assert state.view() == before


@pytest.mark.parametrize("die", ["woodlands", "grasslands", "restrooms", "food_court", "empty_pen", "no_t_rex"])
def test_ds_6_4_the_river_is_always_legal(die):
    crowded = zoo("winter", well_ordered_wood=["t_rex", "triceratops"], lookout=["t_rex"],
                  quarantine_zone=["t_rex"], lovers_bridge_left=["t_rex"], lovers_bridge_right=["t_rex"],
                  pyramid={"B1": "t_rex", "B2": "triceratops", "B3": "t_rex"})
    state = non_roller("winter", crowded, die, hand=["t_rex", "stegosaurus", "brachiosaurus"])
    for dino in ("t_rex", "stegosaurus", "brachiosaurus"):
        assert destinations(state, dino)[-1] == "river"


def test_ds_6_5_a_dinosaur_with_no_pen_goes_only_to_the_river():
    seat_zoo = zoo("summer", forest_of_sameness=["triceratops"], woody_trio=["t_rex"] * 3,
                   king_of_the_jungle=["spinosaurus"])
    state = non_roller("summer", seat_zoo, "woodlands", hand=["triceratops", "stegosaurus"])
    assert destinations(state, "stegosaurus") == ["river"]
    assert destinations(state, "triceratops") == ["forest_of_sameness", "river"]  # choose another instead


# --- Section 7 and DS-7: the die ------------------------------------------------------------------

@pytest.mark.parametrize("side", ["summer", "winter"])
@pytest.mark.parametrize("face", ["woodlands", "grasslands", "food_court", "restrooms"])
def test_ds_7_face_table_on_both_sides(side, face):
    state = non_roller(side, zoo(side), face)
    assert pens_allowed(state, "triceratops") == FACE_TABLE[side][face]


def test_ds_7_empty_pen_judges_bridge_halves_alone_and_the_pyramid_whole():
    seat_zoo = zoo("winter", lovers_bridge_left=["t_rex"], pyramid={"B1": "stegosaurus"}, lookout=["t_rex"])
    state = non_roller("winter", seat_zoo, "empty_pen")
    assert pens_allowed(state, "triceratops") == {"well_ordered_wood", "lovers_bridge_right", "quarantine_zone"}
    summer_zoo = zoo("summer", forest_of_sameness=["triceratops"], solitary_island=["t_rex"])
    state = non_roller("summer", summer_zoo, "empty_pen")
    assert pens_allowed(state, "triceratops") == {"meadow_of_differences", "prairie_of_love", "woody_trio",
                                                  "king_of_the_jungle"}


def test_ds_7_no_t_rex_allows_pens_without_one_even_for_a_t_rex():
    seat_zoo = zoo("winter", lovers_bridge_left=["t_rex"], pyramid={"B1": "t_rex"},
                   well_ordered_wood=["triceratops"])
    state = non_roller("winter", seat_zoo, "no_t_rex", hand=["t_rex"])
    assert pens_allowed(state, "t_rex") == {"well_ordered_wood", "lovers_bridge_right", "lookout",
                                            "quarantine_zone"}


def test_ds_7_1_the_roller_ignores_the_face():
    state = position(3, zoos=[zoo("summer")] * 3, hands=[["triceratops"]] * 3, die="restrooms", roller=0)
    assert pens_allowed(state, "triceratops") == {pen.id for pen in PENS["summer"]}
    assert state.observation(0)["die_applies_to_you"] is False


def test_ds_7_2_checks_use_the_zoo_before_the_turn_and_only_ones_own():
    state = position(3, zoos=[zoo("summer")] * 3, hands=[["triceratops"]] * 3, die="empty_pen", roller=2)
    state.apply({"dino": "triceratops", "to": "forest_of_sameness"})
    # Seat 0's pending Forest placement neither fills its own Forest nor touches seat 1's zoo.
    assert state.zoos[0].pens["forest_of_sameness"] == []
    assert "forest_of_sameness" in pens_allowed(state, "triceratops")


# --- DS-8: summer pens ----------------------------------------------------------------------------

def roller_choices(side, seat_zoo, dino):
    """The pens the roller (free of the die) may use for ``dino`` with ``seat_zoo``."""
    options = SUMMER if side == "summer" else WINTER
    state = position(2, options, zoos=[seat_zoo, zoo(side)], hands=[[dino], [dino]], roller=0)
    return destinations(state, dino)


def test_ds_8_1_forest_of_sameness_takes_one_species_up_to_six():
    assert "forest_of_sameness" in roller_choices("summer", zoo("summer"), "stegosaurus")
    assert "forest_of_sameness" in roller_choices("summer", zoo("summer", forest_of_sameness=["stegosaurus"] * 5),
                                                  "stegosaurus")
    assert "forest_of_sameness" not in roller_choices("summer", zoo("summer", forest_of_sameness=["t_rex"]),
                                                      "stegosaurus")
    assert "forest_of_sameness" not in roller_choices(
        "summer", zoo("summer", forest_of_sameness=["stegosaurus"] * 6), "stegosaurus")


def test_ds_8_2_meadow_of_differences_takes_only_new_species():
    meadow = zoo("summer", meadow_of_differences=["t_rex", "spinosaurus"])
    assert "meadow_of_differences" in roller_choices("summer", meadow, "triceratops")
    assert "meadow_of_differences" not in roller_choices("summer", meadow, "spinosaurus")


def test_ds_8_3_prairie_of_love_takes_any_species_up_to_six():
    assert "prairie_of_love" in roller_choices("summer", zoo("summer", prairie_of_love=["t_rex"] * 5), "t_rex")
    assert "prairie_of_love" not in roller_choices("summer", zoo("summer", prairie_of_love=["t_rex"] * 6), "t_rex")


def test_ds_8_4_woody_trio_takes_three():
    assert "woody_trio" in roller_choices("summer", zoo("summer", woody_trio=["t_rex", "spinosaurus"]), "t_rex")
    assert "woody_trio" not in roller_choices("summer", zoo("summer", woody_trio=["t_rex"] * 3), "t_rex")


def test_ds_8_5_king_of_the_jungle_takes_one():
    assert "king_of_the_jungle" in roller_choices("summer", zoo("summer"), "t_rex")
    assert "king_of_the_jungle" not in roller_choices("summer", zoo("summer", king_of_the_jungle=["t_rex"]),
                                                      "triceratops")


def test_ds_8_6_solitary_island_takes_one():
    assert "solitary_island" in roller_choices("summer", zoo("summer"), "t_rex")
    assert "solitary_island" not in roller_choices("summer", zoo("summer", solitary_island=["t_rex"]), "t_rex")


# --- DS-9: winter pens ----------------------------------------------------------------------------

def test_ds_9_1_well_ordered_wood_alternates_two_species():
    def wood_ok(contents, dino):
        return "well_ordered_wood" in roller_choices("winter", zoo("winter", well_ordered_wood=contents), dino)

    assert wood_ok([], "t_rex")
    assert wood_ok(["t_rex"], "triceratops") and not wood_ok(["t_rex"], "t_rex")
    assert wood_ok(["t_rex", "triceratops"], "t_rex") and not wood_ok(["t_rex", "triceratops"], "stegosaurus")
    assert not wood_ok(["t_rex", "triceratops"], "triceratops")
    assert wood_ok(["t_rex", "triceratops", "t_rex"], "triceratops")
    assert not wood_ok(["t_rex", "triceratops"] * 3, "t_rex")  # full at six


def test_ds_9_2_lovers_bridge_halves_take_any_species():
    bridge = zoo("winter", lovers_bridge_left=["t_rex", "t_rex"], lovers_bridge_right=["spinosaurus"])
    choices = roller_choices("winter", bridge, "t_rex")
    assert "lovers_bridge_left" in choices and "lovers_bridge_right" in choices


def test_ds_9_4_pyramid_fills_bottom_row_first_without_touching_equals():
    empty = roller_choices("winter", zoo("winter"), "t_rex")
    assert [d for d in empty if d.startswith("pyramid")] == ["pyramid:B1", "pyramid:B2", "pyramid:B3"]
    one = zoo("winter", pyramid={"B2": "t_rex"})
    assert [d for d in roller_choices("winter", one, "t_rex") if d.startswith("pyramid")] == []
    assert [d for d in roller_choices("winter", one, "stegosaurus") if d.startswith("pyramid")] == \
        ["pyramid:B1", "pyramid:B3"]
    bottom = zoo("winter", pyramid={"B1": "t_rex", "B2": "stegosaurus", "B3": "triceratops"})
    assert [d for d in roller_choices("winter", bottom, "t_rex") if d.startswith("pyramid")] == ["pyramid:M2"]
    assert [d for d in roller_choices("winter", bottom, "stegosaurus") if d.startswith("pyramid")] == []
    middle = zoo("winter", pyramid={"B1": "t_rex", "B2": "stegosaurus", "B3": "triceratops",
                                    "M1": "spinosaurus", "M2": "brachiosaurus"})
    assert [d for d in roller_choices("winter", middle, "t_rex") if d.startswith("pyramid")] == ["pyramid:T"]
    assert [d for d in roller_choices("winter", middle, "spinosaurus") if d.startswith("pyramid")] == []
    full = zoo("winter", pyramid={"B1": "t_rex", "B2": "stegosaurus", "B3": "triceratops",
                                  "M1": "spinosaurus", "M2": "brachiosaurus", "T": "t_rex"})
    assert [d for d in roller_choices("winter", full, "stegosaurus") if d.startswith("pyramid")] == []


def test_ds_9_5_the_lookout_takes_one():
    assert "lookout" in roller_choices("winter", zoo("winter"), "t_rex")
    assert "lookout" not in roller_choices("winter", zoo("winter", lookout=["t_rex"]), "stegosaurus")


def test_ds_9_6_quarantine_takes_one_and_must_be_moved_at_the_end():
    assert "quarantine_zone" in roller_choices("winter", zoo("winter"), "t_rex")
    assert "quarantine_zone" not in roller_choices("winter", zoo("winter", quarantine_zone=["t_rex"]), "t_rex")
    state = quarantine_position(zoo("winter", quarantine_zone=["stegosaurus"], lookout=["t_rex"],
                                    well_ordered_wood=["stegosaurus"]))
    assert state.phase == "quarantine" and state.current_player() == 0
    legal = state.legal_actions()
    assert {"to": "quarantine_zone"} not in legal and {"to": "lookout"} not in legal
    assert {"to": "well_ordered_wood"} not in legal  # two stegosaurus in a row break the Wood
    state.apply({"to": "lovers_bridge_right"})
    assert state.is_terminal()
    assert state.zoos[0].pens["quarantine_zone"] == []
    assert state.zoos[0].pens["lovers_bridge_right"][-1] == "stegosaurus"


def test_ed_10_prairie_holds_six_and_bridge_halves_have_no_limit():
    assert "prairie_of_love" not in roller_choices("summer", zoo("summer", prairie_of_love=["t_rex"] * 6), "t_rex")
    long_bank = zoo("winter", lovers_bridge_left=["triceratops"] * 6, lovers_bridge_right=["stegosaurus"])
    assert "lovers_bridge_left" in roller_choices("winter", long_bank, "stegosaurus")  # a 7th on one bank


def test_ed_11_any_free_cell_of_the_lowest_unfilled_row():
    two = zoo("winter", pyramid={"B1": "t_rex", "B3": "triceratops"})
    assert [d for d in roller_choices("winter", two, "stegosaurus") if d.startswith("pyramid")] == ["pyramid:B2"]
    two_m = zoo("winter", pyramid={"B1": "t_rex", "B2": "stegosaurus", "B3": "triceratops"})
    assert [d for d in roller_choices("winter", two_m, "brachiosaurus") if d.startswith("pyramid")] == \
        ["pyramid:M1", "pyramid:M2"]


def test_ed_12_the_quarantine_move_is_compulsory_and_ignores_the_die():
    state = quarantine_position(zoo("winter", quarantine_zone=["t_rex"]))
    assert state.die is None and state.roller is None
    # Every pen whose own rules allow it, whatever the last die showed; never "stay".
    assert state.legal_actions() == [{"to": "well_ordered_wood"}, {"to": "lovers_bridge_left"},
                                     {"to": "lovers_bridge_right"}, {"to": "pyramid", "cell": "B1"},
                                     {"to": "pyramid", "cell": "B2"}, {"to": "pyramid", "cell": "B3"},
                                     {"to": "lookout"}, {"to": "river"}]


# --- ED-14: canonical order -----------------------------------------------------------------------

def test_ed_14_place_order_summer():
    state = position(2, SUMMER, zoos=[zoo("summer")] * 2, hands=[["brachiosaurus", "t_rex", "t_rex"]] * 2,
                     roller=0)
    legal = state.legal_actions()
    assert [(a["dino"], a["to"]) for a in legal] == \
        [("t_rex", to) for to in SUMMER_ORDER] + [("brachiosaurus", to) for to in SUMMER_ORDER]


def test_ed_14_place_order_winter_with_pyramid_cells():
    state = position(2, WINTER, zoos=[zoo("winter")] * 2, hands=[["triceratops", "t_rex"]] * 2, roller=0)
    expected = []
    for dino in ("t_rex", "triceratops"):
        for to in WINTER_ORDER:
            if to == "pyramid":
                expected += [(dino, "pyramid", cell) for cell in ("B1", "B2", "B3")]
            else:
                expected.append((dino, to, None))
    assert [(a["dino"], a["to"], a.get("cell")) for a in state.legal_actions()] == expected


def test_ed_14_discard_order_and_first_action_fallback():
    state = position(2, SUMMER, hands=[["spinosaurus", "t_rex", "spinosaurus", "triceratops"]] * 2, roller=0)
    play_step(state, lambda s, seat: s.legal_actions()[0])
    assert state.history[0]["placements"][0]["to"] == "forest_of_sameness"  # the fallback picks a pen
    assert state.phase == "discard"
    assert state.legal_actions() == [{"discard": "triceratops"}, {"discard": "spinosaurus"}]


def test_ed_14_quarantine_order():
    state = quarantine_position(zoo("winter", quarantine_zone=["triceratops"], pyramid={"B2": "t_rex"},
                                    well_ordered_wood=["triceratops"]))
    assert state.legal_actions() == [{"to": "lovers_bridge_left"}, {"to": "lovers_bridge_right"},
                                     {"to": "pyramid", "cell": "B1"}, {"to": "pyramid", "cell": "B3"},
                                     {"to": "lookout"}, {"to": "river"}]


# --- Worked example C -----------------------------------------------------------------------------

def test_example_c_food_court_on_turn_3_of_round_1():
    state = new(4, SUMMER, seed=0)
    play_step(state, lambda s, seat: next(a for a in s.legal_actions() if a["to"] == "river"))
    play_step(state, lambda s, seat: next(a for a in s.legal_actions() if a["to"] == "river"))
    assert (state.round, state.turn, state.roller) == (1, 3, 2)
    state.zoos = [zoo("summer", river=["t_rex", "t_rex"], forest_of_sameness=[]) for _ in range(4)]
    state.hands = [["triceratops", "triceratops", "stegosaurus", "spinosaurus"]] * 4
    state.die = "food_court"
    state.reset_legal_cache()
    assert set(destinations(state, "triceratops")) == {"forest_of_sameness", "woody_trio", "prairie_of_love",
                                                       "river"}
    state.apply({"dino": "triceratops", "to": "river"})
    state.apply({"dino": "triceratops", "to": "river"})
    assert state.current_player() == 2
    assert set(destinations(state, "triceratops")) == set(SUMMER_ORDER)  # the roller: any pen, or the River
    state.die = "empty_pen"
    state.zoos[3] = zoo("summer", woody_trio=["t_rex"], king_of_the_jungle=["t_rex"])
    state.apply({"dino": "triceratops", "to": "river"})
    assert set(destinations(state, "triceratops")) == {"forest_of_sameness", "meadow_of_differences",
                                                       "prairie_of_love", "solitary_island", "river"}


def test_random_games_only_ever_offer_legal_placements():
    """Whatever was offered and played respects the pen rules at the end of the game."""
    for options in (SUMMER, WINTER):
        state = new(5, options, seed=33)
        random_playout(state, seed=5)
        for z in state.zoos:
            if z.side == "summer":
                assert len(set(z.pens["forest_of_sameness"])) <= 1
                assert len(set(z.pens["meadow_of_differences"])) == len(z.pens["meadow_of_differences"])
                assert len(z.pens["woody_trio"]) <= 3 and len(z.pens["prairie_of_love"]) <= 6
            else:
                wood = z.pens["well_ordered_wood"]
                assert all(wood[i] == wood[i - 2] for i in range(2, len(wood)))
                assert len(wood) < 2 or wood[0] != wood[1]
                assert z.pens["quarantine_zone"] == []
