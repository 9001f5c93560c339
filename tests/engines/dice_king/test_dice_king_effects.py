"""Card effects, dragon alarm and the map: rules DK-3.9, DK-3.10, DK-6.1 to DK-6.9, DK-7.1 to DK-7.4,
DK-8.1 to DK-8.4, DK-10.5 to DK-10.10, ED-9 to ED-13, ED-16, ED-19, ED-22 (checklist items 5 to 11)."""

from __future__ import annotations

import pytest
from dice_king_helpers import (
    at_claim,
    dice_showing,
    events,
    fields_of,
    fresh,
    give_cards,
    occupy,
    refresh,
    set_display,
)

from engines import IllegalAction
from engines.dice_king.board import DISTANCE, LANDSCAPE_FIELDS, LANDSCAPES, NEIGHBOURS, TILE_LANDSCAPE
from engines.dice_king.scoring import areas

FOUR_RED = dice_showing("R3", "R2", "R6", "R4", "G2", "G2")
FIVE_RED = dice_showing("R1", "R3", "R2", "R6", "R5", "G2")
SIX_RED = dice_showing("R1", "R3", "R2", "R6", "R5", "R4")
STRAIGHT_SIX = [1, 2, 3, 4, 5, 6]
NO_RED = dice_showing("G2", "G2", "B5", "G5", "B6", "B3")


def claim(state, stack, card, values, *, seat=None, others_empty=True):
    set_display(state, {stack: card}, others_empty=others_empty)
    at_claim(state, values, seat=seat)
    acting = state.active
    state.apply({"claim": stack})
    return acting


def drawn_counts(state):
    return [len(event["tiles"]) for event in events(state, "draw")]


def place_first_until_done(state):
    while state.phase == "place":
        state.apply(state.legal_actions()[0])


# --- DK-6.1 to DK-6.4: draw and place, markers, gem rewards, the dwarf ----------------------------------


@pytest.mark.parametrize(("values", "tiers"), [(FOUR_RED, 1), (FIVE_RED, 2), (SIX_RED, 3)])
def test_dk_6_4_dwarf_tiers_1_2_3_draw_1_2_3_tiles(values, tiers):
    state = fresh(seed=2)
    seat = claim(state, 1, "S1-01", values)
    assert events(state, "claimed")[-1]["tiers"] == tiers
    assert drawn_counts(state) == [tiers]
    place_first_until_done(state)
    assert sum(1 for owner in state.owner if owner == seat) == 1
    rewards = [e for e in events(state, "gem_reward") if e["reason"] == "complete_condition"]
    assert len(rewards) == (1 if tiers == 3 else 0)


def test_dk_6_4_dwarf_worked_example_keeps_one_tile_and_returns_the_other():
    state = fresh(seed=2)
    state.supply = [8, 4] + [t for t in state.supply if t not in (8, 4)]  # lake T08 and forest T04
    state.supply.sort()
    refresh(state)
    seat = claim(state, 1, "S1-01", FIVE_RED)
    state.pending["drawn"] = [8, 4]  # as if these two were drawn
    for tile in (8, 4):
        state.supply.remove(tile)
    refresh(state)
    assert {"place": ["T08", 2]} in state.legal_actions() and {"place": ["T08", 22]} in state.legal_actions()
    state.apply({"place": ["T08", 2]})
    assert state.owner[2] == seat and state.gem[2] is None and state.gold[seat] == 1
    assert 4 in state.supply and state.supply == sorted(state.supply)
    assert events(state, "tiles_returned")[-1]["tiles"] == ["T04"]


def test_dk_6_1_returned_tiles_are_public_knowledge_of_the_supply():
    state = fresh(seed=2)
    claim(state, 1, "S1-01", FIVE_RED)
    drawn = list(state.pending["drawn"])
    state.apply(state.legal_actions()[0])
    (back,) = [t for t in drawn if t not in state.tile_at]
    obs = state.observation(0)
    landscape = LANDSCAPES[TILE_LANDSCAPE[back]]
    assert obs["tiles"]["seen_returned_by_landscape"][landscape] == 1
    assert obs["tiles"]["supply_count"] == 25


def test_dk_10_5_placing_on_another_landscape_or_an_occupied_field_is_illegal():
    state = fresh(seed=2)
    claim(state, 1, "S1-01", SIX_RED)
    tile = min(state.pending["drawn"])
    name = f"T{tile:02d}"
    wrong = next(f for f in range(30) if f not in fields_of_tile(tile))
    for action in ({"place": [name, wrong]}, {"place": [name, 4]}, {"place": ["T12", 4]}, {"place": [name]}):
        with pytest.raises(IllegalAction):
            state.apply(action)


def fields_of_tile(tile):
    return LANDSCAPE_FIELDS[TILE_LANDSCAPE[tile]]


def test_dk_3_9_effects_are_compulsory_placement_has_no_pass():
    state = fresh(seed=2)
    claim(state, 2, "S2-01", FIVE_RED)  # THIEF_CARD: draw 2, place 1
    assert state.phase == "place"
    assert all("place" in action for action in state.legal_actions())


@pytest.mark.parametrize(("gold", "white", "expected"), [(2, 5, "gold"), (0, 5, "white"), (0, 0, None)])
def test_dk_6_3_and_ed_9_and_dk_10_10_gem_reward_gold_first_then_white_then_nothing(gold, white, expected):
    state = fresh(seed=2)
    state.supply_gold, state.supply_white = gold, white
    claim(state, 1, "S1-01", SIX_RED)
    place_first_until_done(state)
    assert events(state, "gem_reward")[-1]["gem"] == expected
    assert (state.supply_gold, state.supply_white) == (
        gold - (expected == "gold"), white - (expected == "white"))


def test_dk_3_10_and_ed_9_six_straight_bonus_after_the_effect_also_with_the_dwarf_gem():
    state = fresh(seed=2)
    claim(state, 1, "S1-06", STRAIGHT_SIX)  # TIERS(STRAIGHT(4),STRAIGHT(5),STRAIGHT(6)): 3 tiers
    place_first_until_done(state)
    assert [e["reason"] for e in events(state, "gem_reward")] == ["complete_condition", "six_straight"]


def test_dk_3_10_no_bonus_without_all_six_values_or_without_a_straight_atom():
    state = fresh(seed=2)
    claim(state, 2, "S2-05", [1, 2, 3, 4, 5, 5])  # STRAIGHT(4)
    place_first_until_done(state)
    if state.phase == "steal":
        state.apply({"pass": True})
    assert events(state, "gem_reward") == []
    other = fresh(seed=2)
    claim(other, 2, "S2-01", STRAIGHT_SIX)  # COLOR(R,4): no STRAIGHT atom
    place_first_until_done(other)
    if other.phase == "steal":
        other.apply({"pass": True})
    assert events(other, "gem_reward") == []


# --- DK-6.5, DK-6.6: thieves ------------------------------------------------------------------------------


def test_dk_6_5_thief_card_draws_2_places_1_and_may_take_an_opponents_front_card():
    state = fresh(seed=2)
    seat = state.active
    victim = (seat + 1) % 3
    give_cards(state, victim, front=["S3-05", "S4-05"], supers=["S5-10"])
    claim(state, 2, "S2-01", FIVE_RED)
    assert drawn_counts(state) == [2] and state.pending["to_place"] == 1
    place_first_until_done(state)
    assert state.legal_actions() == [{"steal_card": [victim, "S3-05"]}, {"steal_card": [victim, "S4-05"]},
                                     {"pass": True}]
    state.apply({"steal_card": [victim, "S4-05"]})
    assert "S4-05" in state.front[seat] and state.front[victim] == ["S3-05"]


def test_dk_6_6_thief_gem_draws_1_and_may_take_any_gem_of_an_opponent():
    state = fresh(seed=2)
    seat = state.active
    victim = (seat + 1) % 3
    state.gold[victim] = 1
    claim(state, 2, "S2-08", FIVE_RED)  # SUMC(R,13)
    assert drawn_counts(state) == [1]
    place_first_until_done(state)
    offered = state.legal_actions()
    assert {"steal_gem": [victim, "gold"]} in offered and {"steal_gem": [victim, "white"]} in offered
    assert not any("steal_card" in a for a in offered) and offered[-1] == {"pass": True}
    gold_before = state.gold[seat]
    state.apply({"steal_gem": [victim, "gold"]})
    assert state.gold[victim] == 0 and state.gold[seat] == gold_before + 1


def test_dk_3_9_the_steal_is_optional_pass_takes_nothing():
    state = fresh(seed=2)
    seat = state.active
    victim = (seat + 1) % 3
    give_cards(state, victim, front=["S3-05"])
    claim(state, 2, "S2-01", FIVE_RED)
    place_first_until_done(state)
    state.apply({"pass": True})
    assert state.front[victim] == ["S3-05"] and "S3-05" not in state.front[seat]
    assert state.active != seat


def test_dk_10_7_steal_with_nothing_to_steal_is_a_forced_pass():
    state = fresh(seed=2)
    seat = state.active
    claim(state, 2, "S2-01", FIVE_RED)
    place_first_until_done(state)
    assert state.active != seat and state.phase == "roll"
    assert {"seat": seat, "action": {"pass": True}, "auto": True} in state.history


# --- DK-6.7: tamer --------------------------------------------------------------------------------------


def test_dk_6_7_tamer_picks_any_fire_takes_it_marks_the_field_and_takes_the_gem():
    state = fresh(seed=2)
    seat = state.active
    occupy(state, 2, None, fire=True)  # an alarm field that kept its gold gem
    claim(state, 3, "S3-07", FIVE_RED)  # SUMC(R,15)
    assert state.legal_actions() == [{"tame": 2}, {"tame": 4}, {"tame": 26}]
    state.apply({"tame": 2})
    assert state.fires[seat] == 1 and state.fire[2] is False and state.owner[2] == seat
    assert state.gold[seat] == 1 and state.gem[2] is None and state.tile_at[2] >= 0


def test_ed_10_and_dk_10_6_tamer_without_fires_does_nothing_but_the_card_is_taken():
    state = fresh(seed=2)
    seat = state.active
    state.fire[4] = state.fire[26] = False
    claim(state, 3, "S3-07", FIVE_RED)
    assert "S3-07" in state.front[seat] and state.fires[seat] == 0
    assert events(state, "no_effect")[-1]["seat"] == seat and state.active != seat


def test_ed_19_a_single_fire_is_tamed_without_asking():
    state = fresh(seed=2)
    seat = state.active
    state.fire[4] = False
    claim(state, 3, "S3-07", FIVE_RED)
    assert state.owner[26] == seat and {"seat": seat, "action": {"tame": 26}, "auto": True} in state.history


# --- DK-6.8, DK-8.3: brawler ----------------------------------------------------------------------------


def brawl_position():
    state = fresh(3, seed=2)
    for field, seat in ((7, 0), (8, 0), (10, 1), (20, 1), (29, 2)):
        occupy(state, field, seat)
    return state


def test_dk_6_8_and_dk_8_3_brawler_worked_example_nearest_by_bfs():
    assert DISTANCE[8][10] == 2 and DISTANCE[8][20] == 2 and min(DISTANCE[7][29], DISTANCE[8][29]) == 6
    state = brawl_position()
    claim(state, 4, "S4-01", FIVE_RED, seat=0)
    assert state.legal_actions() == [{"brawl": 10}, {"brawl": 20}]
    state.apply({"brawl": 10})
    assert state.owner[10] == 0 and state.markers[1] == 15 and state.markers[0] == 13


def test_dk_8_3_distance_passes_through_any_field():
    state = brawl_position()
    occupy(state, 9, None, fire=True)
    occupy(state, 14, 2)
    claim(state, 4, "S4-01", FIVE_RED, seat=0)
    # Field 14 (seat 2) is next to field 8, nearer than seat 1's fields: taken without asking (ED-19).
    assert state.owner[14] == 0 and state.markers[2] == 15
    assert {"seat": 0, "action": {"brawl": 14}, "auto": True} in state.history


def test_dk_6_8_without_own_markers_every_opponent_marker_is_nearest():
    state = brawl_position()
    for field in (7, 8):
        state.owner[field] = -1
        state.markers[0] += 1
    refresh(state)
    set_display(state, {4: "S4-01"}, others_empty=True)
    at_claim(state, FIVE_RED, seat=0)
    state.apply({"claim": 4})
    assert state.legal_actions() == [{"brawl": 10}, {"brawl": 20}, {"brawl": 29}]


def test_dk_6_8_and_dk_10_6_brawler_without_opponent_markers_does_nothing():
    state = fresh(3, seed=2)
    occupy(state, 7, 0)
    claim(state, 4, "S4-01", FIVE_RED, seat=0)
    assert events(state, "no_effect")[-1]["why"] == "no opponent marker" and state.markers == [15, 16, 16]


def test_ed_11_the_replaced_marker_returns_to_its_owners_supply():
    state = brawl_position()
    claim(state, 4, "S4-01", FIVE_RED, seat=0)
    state.apply({"brawl": 20})
    assert state.markers[1] == 15 and sum(1 for o in state.owner if o == 1) == 1
    assert events(state, "brawl")[-1] == {"seat": 0, "event": "brawl", "field": 20, "victim": 1}


# --- DK-6.9: landowner ----------------------------------------------------------------------------------


def test_dk_6_9_landowner_draws_and_places_two_tiles_in_the_chosen_order():
    state = fresh(seed=2)
    seat = claim(state, 5, "S5-01", SIX_RED)
    assert drawn_counts(state) == [2] and state.pending["to_place"] == 2
    place_first_until_done(state)
    assert sum(1 for o in state.owner if o == seat) == 2 and state.markers[seat] == 14


def test_dk_6_9_and_dk_10_8_landowner_with_one_tile_left_places_it_and_dk_9_1_the_game_ends():
    state = fresh(seed=2)
    state.supply = [0]
    refresh(state)
    seat = claim(state, 5, "S5-01", SIX_RED)
    assert drawn_counts(state) == [1] and state.pending["to_place"] == 1
    place_first_until_done(state)
    assert state.owner[0] == seat or state.owner[29] == seat
    assert state.is_terminal() and events(state, "game_over")[-1]["reason"] == "supply_empty"


# --- DK-6.2, ED-22: the 17th marker -----------------------------------------------------------------------


def test_dk_6_2_and_ed_22_17th_marker_wins_before_any_tile_is_drawn():
    state = fresh(2, seed=2)
    supply = list(state.supply)
    state.markers[1] = 0
    claim(state, 5, "S5-01", SIX_RED, seat=1)
    assert state.is_terminal() and state.winner_by_markers == 1
    assert state.supply == supply and drawn_counts(state) == []
    assert state.observation(0)["winner"] == [1]


def test_ed_22_with_one_marker_left_the_landowner_places_one_and_wins_before_the_second():
    state = fresh(2, seed=2)
    state.markers[1] = 1
    claim(state, 5, "S5-01", SIX_RED, seat=1)
    drawn = list(state.pending["drawn"])
    state.apply(state.legal_actions()[0])
    assert state.is_terminal() and state.markers[1] == 0
    assert len(state.pending["drawn"]) == 1 and state.pending["drawn"][0] in drawn
    assert state.pending["drawn"][0] not in state.supply


def test_dk_6_2_tamer_and_brawler_need_a_marker_only_when_they_have_a_target():
    state = fresh(2, seed=2)
    state.markers[0] = 0
    state.fire[4] = state.fire[26] = False
    claim(state, 3, "S3-07", FIVE_RED, seat=0)
    assert not state.is_terminal()
    state = fresh(2, seed=2)
    state.markers[0] = 0
    claim(state, 3, "S3-07", FIVE_RED, seat=0)
    assert state.is_terminal() and state.winner_by_markers == 0
    # The brawler: no opponent marker means no marker is needed; one opponent marker means one is.
    state = fresh(2, seed=2)
    state.markers[0] = 0
    claim(state, 4, "S4-01", FIVE_RED, seat=0)
    assert not state.is_terminal() and state.markers[0] == 0
    state = fresh(2, seed=2)
    occupy(state, 20, 1)
    state.markers[0] = 0
    claim(state, 4, "S4-01", FIVE_RED, seat=0)
    assert state.is_terminal() and state.winner_by_markers == 0
    assert state.owner[20] == 1 and state.markers == [0, 15]


def test_ed_20_the_others_are_ranked_by_score_from_place_2():
    state = fresh(3, seed=2)
    state.white = [0, 5, 3]
    state.markers[0] = 0
    claim(state, 5, "S5-01", SIX_RED, seat=0)
    assert state.scores() == [0, 10, 6] and state.ranking() == [1, 2, 3]


# --- DK-7: dragon alarm ---------------------------------------------------------------------------------


def alarm_position(seed=2):
    state = fresh(3, seed=seed)
    set_display(state, {5: "S5-01", 4: "S4-01"})
    state.stacks[5] = ["S5-01", "S5-02"]
    refresh(state)
    at_claim(state, NO_RED, seat=0)
    return state


def test_dk_3_11_with_nothing_claimable_phase_3b_offers_an_alarm_for_every_display_card():
    state = alarm_position()
    assert state.claimable_now == []
    assert state.legal_actions() == [{"alarm": stack} for stack in range(1, 6) if state.stacks[stack]]
    state.apply({"alarm": 4})
    assert state.phase in ("alarm_field", "roll") and state.supers[0] == ["S4-01"]


def test_dk_7_1_alarm_takes_any_display_card_as_a_superjoker_and_the_next_shows():
    state = alarm_position()
    assert state.natural_claimable == []
    state.apply({"alarm": 5})
    assert state.supers[0] == ["S5-01"] and state.stacks[5][0] == "S5-02"
    assert events(state, "superjoker")[-1]["card"] == "S5-01" and drawn_counts(state)[-1] == 1


def test_dk_7_2_alarm_tile_on_a_free_field_with_a_fire_nobody_owns_and_the_gem_stays():
    state = alarm_position()
    state.supply = [8, 9]  # both lakes: lake fields are 2 (gold gem) and 22
    refresh(state)
    state.apply({"alarm": 5})
    assert state.phase == "alarm_field" and state.legal_actions() == [{"alarm_field": 2}, {"alarm_field": 22}]
    state.apply({"alarm_field": 2})
    assert state.tile_at[2] in (8, 9) and state.fire[2] and state.owner[2] == -1 and state.gem[2] == "gold"
    assert state.supply_fires == 12 and state.markers[0] == 16


def test_dk_7_3_fire_from_own_zone_when_the_general_supply_is_empty():
    state = alarm_position()
    state.supply_fires = 0
    state.fires = [2, 1, 0]
    state.apply({"alarm": 5})
    place_alarm(state)
    assert state.fires == [1, 1, 0] and events(state, "fire")[-1]["from"] == 0


def test_dk_7_3_and_ed_16_fire_from_an_opponent_of_the_players_choice():
    state = alarm_position()
    state.supply_fires = 0
    state.fires = [0, 1, 2]
    state.apply({"alarm": 5})
    place_alarm(state)
    assert state.phase == "fire_source" and state.legal_actions() == [{"fire_from": 1}, {"fire_from": 2}]
    state.apply({"fire_from": 2})
    assert state.fires == [0, 1, 1] and events(state, "fire")[-1]["from"] == 2


def test_ed_13_no_fire_outside_the_map_places_the_tile_without_one():
    state = alarm_position()
    state.supply_fires = 0
    state.fires = [0, 0, 0]
    state.apply({"alarm": 5})
    field = place_alarm(state)
    assert state.tile_at[field] >= 0 and not state.fire[field] and state.owner[field] == -1
    assert events(state, "no_fire")[-1]["field"] == field


def place_alarm(state):
    """Put the alarm tile on its first free field (asked or forced); return that field."""
    if state.phase == "alarm_field":
        state.apply(state.legal_actions()[0])
    return [e["action"]["alarm_field"] for e in state.history if "alarm_field" in e.get("action", {})][-1]


def test_dk_7_4_alarm_never_places_a_marker_so_never_wins():
    state = alarm_position()
    state.markers[0] = 0
    state.apply({"alarm": 5})
    place_alarm(state)
    assert not state.is_terminal() and state.winner_by_markers is None


def test_ed_12_and_dk_10_9_empty_display_means_no_rolling_and_an_alarm_without_superjoker():
    state = alarm_position()
    for stack in state.stacks:
        state.stacks[stack] = []
    state.stacks[5] = ["S5-01"]
    state.supply = [0, 1, 2, 3]  # meadows and wheat: both fields of each are free, so a choice is asked
    refresh(state)
    state.apply({"alarm": 5})
    place_alarm(state)
    assert state.active == 1 and state.phase == "alarm_field"
    assert state.rolls_made == 0 and state.dice == [0] * 6 and drawn_counts(state)[-1] == 1
    obs = state.observation(1)
    assert obs["turn"]["dice"] == [] and obs["turn"]["pending"]["effect"] == "ALARM"
    assert obs["turn"]["pending"]["card"] is None and state.supers[1] == []


# --- DK-8: the map --------------------------------------------------------------------------------------


def test_dk_8_1_adjacency_is_symmetric():
    assert all(a in NEIGHBOURS[b] for a in range(30) for b in NEIGHBOURS[a])


def test_dk_8_2_a_fire_field_belongs_to_nobody_and_a_marked_field_to_its_owner():
    state = fresh()
    obs = state.observation(0)
    assert obs["map"][4]["owner"] is None and obs["map"][4]["fire"] and obs["map"][4]["tile"] == "T12"
    occupy(state, 0, 1)
    assert state.observation(0)["map"][0]["owner"] == 1


def test_dk_8_4_areas_are_maximal_groups_of_adjacent_own_fields():
    owner = [-1] * 30
    for field in (7, 8, 13, 14, 21, 27, 0):
        owner[field] = 0
    owner[9] = 1
    assert areas(owner, 0) == [[7, 8, 13, 14], [21, 27], [0]]
    assert areas(owner, 1) == [[9]] and areas(owner, 2) == []


def test_dk_1_2_a_tile_only_lies_on_a_field_of_its_landscape():
    for field, fields in ((2, fields_of("lake")), (29, fields_of("meadow"))):
        assert field in fields
