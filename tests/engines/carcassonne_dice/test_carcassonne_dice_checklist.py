"""Section 13's rule-to-test checklist, item by item, as a map to the tests that cover it.

The test fails if a listed test is renamed or removed, so the checklist cannot silently lose coverage.
"""

import importlib

import pytest

CHECKLIST = {
    "1 pool size with 0-4 knights held by others; own knight returns and sets doubled": [
        "test_carcassonne_dice_turn::test_cd_3_2_pool_size_is_nine_minus_knights_reserved_by_others",
        "test_carcassonne_dice_turn::test_cd_3_2_own_reserved_knight_returns_to_the_pool_and_doubles_the_turn",
    ],
    "2 catapults in roll 1, 2 and 3 leave at once; the cumulative 9-catapult win": [
        "test_carcassonne_dice_turn::test_cd_8_1_catapults_of_any_roll_are_handed_on_at_once",
        "test_carcassonne_dice_turn::test_cd_9_2_ed_6_nine_catapults_over_one_turn_win_at_once",
        "test_carcassonne_dice_turn::test_cd_9_2_nine_catapults_need_all_nine_dice",
    ],
    "3 collect and build only the latest roll; re-rolls; no 4th roll; no roll with an empty pool": [
        "test_carcassonne_dice_turn::test_cd_4_3_ed_5_unresolved_dice_are_rerolled_by_the_next_roll",
        "test_carcassonne_dice_turn::test_cd_4_2_rolling_again_is_legal_only_before_the_third_roll",
        "test_carcassonne_dice_turn::test_checklist_3_roll_with_an_empty_pool_is_illegal",
    ],
    "4 placement: each face, rotation and neighbour edge kind; a new plane; field-only contact": [
        "test_carcassonne_dice_geometry::test_cd_6_3_b_each_face_at_each_rotation_against_each_neighbour_edge_kind",
        "test_carcassonne_dice_geometry::test_cd_6_3_a_a_new_plane_is_always_open_to_a_city_face",
        "test_carcassonne_dice_geometry::test_cd_6_3_b_touching_along_field_edges_only_is_allowed",
    ],
    "5 cities: A and B closed, C open, 1 die never closed, closed 2-dice city scores 0": [
        "test_carcassonne_dice_geometry::test_example_a_the_smallest_scoring_city",
        "test_carcassonne_dice_geometry::test_example_b_a_ring_of_four_corners",
        "test_carcassonne_dice_geometry::test_example_c_the_seeds_turn_2a_to_2c",
        "test_carcassonne_dice_geometry::test_cd_6_5_a_single_die_is_never_closed_and_two_facing_caps_are",
        "test_carcassonne_dice_scoring_knights::test_ed_14_a_closed_two_dice_city_scores_nothing",
    ],
    "6 points table; only the largest closed city; doubling; no stacking": [
        "test_carcassonne_dice_scoring_knights::test_cd_7_2_points_by_the_size_of_the_largest_closed_city",
        "test_carcassonne_dice_scoring_knights::test_cd_7_2_only_the_largest_closed_city_counts",
        "test_carcassonne_dice_scoring_knights::test_cd_7_3_a_doubled_turn_doubles_the_points",
        "test_carcassonne_dice_scoring_knights::test_cd_5_4_ed_7_knight_option_during_a_doubled_turn_doubles_the_next_once",
    ],
    "7 knight option only with 3+; scores 0; one knight reserved; next turn rolls with it": [
        "test_carcassonne_dice_scoring_knights::test_cd_5_2_three_knights_open_the_knight_option",
        "test_carcassonne_dice_scoring_knights::test_cd_7_5_the_knight_option_scores_zero_even_with_a_closed_city",
        "test_carcassonne_dice_scoring_knights::test_cd_5_3_cd_7_6_the_next_turn_rolls_with_the_reserved_knight_and_is_doubled",
    ],
    "8 immediate end at 42; equal_turns; the 100-round cap; ranking": [
        "test_carcassonne_dice_end::test_cd_7_4_cd_9_1_example_e_42_points_end_the_game_at_once",
        "test_carcassonne_dice_end::test_cd_9_4_ed_10_equal_turns_finishes_the_round",
        "test_carcassonne_dice_end::test_cd_9_3_ed_9_the_game_ends_after_100_rounds",
        "test_carcassonne_dice_end::test_cd_9_3_tied_leaders_at_the_cap_share_first_place",
        "test_carcassonne_dice_end::test_cd_9_5_ed_16_a_nine_catapult_winner_is_first_alone_whatever_the_totals",
    ],
    "9 determinism: same seed and actions, same views; faces match the named streams by hand": [
        "test_carcassonne_dice_components::test_checklist_9_same_seed_and_actions_give_the_same_view_sequence",
        "test_carcassonne_dice_components::test_ed_11_first_roll_matches_a_hand_computation_from_its_stream",
        "test_carcassonne_dice_golden::test_ed_11_golden_playthrough_replays_exactly",
    ],
}


@pytest.mark.parametrize("item", sorted(CHECKLIST))
def test_section_13_checklist_item_is_covered(item):
    for reference in CHECKLIST[item]:
        module_name, test_name = reference.split("::")
        module = importlib.import_module(module_name)
        assert callable(getattr(module, test_name, None)), f"checklist item {item}: {reference} is missing"
