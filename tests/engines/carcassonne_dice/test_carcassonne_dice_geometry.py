"""CD-6 building cities: planes, rotation, legal placement, cities and closedness; ED-2, ED-3, ED-4.

Checklist items 4 (each face at each rotation against each neighbour edge kind, a new plane, a field-only
contact) and 5 (examples A and B closed, C open, a 1-die city never closed, a closed 2-dice city scores 0),
and the worked examples A, B and C of section 11.
"""

import itertools

import pytest
from carcassonne_dice_helpers import builds, plane_of, turn_with, with_planes

from engines import IllegalAction
from engines.carcassonne_dice.faces import CITY_FACES, FACE_NAME, ROTATED, STEPS, rotated

EXAMPLE_A = [("CAP", 0, 0, 0), ("BAND", 0, 1, 0), ("CAP", 0, 2, 2)]
EXAMPLE_B = [("CORNER", 0, 0, 0), ("CORNER", 1, 0, 3), ("CORNER", 0, 1, 1), ("CORNER", 1, 1, 2)]
EXAMPLE_C_BIG = [("TRIPLE", 0, 0, 0), ("BAND", 0, 1, 0), ("BAND", 0, -1, 0), ("BAND", 1, 0, 1)]
EXAMPLE_C_PAIR = [("CAP", -1, 0, 0), ("CAP", -1, 1, 2)]


def summary(plane):
    return [(city.size, city.closed, city.open_edges) for city in plane.cities()]


def test_cd_6_1_the_first_die_of_a_plane_is_at_the_origin_and_planes_are_numbered_in_order():
    state = turn_with(["CORNER", "TRIPLE"] + ["KNIGHT"] * 7)
    state.apply({"build": ["TRIPLE", "new"]})
    state.apply({"build": ["CORNER", "new"]})
    planes = state.view()["turn"]["planes"]
    assert [(p["plane"], p["dice"][0]["face"], p["dice"][0]["x"], p["dice"][0]["y"], p["dice"][0]["r"])
            for p in planes] == [(0, "TRIPLE", 0, 0, 0), (1, "CORNER", 0, 0, 0)]


def test_cd_6_1_planes_are_cleared_at_the_end_of_the_turn():
    state = turn_with(["CAP"] * 9 + ["BAND"] * 9)
    state.apply({"build": ["CAP", "new"]})
    state.apply({"stop": True})
    assert state.current_player() == 1 and state.view()["turn"]["planes"] == []


def test_cd_6_2_rotation_turns_the_edges_clockwise():
    assert [rotated("CCFF", r) for r in range(4)] == ["CCFF", "FCCF", "FFCC", "CFFC"]
    assert [rotated("CFFF", r) for r in range(4)] == ["CFFF", "FCFF", "FFCF", "FFFC"]
    assert rotated("CCCF", 3) == "CCFC"
    assert rotated("CFCF", 2) == "CFCF"


def neighbour_plane(d: int, kind: str):
    """A plane whose single CAP at (0, 0) shows ``kind`` towards the cell on its side opposite d."""
    # The new cell lies at -STEPS[d]: its neighbour (the CAP) is in direction d, facing back with (d+2)%4.
    facing = (d + 2) % 4
    r = facing if kind == "C" else d
    plane = plane_of(("CAP", 0, 0, r))
    assert ROTATED[1][r][facing] == kind
    return plane


@pytest.mark.parametrize(("face", "r", "d", "kind"),
                         list(itertools.product(CITY_FACES, range(4), range(4), "CF")))
def test_cd_6_3_b_each_face_at_each_rotation_against_each_neighbour_edge_kind(face, r, d, kind):
    name = FACE_NAME[face]
    state = with_planes(turn_with([name] + ["KNIGHT"] * 8), neighbour_plane(d, kind))
    x, y = -STEPS[d][0], -STEPS[d][1]
    canonical = min(q for q in range(4) if ROTATED[face][q] == ROTATED[face][r])
    should_fit = ROTATED[face][r][d] == kind
    assert ([name, 0, x, y, canonical] in builds(state)) == should_fit
    if canonical != r:
        # ED-3/12.2: the duplicate BAND rotation is never listed and is refused.
        assert [name, 0, x, y, r] not in builds(state)
        with pytest.raises(IllegalAction):
            state.apply({"build": [name, 0, x, y, r]})


def test_cd_6_3_b_every_touching_neighbour_must_match():
    plane = plane_of(*EXAMPLE_B[:3])
    state = with_planes(turn_with(["CORNER", "TRIPLE"] + ["KNIGHT"] * 7), plane)
    into_gap = [b for b in builds(state) if b[2:4] == [1, 1]]
    # (1,1) touches the N city edge of (1,0) and the E city edge of (0,1): only CORNER r=2 or TRIPLE
    # r=1 or r=2 with S and W city fit.
    assert into_gap == [["CORNER", 0, 1, 1, 2], ["TRIPLE", 0, 1, 1, 1], ["TRIPLE", 0, 1, 1, 2]]


def test_cd_6_3_b_cells_must_be_empty_and_next_to_the_plane():
    state = with_planes(turn_with(["CAP"] * 9), plane_of(("CAP", 0, 0, 0)))
    for bad in (["CAP", 0, 0, 0, 2], ["CAP", 0, 0, 2, 2], ["CAP", 1, 0, 1, 2], ["CAP", 0, 1, 1, 0]):
        with pytest.raises(IllegalAction):
            state.apply({"build": bad})
    state.apply({"build": ["CAP", 0, 0, 1, 2]})


def test_cd_6_3_a_a_new_plane_is_always_open_to_a_city_face():
    state = turn_with(["BAND", "KNIGHT"] + ["CAP"] * 7)
    assert ["BAND", "new"] in builds(state) and ["CAP", "new"] in builds(state)
    assert ["KNIGHT", "new"] not in builds(state)
    with pytest.raises(IllegalAction):
        state.apply({"build": ["KNIGHT", "new"]})
    with pytest.raises(IllegalAction):
        state.apply({"build": ["CORNER", "new"]})


def test_cd_6_3_b_touching_along_field_edges_only_is_allowed():
    plane = plane_of(*EXAMPLE_C_BIG)
    state = with_planes(turn_with(["CAP"] * 9), plane)
    assert ["CAP", 0, -1, 0, 0] in builds(state)
    state.apply({"build": ["CAP", 0, -1, 0, 0]})
    sizes = sorted(city.size for city in state.planes[0].cities())
    assert sizes == [1, 4]


def test_cd_6_4_a_city_is_joined_only_through_city_edges():
    two_cities = plane_of(("CAP", 0, 0, 0), ("CAP", 1, 0, 0))
    assert summary(two_cities) == [(1, False, 1), (1, False, 1)]
    joined = plane_of(("CORNER", 0, 0, 0), ("CAP", 1, 0, 3))
    assert summary(joined) == [(2, False, 1)]


def test_cd_6_5_a_single_die_is_never_closed_and_two_facing_caps_are():
    for face in CITY_FACES:
        for r in range(4):
            assert plane_of((FACE_NAME[face], 0, 0, r)).cities()[0].closed is False
    assert summary(plane_of(("CAP", 0, 0, 0), ("CAP", 0, 1, 2))) == [(2, True, 0)]


def test_example_a_the_smallest_scoring_city():
    state = with_planes(turn_with(["KNIGHT"] * 9), plane_of(*EXAMPLE_A))
    assert summary(state.planes[0]) == [(3, True, 0)]
    assert state.score_if_stop() == 1
    state.doubled = True
    assert state.score_if_stop() == 2


def test_example_b_a_ring_of_four_corners():
    state = with_planes(turn_with(["KNIGHT"] * 9), plane_of(*EXAMPLE_B))
    assert summary(state.planes[0]) == [(4, True, 0)]
    assert state.score_if_stop() == 3
    state.doubled = True
    assert state.score_if_stop() == 6


def test_example_c_the_seeds_turn_2a_to_2c():
    faces = (["TRIPLE", "BAND", "BAND", "BAND", "KNIGHT", "CAP", "CORNER", "CAP", "KNIGHT"]
             + ["CATAPULT", "CORNER", "CATAPULT", "KNIGHT"] + ["CAP", "CAP"] + ["BAND"] * 9)
    state = turn_with(faces, players=2)
    for build in (["TRIPLE", "new"], ["BAND", 0, 0, 1, 0], ["BAND", 0, 0, -1, 0], ["BAND", 0, 1, 0, 1]):
        state.apply({"build": build})
    state.apply({"collect": "KNIGHT"})
    cities = state.view()["turn"]["cities"]
    assert cities == [{"plane": 0, "dice": [0, 1, 2, 3], "size": 4, "closed": False, "open_edges": 3}]
    state.apply({"roll": True})
    assert state.view()["turn"]["catapults"] == 2 and len(state.pool) == 2
    state.apply({"roll": True})
    assert [p["face"] for p in state.view()["turn"]["pool"]] == ["CAP", "CAP"]
    state.apply({"build": ["CAP", 0, -1, 0, 0]})
    cities = state.view()["turn"]["cities"]
    assert [(c["size"], c["closed"]) for c in cities] == [(4, False), (1, False)]
    assert ["CAP", 0, -1, 1, 2] in builds(state)
    state.apply({"build": ["CAP", 0, -1, 1, 2]})
    # The pool is empty: the turn ended by itself, largest closed city 2 dice, 0 points.
    score = next(e for e in state.view()["history"] if e.get("event") == "score")
    assert (score["seat"], score["city_size"], score["points"]) == (0, 2, 0)
    six = plane_of(*EXAMPLE_C_BIG, *EXAMPLE_C_PAIR)
    assert summary(six) == [(4, False, 3), (2, True, 0)]
    separate = with_planes(turn_with(["KNIGHT"] * 9), plane_of(*EXAMPLE_C_BIG),
                           plane_of(("CAP", 0, 0, 0), ("CAP", 0, 1, 2)))
    assert separate.largest_closed_city() == 2 and separate.score_if_stop() == 0


def test_cd_6_6_a_closed_city_cannot_grow():
    state = with_planes(turn_with(["CAP", "CORNER", "BAND", "TRIPLE"] + ["KNIGHT"] * 5), plane_of(*EXAMPLE_B))
    into_plane = [b for b in builds(state) if b[1] == 0]
    assert into_plane, "the ring has field edges to build against"
    for build in into_plane:
        twin = state.clone()
        twin.apply({"build": build})
        assert max(city.size for city in twin.planes[0].cities()) == 4


def test_ed_2_any_number_of_separate_cities_in_one_turn():
    state = turn_with(["CAP"] * 9)
    for _ in range(5):
        state.apply({"build": ["CAP", "new"]})
    assert len(state.view()["turn"]["planes"]) == 5


def test_ed_3_separate_planes_never_interact():
    state = with_planes(turn_with(["CAP"] * 9), plane_of(("CAP", 0, 0, 0)), plane_of(("BAND", 0, 0, 1)))
    # Both planes have a die at their own (1,0)'s West; each cell is constrained by its own plane only:
    # plane 0's CAP shows field to the East, plane 1's BAND shows city.
    listed = builds(state)
    assert ["CAP", 0, 1, 0, 0] in listed and ["CAP", 0, 1, 0, 3] not in listed
    assert ["CAP", 1, 1, 0, 3] in listed and ["CAP", 1, 1, 0, 0] not in listed


def test_ed_3_at_most_147_builds_in_one_list():
    most = 0
    for pool in itertools.combinations(["CAP", "CORNER", "BAND", "TRIPLE"], 3):
        per_plane = max(
            len([b for b in builds(with_planes(turn_with(list(pool) + ["KNIGHT"] * 6),
                                               plane_of((single, 0, 0, 0)))) if b[1] == 0])
            for single in ("CAP", "CORNER", "BAND", "TRIPLE")
        )
        most = max(most, 6 * per_plane + len(pool))
    assert most == 147


def test_ed_4_coordinates_are_unbounded_and_relative_to_the_first_die():
    state = turn_with(["BAND"] * 9)
    state.apply({"build": ["BAND", "new"]})
    for y in range(1, 5):
        state.apply({"build": ["BAND", 0, 0, y, 0]})
    for y in range(-1, -4, -1):
        state.apply({"build": ["BAND", 0, 0, y, 0]})
    ys = sorted(d["y"] for d in state.view()["turn"]["planes"][0]["dice"])
    assert ys == list(range(-3, 5))
    assert ["BAND", 0, 0, 5, 0] in builds(state) and ["BAND", 0, 0, -4, 0] in builds(state)
