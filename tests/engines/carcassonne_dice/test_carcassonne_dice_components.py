"""CD-1 components, CD-2 setup, ED-1 face drawings, ED-8 start player, ED-11 chance (checklist item 9)."""

import pytest
from carcassonne_dice_helpers import game, new, plane_of, random_game
from streams_by_hand import stream_rng

import engines
from engines.carcassonne_dice.faces import CITY_FACES, FACE_ID, FACE_TABLE, POINTS, ROTATED, rotated
from engines.carcassonne_dice.state import DICE


def test_cd_1_1_nine_identical_dice_with_four_city_faces_a_knight_and_a_catapult():
    assert DICE == 9
    assert [face.name for face in FACE_TABLE] == ["CAP", "CORNER", "BAND", "TRIPLE", "KNIGHT", "CATAPULT"]
    assert [face.id for face in FACE_TABLE] == [1, 2, 3, 4, 5, 6]
    assert len(CITY_FACES) == 4
    assert len(new().pool) + len(new().catapulted) == 9


def test_cd_1_1_every_face_is_equally_likely():
    counts = {face.name: 0 for face in FACE_TABLE}
    chance = engines.Chance(99)
    for _ in range(60_000):
        counts[FACE_TABLE[chance.die(6) - 1].name] += 1
    assert all(9_400 < count < 10_600 for count in counts.values()), counts


def test_cd_1_2_the_engine_keeps_one_running_total_per_seat():
    state = new(3)
    assert state.scores() == [0, 0, 0]
    assert state.view()["scores"] == [0, 0, 0]


def test_cd_1_3_face_table_edge_codes():
    assert {face.name: face.edges for face in FACE_TABLE} == {
        "CAP": "CFFF", "CORNER": "CCFF", "BAND": "CFCF", "TRIPLE": "CCCF", "KNIGHT": None, "CATAPULT": None,
    }


def test_cd_1_3_ed_1_the_four_city_faces_have_four_different_shapes():
    shapes = {frozenset(ROTATED[face]) for face in CITY_FACES}
    assert len(shapes) == 4
    # Every city face has at least one city and one field edge, except none: TRIPLE keeps one field.
    assert all("C" in code and "F" in code for face in CITY_FACES for code in ROTATED[face])


def test_ed_1_all_city_edges_of_one_face_belong_to_one_city():
    for name, open_edges in (("CAP", 1), ("CORNER", 2), ("BAND", 2), ("TRIPLE", 3)):
        cities = plane_of((name, 0, 0, 0)).cities()
        assert [(city.size, city.open_edges, city.closed) for city in cities] == [(1, open_edges, False)]


def test_cd_1_4_two_to_five_players_and_nothing_else_depends_on_the_count():
    assert (game().min_players, game().max_players) == (2, 5)
    for players in range(2, 6):
        state = new(players)
        assert len(state.pool) + len(state.catapulted) == 9
    for players in (1, 6):
        with pytest.raises(ValueError, match="2 to 5"):
            new(players)


def test_cd_2_1_every_seat_starts_with_zero_points_and_no_reserved_knight():
    view = new(5).view()
    assert view["scores"] == [0] * 5
    assert view["reserved_knight"] == [False] * 5


def test_cd_2_2_ed_8_seat_0_starts_with_all_nine_dice():
    view = new(4, seed=7).view()
    assert view["to_act"] == 0 and view["turn_index"] == 0 and view["round"] == 1
    assert view["history"][0] == {"seat": 0, "event": "turn_start", "dice": 9, "doubled": False}


def turn_table(seed: int, turn: int, players: int) -> list[str]:
    """ED-11 by hand: turn t is seat t mod N's turn of round t // N, whose stream ("dice", round) holds 27
    faces per seat, 3 rolls of 9 dice: die d of roll k of the seat's turn at 27 * seat + 9 * (k - 1) + d."""
    rng = stream_rng(seed, "dice", turn // players)
    table = [FACE_TABLE[int(rng.random() * 6)].name for _ in range(27 * players)]
    seat = turn % players
    return table[27 * seat:27 * seat + 27]


def test_ed_11_first_roll_matches_a_hand_computation_from_its_stream():
    expected = turn_table(12345, 0, 2)[:9]
    roll = new(2, seed=12345).view()["history"][1]
    assert roll["event"] == "roll" and roll["faces"] == expected


def test_ed_11_a_roll_action_shows_each_pool_die_its_own_face_of_that_roll():
    state = new(2, seed=2024)
    table = turn_table(2024, 0, 2)
    collected = state.pool[0][0] if state.pool[0][1] == FACE_ID["KNIGHT"] else None
    if collected is not None:
        state.apply({"collect": "KNIGHT"})
    pool_before = [die for die, _ in state.pool]
    assert pool_before and collected not in pool_before
    state.apply({"roll": True})
    roll = [e for e in state.view()["history"] if e.get("event") == "roll"][-1]
    assert roll["roll"] == 2 and roll["faces"] == [table[9 + die] for die in pool_before]


def test_ed_11_later_turns_roll_from_their_own_streams():
    state = new(3, seed=99)
    while state.turn_index < 4:
        state.apply(state.legal_actions()[-1])  # stop at once: every turn is one roll
    first_rolls = [entry["faces"] for entry in state.view()["history"] if entry.get("event") == "roll"]
    assert first_rolls[-1] == turn_table(99, 4, 3)[:9]  # seat 1 in round 1
    assert first_rolls[0] == turn_table(99, 3, 3)[:9]


def test_checklist_9_same_seed_and_actions_give_the_same_view_sequence():
    _, actions = random_game(3, 11)
    first = engines.replay("carcassonne_dice", 3, 11, None, actions)
    again = engines.replay("carcassonne_dice", 3, 11, None, actions)
    assert first == again
    assert first[0] != engines.replay("carcassonne_dice", 3, 12, None, [])[0]


def test_cd_7_2_points_table_formula():
    assert POINTS == (0, 0, 0, 1, 3, 6, 10, 15, 21, 28)
    assert rotated("CCFF", 1) == "FCCF"
