"""``engines.draftosaurus.zoo``: one player's zoo board, its pens' own rules and its JSON encoding.

Each pen's ``accepts`` rule, the Pyramid's lowest-row and no-touching-equals rule, counting (the River
included), copies, the Section 13 encoding both ways, and canonical hands.
"""

from __future__ import annotations

import pytest

from engines.draftosaurus.board import PYRAMID, RIVER, SPECIES, T_REX
from engines.draftosaurus.zoo import Zoo, canonical_hand

TRI, STEG, SPINO = "triceratops", "stegosaurus", "spinosaurus"


def zoo_with(side: str, *placements: tuple) -> Zoo:
    zoo = Zoo(side)
    for placement in placements:
        zoo.place(*placement)
    return zoo


def test_a_new_zoo_is_empty_with_the_pens_of_its_side():
    summer, winter = Zoo("summer"), Zoo("winter")
    assert summer.pyramid is None and summer.size() == 0 and summer.all_dinos() == []
    assert set(summer.pens) == {"forest_of_sameness", "meadow_of_differences", "prairie_of_love", "woody_trio",
                                "king_of_the_jungle", "solitary_island"}
    assert PYRAMID not in winter.pens and winter.pyramid == dict.fromkeys(("B1", "B2", "B3", "M1", "M2", "T"))


def test_the_forest_takes_one_species_up_to_six():
    zoo = Zoo("summer")
    assert zoo.accepts("forest_of_sameness", TRI) and zoo.accepts("forest_of_sameness", STEG)
    for _ in range(6):
        assert zoo.accepts("forest_of_sameness", TRI)
        zoo.place(TRI, "forest_of_sameness")
        assert not zoo.accepts("forest_of_sameness", STEG)
    assert not zoo.accepts("forest_of_sameness", TRI)


def test_the_meadow_takes_each_species_once():
    zoo = zoo_with("summer", (TRI, "meadow_of_differences"))
    assert not zoo.accepts("meadow_of_differences", TRI) and zoo.accepts("meadow_of_differences", STEG)


@pytest.mark.parametrize(("pen", "capacity"), [("prairie_of_love", 6), ("woody_trio", 3),
                                               ("king_of_the_jungle", 1), ("solitary_island", 1)])
def test_pens_with_a_plain_capacity(pen, capacity):
    zoo = Zoo("summer")
    for _ in range(capacity):
        assert zoo.accepts(pen, TRI)
        zoo.place(TRI, pen)
    assert not zoo.accepts(pen, STEG)


def test_the_well_ordered_wood_repeats_its_first_two_species():
    zoo = Zoo("winter")
    zoo.place(TRI, "well_ordered_wood")
    assert not zoo.accepts("well_ordered_wood", TRI) and zoo.accepts("well_ordered_wood", STEG)
    zoo.place(STEG, "well_ordered_wood")
    assert zoo.accepts("well_ordered_wood", TRI) and not zoo.accepts("well_ordered_wood", STEG)
    for species in (TRI, STEG, TRI, STEG):
        zoo.place(species, "well_ordered_wood")
    assert not zoo.accepts("well_ordered_wood", TRI)


def test_the_lovers_bridge_halves_take_anything_and_single_pens_one():
    zoo = Zoo("winter")
    for _ in range(20):
        zoo.place(T_REX, "lovers_bridge_left")
    assert zoo.accepts("lovers_bridge_left", T_REX) and zoo.accepts("lovers_bridge_right", TRI)
    zoo.place(TRI, "lookout")
    assert not zoo.accepts("lookout", TRI) and zoo.accepts("quarantine_zone", TRI)


def test_the_pyramid_fills_its_lowest_row_first_without_equal_neighbours():
    zoo = Zoo("winter")
    assert zoo.pyramid_cells_for(TRI) == ["B1", "B2", "B3"]
    zoo.place(TRI, PYRAMID, "B2")
    assert zoo.pyramid_cells_for(TRI) == [] and zoo.pyramid_cells_for(STEG) == ["B1", "B3"]
    zoo.place(STEG, PYRAMID, "B1")
    zoo.place(SPINO, PYRAMID, "B3")
    assert zoo.pyramid_cells_for(TRI) == [] and zoo.pyramid_cells_for(STEG) == ["M2"]
    for cell, species in (("M1", SPINO), ("M2", STEG), ("T", TRI)):
        zoo.place(species, PYRAMID, cell)
    assert zoo.pyramid_cells_for(T_REX) == []


def test_contents_counts_and_t_rexes_include_the_river_and_pyramid():
    zoo = zoo_with("winter", (T_REX, RIVER), (T_REX, "lookout"), (TRI, PYRAMID, "M1"), (TRI, "well_ordered_wood"))
    assert zoo.contents(RIVER) == [T_REX] and zoo.contents(PYRAMID) == [TRI]
    assert zoo.occupants(PYRAMID) == 1 and zoo.holds_t_rex("lookout") and not zoo.holds_t_rex(PYRAMID)
    assert zoo.count(TRI) == 2 and zoo.t_rex_count() == 2 and zoo.size() == 4
    assert sorted(zoo.all_dinos()) == sorted([T_REX, T_REX, TRI, TRI])


def test_a_copy_is_independent():
    zoo = zoo_with("winter", (TRI, PYRAMID, "B1"), (STEG, RIVER))
    twin = zoo.copy()
    twin.place(TRI, RIVER)
    twin.place(STEG, PYRAMID, "B2")
    twin.place(TRI, "lookout")
    assert zoo.to_json() == zoo_with("winter", (TRI, PYRAMID, "B1"), (STEG, RIVER)).to_json()
    assert twin.size() == 5


@pytest.mark.parametrize("side", ["summer", "winter"])
def test_the_encoding_lists_pens_in_board_order_and_decodes_to_the_same_zoo(side):
    pen = "woody_trio" if side == "summer" else "well_ordered_wood"
    zoo = zoo_with(side, (TRI, pen), (STEG, pen), (T_REX, RIVER))
    if side == "winter":
        zoo.place(SPINO, PYRAMID, "B3")
    data = zoo.to_json()
    assert list(data["pens"]) == [p for p in ("forest_of_sameness", "meadow_of_differences", "prairie_of_love",
                                              "woody_trio", "king_of_the_jungle", "solitary_island",
                                              "well_ordered_wood", "lovers_bridge_left", "lovers_bridge_right",
                                              PYRAMID, "lookout", "quarantine_zone") if p in data["pens"]]
    assert data["pens"][pen] == [TRI, STEG] and data["river"] == [T_REX]
    again = Zoo.from_json(side, data)
    assert again.to_json() == data and again.count(SPINO) == (1 if side == "winter" else 0)
    data["pens"][pen].append("junk")
    assert zoo.pens[pen] == [TRI, STEG]


def test_from_json_without_a_river_means_an_empty_one():
    assert Zoo.from_json("summer", {"pens": {"woody_trio": [TRI]}}).river == []


def test_canonical_hands_follow_the_species_order():
    assert canonical_hand([STEG, T_REX, TRI, T_REX]) == [T_REX, T_REX, TRI, STEG]
    assert canonical_hand(reversed(SPECIES)) == list(SPECIES)
