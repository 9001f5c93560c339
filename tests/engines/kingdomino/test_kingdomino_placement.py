"""KD-4 connection rules with section 4's legality examples, KD-5.1 orientations, ED-9 canonical order."""

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from kingdomino_helpers import (
    EAST,
    NORTH,
    SOUTH,
    WALLED_IN,
    WEST,
    WORKED_EXAMPLE,
    build_kingdom,
    is_legal,
    new,
    play_until,
)

from engines import IllegalAction
from engines.kingdomino.dominoes import CASTLE, DOMINOES, EMPTY
from engines.kingdomino.state import PICK, PLACE

STEP = {EAST: (0, 1), SOUTH: (1, 0), WEST: (0, -1), NORTH: (-1, 0)}


def brute_force_legal(kingdom, n):
    """KD-4.2 to KD-4.4 read literally, over every triple of the frame."""
    size, k = kingdom.frame.size, kingdom.frame.k
    ta, _, tb, _ = DOMINOES[n]

    def at(r, c):
        return kingdom.terrain[r * size + c] if 0 <= r < size and 0 <= c < size else None

    occupied = [(r, c) for r in range(size) for c in range(size) if at(r, c) != EMPTY]
    legal = []
    for r in range(size):
        for c in range(size):
            for o, (dr, dc) in STEP.items():
                r2, c2 = r + dr, c + dc
                if at(r, c) != EMPTY or at(r2, c2) != EMPTY:
                    continue
                cells = occupied + [(r, c), (r2, c2)]
                rows, cols = [x for x, _ in cells], [y for _, y in cells]
                if max(rows) - min(rows) > k - 1 or max(cols) - min(cols) > k - 1:
                    continue
                touches = any(at(r + er, c + ec) in (ta, CASTLE) for er, ec in STEP.values()) or any(
                    at(r2 + er, c2 + ec) in (tb, CASTLE) for er, ec in STEP.values())
                if touches:
                    legal.append((r, c, o))
    return legal


def test_kd_4_1_square_a_on_r_c_and_square_b_in_direction_o():
    for o, (dr, dc) in STEP.items():
        kingdom = build_kingdom([(40, 4, 5, o)] if o != WEST else [(40, 4, 3, o)])
        grid = kingdom.grid()
        r, c = (4, 5) if o != WEST else (4, 3)
        assert grid[r][c] == "M1" and grid[r + dr][c + dc] == "W0"
    assert build_kingdom([(46, 4, 5, EAST)]).grid()[4][4:7] == ["C", "S0", "M2"]


def test_kd_4_2_no_overlap_and_inside_the_frame():
    kingdom = build_kingdom([(46, 4, 5, EAST)])
    assert not is_legal(kingdom, 21, 4, 6, NORTH), "onto the mine"
    assert not is_legal(kingdom, 10, 4, 3, EAST), "onto the castle"
    assert all(0 <= kingdom.frame.triple(key)[0] < 9 for key in kingdom.legal_keys(10))
    state = new(2, 0)
    play_until(state, lambda s: s.phase == PLACE)
    for outside in ([9, 4, 0], [4, -1, 0], [4, 5, 4]):
        with pytest.raises(IllegalAction):
            state.apply({"place": outside})


def test_kd_4_3_the_kingdom_must_fit_in_k_by_k_section_4_examples():
    kingdom = build_kingdom([(46, 4, 5, EAST)])
    assert is_legal(kingdom, 40, 4, 7, EAST), "the mine touches the mine; columns 4-8"
    kingdom = build_kingdom([(46, 4, 5, EAST), (40, 4, 7, EAST)])
    assert not is_legal(kingdom, 10, 4, 3, WEST), "7 wide"
    assert not is_legal(kingdom, 10, 4, 3, NORTH), "6 wide"
    assert is_legal(kingdom, 10, 3, 4, NORTH)


def test_kd_4_4_connection_by_castle_or_same_terrain_section_4_examples():
    assert is_legal(build_kingdom([]), 46, 4, 5, EAST), "the swamp touches the castle"
    kingdom = build_kingdom([(46, 4, 5, EAST)])
    assert not is_legal(kingdom, 7, 3, 6, NORTH), "lakes touching only the mine"
    assert not is_legal(kingdom, 7, 2, 2, EAST), "a double lake next to nothing"
    assert not is_legal(kingdom, 7, 3, 3, NORTH), "only diagonal to the castle"
    assert is_legal(kingdom, 40, 3, 6, NORTH), "mine on (3,6) touches the mine at (4,6)"
    assert not is_legal(kingdom, 19, 3, 6, NORTH), "crowned wheat on (3,6) still touches only the mine"


def test_kd_4_4_incremental_generation_matches_the_rules_read_literally():
    for seed in range(12):
        state = new(2, seed, mighty_duel=seed % 3 == 0)
        chooser = random.Random(seed)
        while not state.is_terminal():
            if state.phase == PLACE:
                slot = state.current_line[state.position]
                kingdom = state.kingdoms[slot.king[0]]
                expected = brute_force_legal(kingdom, slot.domino)
                listed = [tuple(a["place"]) for a in state.legal_actions() if "place" in a]
                assert listed == expected
            state.apply(chooser.choice(state.legal_actions()))


def test_kd_4_5_discard_only_when_nothing_fits_and_the_king_still_picks():
    state = new(2, 3)
    play_until(state, lambda s: s.phase == PLACE)
    with pytest.raises(IllegalAction):
        state.apply({"discard": True})
    seat = state.current_player()
    state.kingdoms[seat] = build_kingdom(WALLED_IN)
    state.current_line[0].domino = 12
    state.reset_legal_cache()
    with pytest.raises(IllegalAction):
        state.apply({"place": [2, 2, 0]})
    before = state.kingdoms[seat].grid()
    state.apply({"discard": True})
    assert state.kingdoms[seat].grid() == before, "a discard scores and places nothing"
    assert state.phase == PICK and state.current_player() == seat


def test_kd_4_6_placed_dominoes_never_move():
    state = new(4, 17)
    chooser = random.Random(17)
    while not state.is_terminal():
        state.apply(chooser.choice(state.legal_actions()))
        for kingdom in state.view()["kingdoms"]:
            for n, r, c, o in kingdom["placed"]:
                dr, dc = STEP[o]
                _, ca, _, cb = DOMINOES[n]
                assert kingdom["grid"][r][c][1:] == str(ca)
                assert kingdom["grid"][r + dr][c + dc][1:] == str(cb)


def test_kd_4_7_a_domino_that_no_longer_fits_is_discarded():
    full = build_kingdom(WORKED_EXAMPLE)
    assert all(full.legal_keys(n) == [] for n in range(1, 49) if n not in {p[0] for p in WORKED_EXAMPLE})


def test_kd_5_1_both_spellings_of_a_symmetric_domino_are_legal_and_equal():
    kingdom = build_kingdom([])
    assert is_legal(kingdom, 1, 4, 5, EAST) and is_legal(kingdom, 1, 4, 6, WEST)
    assert build_kingdom([(1, 4, 5, EAST)]).grid() == build_kingdom([(1, 4, 6, WEST)]).grid()
    assert is_legal(kingdom, 1, 5, 4, SOUTH) and is_legal(kingdom, 1, 6, 4, NORTH)
    assert build_kingdom([(1, 5, 4, SOUTH)]).grid() == build_kingdom([(1, 6, 4, NORTH)]).grid()


def test_ed_9_canonical_order_of_legal_actions():
    for seed in range(6):
        state = new(3, seed)
        chooser = random.Random(seed)
        while not state.is_terminal():
            legal = state.legal_actions()
            if state.phase == PLACE and "place" in legal[0]:
                triples = [tuple(a["place"]) for a in legal]
                assert triples == sorted(set(triples))
            elif state.phase == PLACE:
                assert legal == [{"discard": True}]
            else:
                picks = [a["pick"] for a in legal]
                assert picks == sorted(set(picks))
            state.apply(chooser.choice(legal))


@settings(max_examples=40, deadline=None)
@given(seed=st.integers(0, 2**31 - 1), depth=st.integers(0, 60))
def test_ed_9_every_listed_action_is_accepted_and_nothing_else(seed, depth):
    state = new(2, seed)
    chooser = random.Random(seed)
    for _ in range(depth):
        if state.is_terminal():
            return
        state.apply(chooser.choice(state.legal_actions()))
    if state.is_terminal():
        return
    legal = state.legal_actions()
    for action in legal:
        twin = state.clone()
        twin.apply(action)
    if state.phase == PLACE:
        listed = {tuple(a["place"]) for a in legal if "place" in a}
        for r in range(9):
            for c in range(9):
                for o in range(4):
                    if (r, c, o) not in listed:
                        with pytest.raises(IllegalAction):
                            state.clone().apply({"place": [r, c, o]})
