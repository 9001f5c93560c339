"""Components, setup, chance and options: DS-1, DS-2, ED-1, ED-3, ED-17, ED-18, ED-19."""

from __future__ import annotations

from collections import Counter

import pytest
from draftosaurus_helpers import GAME, SUMMER, SUMMER_WINTER, WINTER, new, random_playout
from streams_by_hand import stream_rng

from engines.draftosaurus.board import BOARD_ORDER, FACES, SPECIES

CANONICAL_SPECIES = ["t_rex", "triceratops", "stegosaurus", "spinosaurus", "parasaurolophus", "brachiosaurus"]
CANONICAL_FACES = ["woodlands", "grasslands", "restrooms", "food_court", "empty_pen", "no_t_rex"]


def expected_chance(players: int, seed: int, games: int = 1):
    """The deals and dice ED-1 prescribes, computed here independently of the engine: game ``g``'s bag is
    shuffled by stream ``("bag", g)`` and its dice are the numbers of stream ``("die", g)``, one per turn."""
    per_species = {2: 8, 3: 6, 4: 8, 5: 10}[players]
    result = []
    for game in range(games):
        rng = stream_rng(seed, "bag", game)
        bag = [species for species in CANONICAL_SPECIES for _ in range(per_species)]
        for i in range(len(bag) - 1, 0, -1):
            j = int(rng.random() * (i + 1))
            bag[i], bag[j] = bag[j], bag[i]
        rng = stream_rng(seed, "die", game)
        dice = [CANONICAL_FACES[int(rng.random() * 6)] for _ in range(12)]
        result.append((bag, dice))
    return result


def test_ds_1_1_every_zoo_uses_the_same_side():
    for options, side in ((SUMMER, "summer"), (WINTER, "winter")):
        view = new(4, options).view()
        assert view["board"] == side
        assert {tuple(zoo["pens"]) for zoo in view["zoos"]} == {BOARD_ORDER[side][:-1]}


def test_ds_1_2_six_species_of_ten_in_canonical_order():
    assert list(SPECIES) == CANONICAL_SPECIES
    view = new(5).view()
    in_play = view["bag_order"] + [dino for hand in view["hands"] for dino in hand]
    assert Counter(in_play) == {species: 10 for species in CANONICAL_SPECIES}


def test_ds_1_3_die_has_six_faces_each_rolled():
    assert list(FACES) == CANONICAL_FACES
    faces = Counter(new(3, seed=seed).die for seed in range(300))
    assert set(faces) == set(CANONICAL_FACES)
    assert min(faces.values()) > 25  # about 50 each: no face is starved


def test_ds_1_4_the_bag_is_drawn_from_in_order():
    state = new(3, seed=4)
    bag_before_round_2 = list(state.bag)
    random_playout(state, upto=18)  # the 6 turns of round 1, 3 seats each
    assert state.round == 2
    assert state.view()["hands"] == [sorted(bag_before_round_2[6 * s:6 * s + 6], key=SPECIES.index)
                                     for s in range(3)]
    assert state.view()["bag_order"] == bag_before_round_2[18:]


@pytest.mark.parametrize(("players", "bag", "rounds", "turns"), [(5, 60, 2, 6), (4, 48, 2, 6), (3, 36, 2, 6),
                                                                 (2, 48, 4, 3)])
def test_ds_2_1_bag_size_and_game_length(players, bag, rounds, turns):
    state = new(players, seed=1)
    view = state.view()
    per_species = bag // 6
    assert view["bag"] == {"initial": {s: per_species for s in CANONICAL_SPECIES}, "remaining": bag - 6 * players}
    assert (view["rounds_total"], view["turns_per_round"]) == (rounds, turns)
    assert view["hand_sizes"] == [6] * players
    random_playout(state, seed=2)
    end = state.view()
    assert [len(zoo["river"]) + sum(len(p) if isinstance(p, list) else sum(1 for d in p.values() if d)
                                    for p in zoo["pens"].values()) for zoo in end["zoos"]] == [12] * players
    assert end["bag"]["remaining"] == 0 and end["bag_order"] == []
    assert len(end["discards"]) == (24 if players == 2 else 0)


def test_ds_2_2_board_option_defaults_to_summer():
    assert GAME.default_options() == {"board": "summer", "mode": "single"}
    assert GAME.new_state(3, 0).board == "summer"
    assert GAME.new_state(3, 0, {"board": "winter"}).board == "winter"


def test_ds_2_3_seat_0_rolls_first():
    for players in range(2, 6):
        assert new(players, seed=9).roller == 0


def test_ed_1_shuffle_draws_and_dice_follow_the_fixed_formula():
    for players in (2, 4, 5):
        (bag, dice), = expected_chance(players, seed=17)
        state = new(players, seed=17)
        assert state.view()["hands"] == [sorted(bag[6 * s:6 * s + 6], key=SPECIES.index) for s in range(players)]
        assert state.view()["bag_order"] == bag[6 * players:]
        rolled = [state.die]
        while len(rolled) < 12:
            turn = (state.round, state.turn)
            state.apply(state.legal_actions()[-1])
            if (state.round, state.turn) != turn and not state.is_terminal():
                rolled.append(state.die)
        assert rolled == dice
        assert [entry["die"] for entry in state.history[:11]] == dice[:11]


def test_ed_1_summer_winter_game_2_is_dealt_from_its_own_streams():
    (_, dice_1), (bag_2, _) = expected_chance(4, seed=5, games=2)
    state = new(4, SUMMER_WINTER, seed=5)
    game_1_dice = []
    while state.game_index == 0:
        game_1_dice = [entry["die"] for entry in state.history] + [state.die]
        state.apply(state.legal_actions()[0])
    assert game_1_dice == dice_1
    assert state.view()["history"] == []
    assert state.view()["hands"] == [sorted(bag_2[6 * s:6 * s + 6], key=SPECIES.index) for s in range(4)]


def test_ed_1_same_seed_same_game_and_chance_ignores_decisions():
    a, b = new(4, seed=3), new(4, seed=3)
    assert a.view() == b.view()
    random_playout(a, seed=1)
    random_playout(b, seed=2)
    assert [e["die"] for e in a.history] == [e["die"] for e in b.history]


def test_ed_3_summer_winter_game_2_starts_again_with_seat_0():
    state = new(3, SUMMER_WINTER, seed=2)
    while state.game_index == 0:
        state.apply(state.legal_actions()[0])
    assert (state.board, state.round, state.turn, state.roller) == ("winter", 1, 1, 0)


def test_ed_17_species_ids_are_the_canonical_labels():
    hands = new(5, seed=0).view()["hands"]
    assert {dino for hand in hands for dino in hand} <= set(CANONICAL_SPECIES)
    assert "diplodocus" not in SPECIES


def test_ed_18_the_solitary_pen_is_solitary_island():
    pens = new(2).view()["zoos"][0]["pens"]
    assert "solitary_island" in pens and "lonely_island" not in pens


def test_ed_19_options_are_checked_and_completed():
    assert GAME.option_choices() == {"board": ["summer", "winter"], "mode": ["single", "summer_winter"]}
    assert GAME.new_state(2, 0, {"mode": "summer_winter"}).options == {"board": "summer", "mode": "summer_winter"}
    # In summer_winter the board is checked but ignored: game 1 is always summer.
    assert GAME.new_state(2, 0, {"board": "winter", "mode": "summer_winter"}).board == "summer"
    for bad in ({"board": "autumn"}, {"mode": "double"}, {"board": 1}, {"marina": True}):
        with pytest.raises(ValueError, match=r"board|mode|marina"):
            GAME.new_state(3, 0, bad)
    for players in (1, 6):
        with pytest.raises(ValueError, match="2 to 5"):
            GAME.new_state(players, 0)


def test_ed_19_variants_cover_both_boards_and_the_mode_for_every_count():
    variants = GAME.variants()
    for players in range(2, 6):
        assert (players, SUMMER) in variants
        assert (players, WINTER) in variants
        assert (players, SUMMER_WINTER) in variants
    assert len(variants) == 12
