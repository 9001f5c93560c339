"""Section 12's rule-to-test checklist of ``docs/rules/kingdomino.md``, and every rule id of that file named by a test."""

import ast
import re
from pathlib import Path

HERE = Path(__file__).resolve().parent
RULES_FILE = HERE.parents[2] / "docs" / "rules" / "kingdomino.md"

RULE_IDS = (
    [f"KD-1.{i}" for i in range(1, 6)] + [f"KD-2.{i}" for i in range(1, 7)] + [f"KD-3.{i}" for i in range(1, 7)]
    + [f"KD-4.{i}" for i in range(1, 8)] + ["KD-5.1", "KD-5.2", "KD-6.1", "KD-6.2"]
    + [f"KD-7.{i}" for i in range(1, 5)] + [f"KD-8.{i}" for i in range(1, 6)]
    + [f"KD-9.{i}" for i in range(1, 6)] + [f"ED-{i}" for i in range(1, 14)]
)

# Section 12, item by item: the tests that check it.
CHECKLIST = {
    "KD-1.4/1.5 table and checksums": ["test_kd_1_4_table_spot_checks_in_json_shape",
                                       "test_kd_1_5_checksums_per_terrain_and_overall"],
    "KD-2.1 setup counts for 2/3/4 players and the Mighty Duel": ["test_kd_2_1_setup_counts"],
    "KD-2.3 set-aside dominoes never appear": ["test_kd_2_3_set_aside_dominoes_never_appear"],
    "KD-2.4 lines sorted": ["test_kd_2_4_lines_come_from_the_front_of_the_pile_sorted_lowest_first"],
    "KD-2.5 initial pick order from the RNG (and snake)": [
        "test_kd_2_5_initial_pick_follows_the_shuffled_kings",
        "test_kd_2_5_snake_variant_orders_start_other_other_start"],
    "KD-3.2 order by position": ["test_kd_3_2_kings_act_by_position_placing_then_picking"],
    "KD-3.5 no pick in the last round": ["test_kd_3_5_last_round_places_without_picking_then_the_game_ends"],
    "KD-3.6 12 or 24 dominoes resolved per seat": [
        "test_kd_3_6_rounds_equal_lines_and_each_seat_resolves_12_or_24"],
    "KD-4.2 to 4.4 the four legality examples of Section 4": [
        "test_kd_4_3_the_kingdom_must_fit_in_k_by_k_section_4_examples",
        "test_kd_4_4_connection_by_castle_or_same_terrain_section_4_examples"],
    "KD-4.5 discard only when nothing fits": ["test_kd_4_5_discard_only_when_nothing_fits_and_the_king_still_picks"],
    "KD-7 worked example = 50": ["test_kd_7_3_worked_example_base_score_is_50",
                                 "test_kd_7_worked_example_replays_legally_into_the_drawn_kingdom"],
    "KD-8 tie-breakers": ["test_kd_8_2_tie_broken_by_largest_property", "test_kd_8_3_then_by_crowns",
                          "test_kd_8_4_still_tied_seats_share_the_place"],
    "KD-9.1/9.2 bonuses (+10/+5 on the example)": [
        "test_kd_9_1_middle_kingdom_adds_10_on_the_worked_example",
        "test_kd_9_2_harmony_adds_5_on_the_worked_example", "test_kd_9_1_and_9_2_combined_give_65"],
    "KD-9.4 Dynasty totals": ["test_kd_9_4_dynasty_plays_three_games_and_totals_them"],
    "ED-1 same seed gives the same game": ["test_ed_1_same_seed_same_game_and_replay_reproduces_it",
                                           "test_ed_1_golden_playthrough_replays_exactly"],
    "ED-6 no hidden information in any observation": ["test_ed_6_a_redealt_pile_is_invisible_to_every_seat",
                                                      "test_ed_6_observations_carry_no_draw_order_or_set_aside"],
    "ED-9 canonical order of legal_actions()": ["test_ed_9_canonical_order_of_legal_actions"],
}


def defined_test_names():
    names = set()
    for path in HERE.glob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"):
                names.add(node.name)
    return names


def prefix(rule_id):
    return "test_" + rule_id.lower().replace("-", "_").replace(".", "_") + "_"


def test_section_12_checklist_items_all_have_their_tests():
    names = defined_test_names()
    missing = {item: [t for t in tests if t not in names] for item, tests in CHECKLIST.items()}
    assert not {item: tests for item, tests in missing.items() if tests}


def test_every_rule_id_and_engine_decision_has_a_test_named_after_it():
    names = defined_test_names()
    untested = [rule for rule in RULE_IDS if not any(name.startswith(prefix(rule)) for name in names)]
    assert not untested


def test_the_rules_file_lists_exactly_these_rule_ids():
    text = RULES_FILE.read_text()
    found = re.findall(r"\*\*(KD-\d+\.\d+)\*\*", text) + re.findall(r"\*\*(ED-\d+) ", text)
    assert sorted(set(found)) == sorted(RULE_IDS)
