"""Section 11 encodings, ED-13 exact JSON, ED-6 secrecy (with a hypothesis test), ED-12 seat colours."""

import json
import random

from hypothesis import given, settings
from hypothesis import strategies as st
from kingdomino_helpers import game, new, play_until

from engines.kingdomino.state import INITIAL_PICK, PICK, PLACE

OBSERVATION_FIELDS = [
    "game", "options", "players", "you", "grid_size", "frame_size", "castle", "game_index", "phase", "round",
    "rounds_total", "to_act", "current_line", "next_line", "kingdoms", "draw_pile_count", "unseen_dominoes",
    "history", "match_scores",
]
VIEW_FIELDS = [f for f in OBSERVATION_FIELDS if f != "you"] + ["draw_pile", "set_aside"]


def test_ed_13_observation_and_view_have_exactly_the_documented_fields():
    state = new(4, 2)
    for stop in (20, 40, 60):
        play_until(state, lambda s, stop=stop: len(s.history) >= stop)
        assert list(state.observation(1)) == OBSERVATION_FIELDS
        assert list(state.view()) == VIEW_FIELDS
        assert state.observation(1)["you"] == 1
    kingdom = state.view()["kingdoms"][0]
    assert list(kingdom) == ["seat", "grid", "placed", "discarded", "base_score", "largest_property",
                             "crowns"]
    assert len(kingdom["grid"]) == 9 and all(len(row) == 9 for row in kingdom["grid"])


def test_ed_13_initial_pick_encoding():
    state = new(2, 5)
    obs = state.observation(0)
    assert obs["phase"] == INITIAL_PICK and obs["round"] == 0 and obs["next_line"] is None
    assert obs["to_act"]["line_position"] is None
    assert [entry["king"] for entry in obs["current_line"]] == [None] * 4
    assert [entry["done"] for entry in obs["current_line"]] == [False] * 4
    seat, king = state.acting_king()
    state.apply({"pick": 2})
    entry = state.observation(0)["current_line"][2]
    assert entry["king"] == {"seat": seat, "king": king}
    assert list(entry) == ["position", "domino", "king", "done"] and entry["position"] == 2
    assert state.view()["history"] == [{"seat": seat, "king": king, "action": {"pick": 2},
                                        "domino": entry["domino"]["n"]}]


def test_ed_13_play_encoding_done_flags_and_kings_that_moved_on():
    state = new(2, 5)
    play_until(state, lambda s: s.phase == PLACE)
    obs = state.observation(0)
    assert obs["round"] == 1 and obs["to_act"]["line_position"] == 0
    assert all(list(entry) == ["position", "domino", "king"] for entry in obs["next_line"])
    king = state.acting_king()
    action = state.legal_actions()[0]
    state.apply(action)
    obs = state.observation(0)
    assert obs["phase"] == PICK and obs["current_line"][0]["done"] is True
    domino = obs["current_line"][0]["domino"]["n"]
    assert obs["history"][-1] == {"seat": king[0], "king": king[1], "action": action, "domino": domino}
    assert obs["kingdoms"][king[0]]["placed"] == [[domino] + action["place"]]
    state.apply({"pick": 3})
    obs = state.observation(0)
    assert obs["current_line"][0]["king"] == {"seat": king[0], "king": king[1]}, "stays after moving on"
    assert obs["next_line"][3]["king"] == {"seat": king[0], "king": king[1]}
    assert obs["to_act"]["line_position"] == 1


def test_ed_13_lists_are_ordered_and_unseen_is_everything_not_shown():
    state = new(3, 9)
    play_until(state, lambda s: s.round == 4)
    view = state.view()
    assert view["unseen_dominoes"] == sorted(view["draw_pile"] + view["set_aside"])
    assert view["set_aside"] == sorted(view["set_aside"])
    assert view["draw_pile_count"] == len(view["draw_pile"])
    assert view["draw_pile"][:3] == state.draw_pile[:3], "draw order, next domino first"


def test_ed_6_observations_carry_no_draw_order_or_set_aside():
    state = new(2, 4)
    play_until(state, lambda s: s.round == 2)
    view = state.view()
    for seat in range(2):
        obs = state.observation(seat)
        assert "draw_pile" not in obs and "set_aside" not in obs
        # Nothing in the observation follows the secret order: the unseen list is sorted, not dealt.
        assert obs["unseen_dominoes"] == sorted(view["draw_pile"] + view["set_aside"])
        assert obs["unseen_dominoes"] != view["draw_pile"] + view["set_aside"] or not view["draw_pile"]


@settings(max_examples=40, deadline=None)
@given(variant=st.sampled_from(game().variants()), seed=st.integers(0, 2**31 - 1),
       depth=st.integers(0, 120), redeal=st.integers(0, 2**31 - 1))
def test_ed_6_a_redealt_pile_is_invisible_to_every_seat(variant, seed, depth, redeal):
    players, options = variant
    state = game().new_state(players, seed, options)
    chooser = random.Random(seed)
    for _ in range(depth):
        if state.is_terminal():
            break
        state.apply(chooser.choice(state.legal_actions()))
    for seat in range(players):
        twin = state.resample_hidden(seat, redeal)
        # The re-deal keeps what is public: pile size and the pool of unseen dominoes.
        assert len(twin.draw_pile) == len(state.draw_pile)
        assert sorted(twin.draw_pile + twin.set_aside) == sorted(state.draw_pile + state.set_aside)
        for other in range(players):
            assert json.dumps(twin.observation(other)) == json.dumps(state.observation(other))
        # Playing the same next decision on both keeps them indistinguishable for every seat.
        if not state.is_terminal():
            action = state.legal_actions()[0]
            ahead, twin_ahead = state.clone(), twin.clone()
            ahead.apply(action)
            twin_ahead.apply(action)
            if ahead.round == state.round and ahead.game_index == state.game_index:
                for other in range(players):
                    assert twin_ahead.observation(other) == ahead.observation(other)


def test_ed_6_the_redeal_really_changes_the_hidden_order():
    state = new(2, 4)
    play_until(state, lambda s: s.round == 2)
    piles = {tuple(state.resample_hidden(0, seed).draw_pile) for seed in range(10)}
    assert len(piles) > 1
