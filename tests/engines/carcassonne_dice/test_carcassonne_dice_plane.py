"""``engines.carcassonne_dice.plane``: a plane's dice, its frontier, its build actions and its cities.

Built by hand with :class:`Plane.place` (legality is the state's job), so each contract is seen alone:
the frontier after each placement, ``fits``, the cached build actions and their reset, ``copy``'s
independence, and cities with their closedness.
"""

from __future__ import annotations

from engines.carcassonne_dice.faces import EDGE_CODE, FACE_BY_ID, FACE_ID, FITS, POW3, S, rotated
from engines.carcassonne_dice.plane import BuiltDie, City, Plane


def built(name: str, r: int, die: int) -> BuiltDie:
    face = FACE_ID[name]
    return BuiltDie(die, face, r, rotated(FACE_BY_ID[face].edges, r))


def plane_with(*dice: tuple[str, int, int, int]) -> Plane:
    """A plane with ``(face name, x, y, r)`` placed in order, dice numbered from 0."""
    plane = Plane(0)
    for die, (name, x, y, r) in enumerate(dice):
        plane.place(x, y, built(name, r, die))
    return plane


def test_a_new_plane_is_empty():
    plane = Plane(3)
    assert plane.index == 3 and plane.cells == {} and plane.frontier == {} and plane.cities() == ()
    assert plane.build_actions(FACE_ID["CAP"]) == []
    assert not plane.fits(0, 0, FACE_ID["CAP"], 0)


def test_placing_a_die_opens_its_four_neighbours_with_what_it_shows_them():
    plane = plane_with(("CAP", 0, 0, 0))
    assert set(plane.frontier) == {(0, 1), (1, 0), (0, -1), (-1, 0)}
    assert plane.frontier[(0, 1)] == EDGE_CODE["C"] * POW3[S]  # the city edge faces North
    assert plane.frontier[(0, -1)] == EDGE_CODE["F"] * POW3[0]


def test_a_cell_with_two_neighbours_adds_both_constraints_and_built_cells_leave_the_frontier():
    plane = plane_with(("CAP", 0, 0, 0), ("CAP", 1, 1, 0))
    assert (0, 0) not in plane.frontier and (1, 1) not in plane.frontier
    # (1, 0) is South of (1, 1) (sees its South field edge to its North) and East of (0, 0).
    assert plane.frontier[(1, 0)] == EDGE_CODE["F"] * POW3[0] + EDGE_CODE["F"] * POW3[3]
    assert len(plane.frontier) == 6


def test_fits_follows_the_frontier_tables():
    plane = plane_with(("CAP", 0, 0, 0))
    cap = FACE_ID["CAP"]
    assert plane.fits(0, 1, cap, 2)  # a cap pointing South meets the city edge
    assert not plane.fits(0, 1, cap, 0)
    assert not plane.fits(0, 0, cap, 0) and not plane.fits(5, 5, cap, 0)
    assert [r for r in range(4) if plane.fits(0, 1, cap, r)] == list(FITS[plane.frontier[(0, 1)]][cap])


def test_build_actions_are_sorted_cached_and_dropped_when_the_plane_changes():
    plane = plane_with(("CAP", 0, 0, 0))
    band = FACE_ID["BAND"]
    actions = plane.build_actions(band)
    assert actions == sorted(actions, key=lambda action: action["build"][2:])
    assert all(action["build"][:2] == ["BAND", 0] for action in actions)
    assert {"build": ["BAND", 0, 0, 1, 0]} in actions and {"build": ["BAND", 0, 0, 1, 1]} not in actions
    assert plane.build_actions(band) is actions
    plane.place(0, 1, built("BAND", 0, 1))
    assert plane.build_actions(band) is not actions
    assert all(action["build"][2:4] != [0, 1] for action in plane.build_actions(band))


def test_a_copy_is_independent():
    plane = plane_with(("CAP", 0, 0, 0))
    twin = plane.copy()
    twin.place(0, 1, built("CAP", 2, 1))
    assert len(plane.cells) == 1 and (0, 1) in plane.frontier
    assert len(twin.cells) == 2 and twin.index == plane.index
    assert plane.cities() == (City((0,), 1, False, 1),)


def test_two_facing_caps_close_a_city_of_two():
    plane = plane_with(("CAP", 0, 0, 0), ("CAP", 0, 1, 2))
    assert plane.cities() == (City((0, 1), 2, True, 0),)


def test_cities_join_only_through_city_edges_and_are_ordered_by_lowest_die():
    # A band N-S at (0, 0) and a cap at (1, 0) pointing East: they touch along fields only.
    plane = plane_with(("CAP", 1, 0, 1), ("BAND", 0, 0, 0))
    assert plane.cities() == (City((0,), 1, False, 1), City((1,), 1, False, 2))


def test_a_ring_of_four_corners_is_one_closed_city():
    plane = plane_with(("CORNER", 0, 0, 0), ("CORNER", 1, 0, 3), ("CORNER", 0, 1, 1), ("CORNER", 1, 1, 2))
    assert plane.cities() == (City((0, 1, 2, 3), 4, True, 0),)
    assert plane.cities() is plane.cities()
