"""KD-3: rounds and king turns; ED-3 split turns; ED-5 forced decisions are still asked."""

import pytest
from kingdomino_helpers import WALLED_IN, build_kingdom, new, play_out, play_until

from engines import IllegalAction
from engines.kingdomino.state import INITIAL_PICK, PICK, PLACE


def test_kd_3_1_each_round_starts_with_a_fully_claimed_line_and_a_next_line_if_the_pile_has_any():
    state = new(2, 2)
    while not state.is_terminal():
        play_until(state, lambda s: s.phase == PLACE and s.position == 0)
        if state.is_terminal():
            break
        assert all(slot.king is not None and not slot.done for slot in state.current_line)
        if state.round < state.setup.rounds_total:
            assert state.next_line is not None and all(slot.king is None for slot in state.next_line)
        else:
            assert state.next_line is None and state.draw_pile == []
        play_until(state, lambda s: s.position != 0 or s.is_terminal())


def test_kd_3_2_kings_act_by_position_placing_then_picking():
    state = new(3, 8)
    play_until(state, lambda s: s.phase == PLACE)
    owners = [slot.king[0] for slot in state.current_line]
    steps = []
    for _ in range(2 * len(owners)):
        steps.append((state.phase, state.position, state.current_player()))
        state.apply(state.legal_actions()[0])
    assert steps == [(phase, p, owners[p]) for p in range(len(owners)) for phase in (PLACE, PICK)]


def test_kd_3_3_the_next_line_becomes_the_current_line_with_its_kings():
    state = new(4, 6)
    play_until(state, lambda s: s.round == 1 and s.phase == PICK and s.position == 3)
    last_pick = state.legal_actions()[0]["pick"]
    claimed = [(slot.domino, slot.king) for slot in state.next_line]
    claimed[last_pick] = (claimed[last_pick][0], state.acting_king())
    state.apply({"pick": last_pick})
    assert state.round == 2 and state.position == 0
    assert [(slot.domino, slot.king) for slot in state.current_line] == claimed
    assert state.next_line is not None and all(slot.king is None for slot in state.next_line)


def test_kd_3_4_a_low_pick_acts_early_next_round():
    state = new(2, 13)
    play_until(state, lambda s: s.phase == PLACE)
    picks = {}
    while state.round == 1:
        if state.phase == PICK:
            # Take the highest free position, so that the first king of round 1 ends up last.
            action = state.legal_actions()[-1]
            picks[action["pick"]] = state.acting_king()
        else:
            action = state.legal_actions()[0]
        state.apply(action)
    acted = []
    while state.round == 2:
        if state.phase == PLACE:
            acted.append(state.acting_king())
        state.apply(state.legal_actions()[0])
    assert acted == [picks[p] for p in sorted(picks)]
    assert acted[-1] == state.history[4][0], "the first king of round 1 took the last position"


def test_kd_3_5_last_round_places_without_picking_then_the_game_ends():
    state = new(2, 1)
    play_until(state, lambda s: s.round == s.setup.rounds_total)
    assert state.next_line is None and state.draw_pile == []
    phases = []
    while not state.is_terminal():
        phases.append(state.phase)
        state.apply(state.legal_actions()[0])
    assert phases == [PLACE] * 4


@pytest.mark.parametrize(("players", "options", "rounds", "each"), [
    (2, {}, 6, 12), (3, {}, 12, 12), (4, {}, 12, 12), (2, {"mighty_duel": True}, 12, 24)])
def test_kd_3_6_rounds_equal_lines_and_each_seat_resolves_12_or_24(players, options, rounds, each):
    for seed in range(3):
        state = new(players, seed, **options)
        seen_rounds = set()
        while not state.is_terminal():
            seen_rounds.add(state.round)
            state.apply(state.legal_actions()[-1])
        assert seen_rounds == set(range(rounds + 1))
        for kingdom in state.kingdoms:
            assert len(kingdom.placed) + len(kingdom.discarded) == each


def test_ed_3_a_king_turn_is_two_decisions_by_the_same_seat_both_in_history():
    state = new(2, 21)
    play_until(state, lambda s: s.phase == PLACE)
    seat = state.current_player()
    state.apply(state.legal_actions()[0])
    assert state.phase == PICK and state.current_player() == seat
    state.apply(state.legal_actions()[0])
    place, pick = state.view()["history"][-2:]
    assert set(place["action"]) == {"place"} and set(pick["action"]) == {"pick"}
    assert (place["seat"], place["king"]) == (pick["seat"], pick["king"])
    with pytest.raises(IllegalAction):
        state.apply({"place": [4, 5, 0], "pick": 0})


def test_ed_5_forced_picks_and_discards_are_still_asked():
    state = new(2, 3)
    while state.phase == INITIAL_PICK:
        legal = state.legal_actions()
        state.apply(legal[0])
    assert len(legal) == 1 and state.history[-1][1] == "pick"
    play_until(state, lambda s: s.phase == PICK and s.position == 3)
    free = next(p for p, slot in enumerate(state.next_line) if slot.king is None)
    assert state.legal_actions() == [{"pick": free}]
    # A domino with no legal placement: the only action is the discard, and it is recorded.
    state = new(2, 3)
    play_until(state, lambda s: s.phase == PLACE)
    seat = state.current_player()
    state.kingdoms[seat] = build_kingdom(WALLED_IN)
    state.current_line[0].domino = 12
    state.reset_legal_cache()
    assert state.legal_actions() == [{"discard": True}]
    state.apply({"discard": True})
    assert state.history[-1] == ((seat, state.current_line[0].king[1]), "discard", True, 12)
    assert state.kingdoms[seat].discarded == [12]


def test_kd_3_6_every_decision_of_a_game_is_one_history_entry():
    state = new(4, 2)
    actions = play_out(state, 2)
    assert len(state.history) == len(actions) == 4 + 48 + 44
