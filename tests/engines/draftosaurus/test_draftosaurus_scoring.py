"""Scoring: every pen's table (DS-8, DS-9), the T-Rex bonus, the end of the game (DS-10), worked
examples A and B, and engine decisions ED-9, ED-15 and ED-16."""

from __future__ import annotations

import pytest
from draftosaurus_helpers import (
    SUMMER,
    SUMMER_WINTER,
    WINTER,
    new,
    position,
    quarantine_position,
    random_playout,
    zoo,
)

from engines.draftosaurus.scoring import all_scores, pen_scores, zoo_score


def summer_points(pen, contents, others=()):
    zoos = [zoo("summer", **{pen: contents})] + [zoo("summer", **o) for o in others]
    return pen_scores(zoos, 0)[pen]


def winter_points(pen, **pens):
    return pen_scores([zoo("winter", **pens), zoo("winter")], 0)[pen]


@pytest.mark.parametrize(("count", "points"), [(0, 0), (1, 2), (2, 4), (3, 8), (4, 12), (5, 18), (6, 24)])
def test_ds_8_1_forest_of_sameness_table(count, points):
    assert summer_points("forest_of_sameness", ["parasaurolophus"] * count) == points


@pytest.mark.parametrize(("count", "points"), [(0, 0), (1, 1), (2, 3), (3, 6), (4, 10), (5, 15), (6, 21)])
def test_ds_8_2_meadow_of_differences_table(count, points):
    species = ["t_rex", "triceratops", "stegosaurus", "spinosaurus", "parasaurolophus", "brachiosaurus"]
    assert summer_points("meadow_of_differences", species[:count]) == points


def test_ds_8_3_prairie_of_love_five_per_pair():
    assert summer_points("prairie_of_love", ["triceratops"]) == 0
    assert summer_points("prairie_of_love", ["triceratops"] * 4) == 10  # two pairs of one species
    assert summer_points("prairie_of_love", ["triceratops"] * 3 + ["t_rex"] * 2 + ["spinosaurus"]) == 10


def test_ds_8_4_woody_trio_seven_for_exactly_three():
    assert [summer_points("woody_trio", ["t_rex"] * n) for n in range(4)] == [0, 0, 0, 7]


def test_ds_8_5_king_of_the_jungle_ties_are_fine():
    mine = {"king_of_the_jungle": ["stegosaurus"], "river": ["stegosaurus"]}
    tie = [{"river": ["stegosaurus", "stegosaurus"]}, {"river": ["stegosaurus"]}]
    zoos = [zoo("summer", **mine)] + [zoo("summer", **o) for o in tie]
    assert pen_scores(zoos, 0)["king_of_the_jungle"] == 7
    beaten = [{"river": ["stegosaurus"] * 3}]
    zoos = [zoo("summer", **mine)] + [zoo("summer", **o) for o in beaten]
    assert pen_scores(zoos, 0)["king_of_the_jungle"] == 0
    assert summer_points("king_of_the_jungle", []) == 0


def test_ds_8_6_solitary_island_only_one_of_its_species_in_the_zoo():
    assert summer_points("solitary_island", ["t_rex"]) == 7
    assert pen_scores([zoo("summer", solitary_island=["t_rex"], river=["t_rex"])], 0)["solitary_island"] == 0
    assert summer_points("solitary_island", []) == 0


@pytest.mark.parametrize(("count", "points"), [(0, 0), (1, 2), (2, 4), (3, 8), (4, 12), (5, 18), (6, 24)])
def test_ds_9_1_well_ordered_wood_table(count, points):
    assert winter_points("well_ordered_wood", well_ordered_wood=(["t_rex", "triceratops"] * 3)[:count]) == points


def test_ds_9_2_lovers_bridge_six_per_cross_river_pair():
    assert winter_points("lovers_bridge_left", lovers_bridge_left=["t_rex", "t_rex", "spinosaurus"],
                         lovers_bridge_right=["t_rex", "spinosaurus", "spinosaurus", "triceratops"]) == 12
    assert winter_points("lovers_bridge_left", lovers_bridge_left=["t_rex", "t_rex"]) == 0
    # ED-10: a seventh dinosaur on one bank can still make a pair.
    long_bank = {"lovers_bridge_left": ["triceratops"] * 6 + ["stegosaurus"],
                 "lovers_bridge_right": ["stegosaurus"]}
    assert winter_points("lovers_bridge_left", **long_bank) == 6


def test_ds_9_2_each_cross_river_pair_of_one_species_counts():
    # Two pairs of T-Rex: each left-bank T-Rex finds its own partner; the third on the right has none.
    assert winter_points("lovers_bridge_left", lovers_bridge_left=["t_rex", "t_rex"],
                         lovers_bridge_right=["t_rex", "t_rex", "t_rex"]) == 12
    assert winter_points("lovers_bridge_left", lovers_bridge_left=["t_rex"] * 3 + ["spinosaurus"],
                         lovers_bridge_right=["t_rex"] * 3 + ["triceratops"]) == 18


def test_ds_9_3_t_rex_bonus_per_pen_halves_separate_river_excluded():
    winter = zoo("winter", lovers_bridge_left=["t_rex", "t_rex"], lovers_bridge_right=["t_rex"],
                 pyramid={"B1": "t_rex"}, river=["t_rex"])
    assert pen_scores([winter], 0)["t_rex_bonus"] == 3
    summer = zoo("summer", forest_of_sameness=["t_rex"] * 3, river=["t_rex"] * 4)
    assert pen_scores([summer], 0)["t_rex_bonus"] == 1


def test_ds_9_4_pyramid_rows_score_2_4_7():
    full = {"B1": "t_rex", "B2": "stegosaurus", "B3": "triceratops", "M1": "spinosaurus", "M2": "brachiosaurus",
            "T": "t_rex"}
    assert winter_points("pyramid", pyramid=full) == 21
    assert winter_points("pyramid", pyramid={"B1": "t_rex", "B3": "t_rex"}) == 4


def test_ds_9_5_lookout_counts_the_zoo_on_the_right():
    zoos = [zoo("winter", lookout=["spinosaurus"]), zoo("winter", river=["spinosaurus"] * 5),
            zoo("winter", well_ordered_wood=["spinosaurus"], river=["spinosaurus"], pyramid={"B1": "spinosaurus"})]
    assert pen_scores(zoos, 0)["lookout"] == 6  # seat 2 is on seat 0's right; seat 1's five do not count
    two = [zoo("winter", lookout=["t_rex"]), zoo("winter", river=["t_rex"] * 2)]
    assert pen_scores(two, 0)["lookout"] == 4
    assert pen_scores([zoo("winter"), zoo("winter")], 0)["lookout"] == 0


def test_ds_9_6_the_quarantined_dinosaur_scores_where_it_is_moved():
    state = quarantine_position(zoo("winter", quarantine_zone=["triceratops"], pyramid={"B1": "t_rex"}))
    before = state.game_scores()[0]
    state.apply({"to": "pyramid", "cell": "B2"})
    assert state.game_scores()[0] == before + 2


def test_ds_10_1_scoring_adds_pens_river_and_bonus():
    summer = zoo("summer", forest_of_sameness=["t_rex"] * 2, woody_trio=["t_rex", "triceratops", "stegosaurus"],
                 river=["spinosaurus"])
    points = pen_scores([summer], 0)
    assert points["river"] == 1 and points["t_rex_bonus"] == 2
    assert zoo_score([summer], 0) == sum(points.values()) == 4 + 7 + 1 + 2


def test_ds_10_1_quarantine_moves_before_scoring_and_king_looks_at_final_zoos():
    state = quarantine_position(zoo("winter", quarantine_zone=["spinosaurus"], lookout=["spinosaurus"]), players=2)
    state.zoos[1].river.append("spinosaurus")
    state.reset_legal_cache()
    state.apply({"to": "river"})
    # Seat 0's Lookout counts seat 1 (its right), which holds whatever it placed plus one spinosaurus.
    assert pen_scores(state.zoos, 0)["lookout"] == 2 * state.zoos[1].count("spinosaurus")


def test_ds_10_2_tie_broken_by_fewest_t_rex_then_shared():
    state = new(3, SUMMER, seed=0)
    state.zoos = [zoo("summer", river=["t_rex", "triceratops"]), zoo("summer", river=["triceratops", "stegosaurus"]),
                  zoo("summer", river=["spinosaurus", "stegosaurus"])]
    assert state.scores() == [2, 2, 2]
    assert state.ranking() == [3, 1, 1]


def test_ds_10_4_provisional_scores_during_play():
    state = new(4, WINTER, seed=3)
    random_playout(state, seed=1, upto=20)
    assert state.scores() == all_scores(state.zoos)
    assert [z["score"] for z in state.observation(2)["zoos"]] == state.scores()
    state.zoos[0].pens["quarantine_zone"] = ["stegosaurus"]
    assert pen_scores(state.zoos, 0)["quarantine_zone"] == 0


def test_example_a_summer_four_players():
    seat_a = zoo("summer", forest_of_sameness=["triceratops"] * 3, meadow_of_differences=["t_rex", "spinosaurus"],
                 prairie_of_love=["parasaurolophus"] * 2, woody_trio=["stegosaurus", "brachiosaurus", "t_rex"],
                 king_of_the_jungle=["triceratops"], solitary_island=["brachiosaurus"])
    others = [zoo("summer", river=["triceratops"] * n) for n in (4, 2, 3)]
    points = pen_scores([seat_a] + others, 0)
    assert points == {"forest_of_sameness": 8, "meadow_of_differences": 3, "prairie_of_love": 5, "woody_trio": 7,
                      "king_of_the_jungle": 7, "solitary_island": 0, "river": 0, "t_rex_bonus": 2}
    assert zoo_score([seat_a] + others, 0) == 32
    assert seat_a.size() == 12 and seat_a.t_rex_count() == 2
    others[0] = zoo("summer", river=["triceratops"] * 5)
    assert zoo_score([seat_a] + others, 0) == 25


def test_example_b_winter_three_players():
    seat_a = zoo("winter", well_ordered_wood=["triceratops", "stegosaurus", "triceratops", "stegosaurus"],
                 lovers_bridge_left=["parasaurolophus", "t_rex"], lovers_bridge_right=["parasaurolophus", "spinosaurus"],
                 pyramid={"B1": "brachiosaurus", "B2": "triceratops"}, lookout=["spinosaurus"],
                 quarantine_zone=["stegosaurus"])
    right = zoo("winter", river=["spinosaurus"] * 3)
    state = quarantine_position(seat_a, players=3)
    # seat 0 also put its last dinosaur in the River; take it out again to match the example.
    state.zoos[0].river = []
    state.zoos[2] = right
    state.reset_legal_cache()
    legal = state.legal_actions()
    assert {"to": "well_ordered_wood"} not in legal  # slot 4 must be a triceratops
    assert {"to": "pyramid", "cell": "B3"} in legal
    assert {"to": "lovers_bridge_left"} in legal and {"to": "lovers_bridge_right"} in legal and legal[-1] == {"to": "river"}
    assert not any(a.get("cell") in ("M1", "M2", "T") for a in legal)
    state.apply({"to": "pyramid", "cell": "B3"})
    assert state.is_terminal()
    points = pen_scores(state.zoos, 0)
    assert points == {"well_ordered_wood": 12, "lovers_bridge_left": 6, "lovers_bridge_right": 0, "pyramid": 6,
                      "lookout": 6, "quarantine_zone": 0, "river": 0, "t_rex_bonus": 1}
    assert state.scores()[0] == 31
    after = state.zoos[0]
    assert after.pyramid_cells_for("triceratops") == [] and after.pyramid_cells_for("brachiosaurus") == ["M2"]
    assert after.pyramid_cells_for("stegosaurus") == ["M1"] and after.pyramid_cells_for("spinosaurus") == ["M1", "M2"]


def test_example_b_triceratops_may_not_go_to_b3():
    seat_a = zoo("winter", pyramid={"B1": "brachiosaurus", "B2": "triceratops"})
    assert seat_a.pyramid_cells_for("triceratops") == []
    assert seat_a.pyramid_cells_for("stegosaurus") == ["B3"]


def test_ed_9_your_zoo_includes_the_river():
    island = zoo("summer", solitary_island=["spinosaurus"], river=["spinosaurus"])
    assert pen_scores([island], 0)["solitary_island"] == 0
    king = [zoo("summer", king_of_the_jungle=["t_rex"], river=["t_rex"]), zoo("summer", river=["t_rex", "t_rex"])]
    assert pen_scores(king, 0)["king_of_the_jungle"] == 7
    assert zoo("summer", river=["t_rex"], woody_trio=["t_rex"]).t_rex_count() == 2


def test_ed_15_running_scores_use_other_zoos_as_they_stand():
    state = new(2, SUMMER, seed=0)
    state.zoos = [zoo("summer", king_of_the_jungle=["t_rex"]), zoo("summer")]
    assert state.scores() == [7 + 1, 0]
    state.zoos[1].river += ["t_rex", "t_rex"]
    assert state.scores() == [1, 2]


def test_ed_16_summer_winter_ties_use_t_rex_summed_over_both_games():
    state = new(2, SUMMER_WINTER, seed=0)
    state.match_scores = [10, 11]
    state.match_t_rex = [0, 3]
    state.zoos = [zoo("summer", river=["t_rex", "triceratops"]), zoo("summer", river=["triceratops"])]
    assert state.scores() == [12, 12]
    assert state.ranking() == [1, 2]  # 1 T-Rex against 3
    state.match_t_rex = [2, 0]
    assert state.ranking() == [2, 1]
    state.match_t_rex = [1, 2]
    assert state.ranking() == [1, 1]


def test_ranking_is_stable_under_a_full_random_match():
    state = new(5, SUMMER_WINTER, seed=8)
    random_playout(state, seed=8)
    keys = list(zip(state.scores(), [-t for t in state.t_rex_counts()]))
    for a in range(5):
        for b in range(5):
            if keys[a] > keys[b]:
                assert state.ranking()[a] < state.ranking()[b]


def test_single_game_scores_rescore_from_the_final_view():
    state = position(3, WINTER, seed=4)
    random_playout(state, seed=4)
    view = state.view()
    assert [z["score"] for z in view["zoos"]] == state.scores()
