"""Turn structure: DS-3 (3-5 players), DS-4 (2 players), DS-10.3 and ED-2, ED-4, ED-5, ED-6, ED-13."""

from __future__ import annotations

from draftosaurus_helpers import (
    SUMMER,
    SUMMER_WINTER,
    WINTER,
    first_legal,
    new,
    play_step,
    position,
    random_playout,
    zoo,
)


def river_all(state, seat):
    """Every seat sends its first species to the River: a placement that is always legal."""
    return next(a for a in state.legal_actions() if a["to"] == "river")


def test_ds_3_1_each_seat_draws_a_hidden_hand_of_six():
    state = new(4, seed=8)
    view = state.view()
    assert [len(hand) for hand in view["hands"]] == [6] * 4
    for seat in range(4):
        observation = state.observation(seat)
        assert observation["hand"] == view["hands"][seat]
        assert "hands" not in observation
        assert observation["known_hands"] == []


def test_ds_3_2_hands_pass_to_the_left_and_the_die_moves_on():
    state = new(4, seed=3)
    before = state.view()["hands"]
    chosen = []
    for _ in range(4):
        action = river_all(state, state.current_player())
        chosen.append(action["dino"])
        state.apply(action)
    after = state.view()["hands"]
    for seat in range(4):
        remaining = list(before[seat])
        remaining.remove(chosen[seat])
        assert after[(seat + 1) % 4] == remaining  # seat i's hand now lies with seat i+1
    assert (state.turn, state.roller) == (2, 1)


def test_ds_3_2_choices_are_carried_out_only_when_all_have_chosen():
    state = new(3, seed=3)
    for seat in range(2):
        state.apply(river_all(state, seat))
        assert all(z.river == [] for z in state.zoos)
        assert state.turn == 1
    state.apply(river_all(state, 2))
    assert all(len(z.river) == 1 for z in state.zoos)


def test_ds_3_3_round_2_draws_new_hands_and_the_die_keeps_passing():
    state = new(4, seed=6)
    for _ in range(6):
        play_step(state, river_all)
    assert (state.round, state.turn) == (2, 1)
    assert state.view()["hand_sizes"] == [6, 6, 6, 6]
    assert state.roller == 6 % 4  # seat 2, not seat 0 again


def test_ds_3_4_game_ends_after_round_2_with_twelve_dinosaurs_each():
    state = new(5, seed=1)
    random_playout(state, seed=4)
    assert state.is_terminal() and state.round == 2 and state.turn == 6
    assert [z.size() for z in state.zoos] == [12] * 5


def test_ds_3_5_roller_schedule_over_the_whole_game():
    for players in (2, 3, 4, 5):
        state = new(players, seed=2)
        rollers = []
        while not state.is_terminal():
            if state.phase == "place" and state.current_player() == 0:
                rollers.append(state.roller)
            state.apply(state.legal_actions()[-1])
        assert rollers == [t % players for t in range(12)]
        counts = [rollers.count(seat) for seat in range(players)]
        assert counts == {2: [6, 6], 3: [4, 4, 4], 4: [3, 3, 3, 3], 5: [3, 3, 2, 2, 2]}[players]


def test_ds_4_1_two_players_play_four_rounds_from_a_bag_of_48():
    state = new(2, seed=0)
    assert state.setup.rounds == 4 and sum(state.bag_initial.values()) == 48


def test_ds_4_2_two_players_draw_six_each_round():
    state = new(2, seed=0)
    sizes = []
    while not state.is_terminal():
        if state.phase == "place" and state.turn == 1 and state.current_player() == 0:
            sizes.append(state.view()["hand_sizes"])
        state.apply(state.legal_actions()[0])
    assert sizes == [[6, 6]] * 4


def test_ds_4_3_two_players_alternate_rolling_across_rounds():
    state = new(2, seed=5)
    rollers = []
    while not state.is_terminal():
        if state.phase == "place" and state.current_player() == 0:
            rollers.append((state.round, state.turn, state.roller))
        state.apply(state.legal_actions()[0])
    assert [r for _, _, r in rollers] == [0, 1] * 6
    assert rollers[3] == (2, 1, 1)  # round 2 starts with seat 1: rounds do not reset the die


def test_ds_4_3_the_die_binds_only_the_seat_that_did_not_roll():
    state = position(2, zoos=[zoo("summer", forest_of_sameness=["t_rex"]), zoo("summer", forest_of_sameness=["t_rex"])],
                     hands=[["t_rex"] * 6, ["t_rex"] * 6], die="empty_pen", roller=0)
    assert "forest_of_sameness" in [a["to"] for a in state.legal_actions()]
    state.apply({"dino": "t_rex", "to": "forest_of_sameness"})
    assert "forest_of_sameness" not in [a["to"] for a in state.legal_actions()]


def test_ds_4_4_place_then_discard_then_swap():
    state = new(2, seed=7)
    hands = state.view()["hands"]
    play_step(state, river_all)
    assert state.phase == "discard"
    assert state.view()["hand_sizes"] == [5, 5]
    discarded = []
    for _ in range(2):
        action = state.legal_actions()[0]
        discarded.append(action["discard"])
        state.apply(action)
    kept = []
    for seat in range(2):
        hand = list(hands[seat])
        hand.remove(state.history[0]["placements"][seat]["dino"])
        hand.remove(discarded[seat])
        kept.append(hand)
    assert state.view()["hands"] == [kept[1], kept[0]]  # the hands were swapped


def test_ds_4_4_hand_sizes_over_a_two_player_round():
    state = new(2, seed=7)
    steps = []
    while state.round == 1:
        steps.append((state.phase, state.view()["hand_sizes"][0]))
        play_step(state, first_legal)
    assert steps == [("place", 6), ("discard", 5), ("place", 4), ("discard", 3), ("place", 2), ("discard", 1)]


def test_ds_4_5_two_player_game_has_twelve_turns_and_twelve_dinosaurs_each():
    state = new(2, WINTER, seed=3)
    random_playout(state, seed=1)
    turns = [e for e in state.history if "turn" in e]
    assert len(turns) == 12 and [z.size() for z in state.zoos] == [12, 12]


def test_ed_2_left_is_the_next_seat_and_right_the_previous():
    state = new(3, seed=0)
    before = state.view()["hands"]
    play_step(state, river_all)
    placed = [p["dino"] for p in state.history[0]["placements"]]
    for seat in range(3):
        right = (seat - 1) % 3
        expected = list(before[right])
        expected.remove(placed[right])
        assert state.view()["hands"][seat] == expected


def test_ed_4_the_roller_never_resets_between_rounds():
    state = new(5, seed=0)
    while state.round == 1:
        play_step(state, first_legal)
    assert state.roller == 6 % 5


def test_ed_5_seats_are_asked_in_ascending_order_and_choices_stay_hidden():
    state = new(4, seed=11)
    asked = []
    for _ in range(3):
        seat = state.current_player()
        asked.append(seat)
        state.apply(state.legal_actions()[0])
    assert asked == [0, 1, 2]
    pending_dino = state.view()["pending"][0]["dino"]
    for seat in range(4):
        observation = state.observation(seat)
        assert observation["chosen"] == [0, 1, 2]
        assert "pending" not in observation
        assert observation["hand_sizes"] == [6, 6, 6, 6]  # a chosen dinosaur stays in its hand
    assert pending_dino in state.view()["hands"][0]
    assert state.history == []


def test_ed_5_quarantine_asks_only_seats_with_an_occupied_zone():
    state = _last_winter_turn(quarantined=[1, 3])
    play_step(state, river_all)
    assert state.phase == "quarantine"
    assert state.current_player() == 1
    state.apply({"to": "river"})
    assert state.current_player() == 3 and state.zoos[1].pens["quarantine_zone"] == ["triceratops"]
    state.apply({"to": "river"})
    assert state.is_terminal()
    assert state.history[-1] == {"quarantine": [{"seat": 1, "dino": "triceratops", "to": "river"},
                                                {"seat": 3, "dino": "triceratops", "to": "river"}]}


def _last_winter_turn(quarantined):
    """A 4-player winter game at its last turn, with a triceratops quarantined in the given zoos."""
    state = new(4, WINTER, seed=2)
    while not (state.round == 2 and state.turn == 6):
        state.apply([a for a in state.legal_actions() if a["to"] not in ("quarantine_zone",)][-1])
    for seat in range(4):
        state.zoos[seat].pens["quarantine_zone"] = ["triceratops"] if seat in quarantined else []
    state.reset_legal_cache()
    return state


def test_ed_6_two_player_placements_are_revealed_before_discards_are_chosen():
    state = new(2, seed=4)
    play_step(state, river_all)
    assert state.phase == "discard"
    observation = state.observation(1)
    assert len(observation["history"][0]["placements"]) == 2
    state.apply(state.legal_actions()[0])
    assert state.observation(1)["discards"] == []  # seat 0's discard is still secret
    assert state.observation(1)["chosen"] == [0]
    state.apply(state.legal_actions()[0])
    revealed = state.observation(1)["discards"]
    assert [entry["seat"] for entry in revealed] == [0, 1]
    assert state.observation(0)["history"][0]["discards"] == revealed


def test_ed_13_forced_decisions_are_still_asked():
    state = new(2, seed=9)
    play_step(state, first_legal)
    play_step(state, first_legal)
    play_step(state, first_legal)
    play_step(state, first_legal)
    play_step(state, first_legal)
    assert (state.phase, state.turn) == ("discard", 3)
    assert state.view()["hand_sizes"] == [1, 1]
    assert len(state.legal_actions()) == 1  # one dinosaur left, and still a decision
    state.apply(state.legal_actions()[0])
    assert state.current_player() == 1


def test_ed_13_quarantine_step_is_skipped_when_no_zone_is_occupied():
    state = _last_winter_turn(quarantined=[])
    play_step(state, river_all)
    assert state.is_terminal()
    assert "quarantine" not in state.history[-1]


def test_ds_10_3_summer_winter_plays_summer_then_winter_and_adds_scores():
    state = new(3, SUMMER_WINTER, seed=12)
    actions = random_playout(state, seed=3, upto=35)
    assert state.game_index == 0 and not state.is_terminal()
    state.apply(state.legal_actions()[0])
    assert state.board == "winter" and state.game_index == 1 and not state.is_terminal()
    # Game 1 of the match is the single summer game with the same seed and the same actions.
    alone = new(3, SUMMER, seed=12)
    for action in actions:
        alone.apply(action)
    alone.apply(alone.legal_actions()[0])
    assert alone.is_terminal()
    game_1 = alone.scores()
    assert state.match_scores == game_1
    assert state.match_t_rex == [z.t_rex_count() for z in alone.zoos]
    random_playout(state, seed=3)
    assert state.is_terminal()
    assert state.scores() == [a + b for a, b in zip(game_1, state.game_scores())]
    assert state.view()["match_scores"] == game_1


def test_ds_10_3_single_mode_has_no_banked_scores():
    state = new(3, SUMMER, seed=12)
    random_playout(state, seed=3)
    assert state.view()["match_scores"] == [0, 0, 0] and state.scores() == state.game_scores()
