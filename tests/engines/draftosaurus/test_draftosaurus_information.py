"""Who knows what: ED-5 (pending choices stay secret), ED-7 (hands are multisets), ED-8 (known hands and
unseen counts), ED-20 (the exact JSON of Section 13), and a hypothesis test of this game's secrecy."""

from __future__ import annotations

import json
from collections import Counter

from draftosaurus_helpers import (
    GAME,
    SUMMER,
    SUMMER_WINTER,
    WINTER,
    new,
    play_step,
    position,
    random_playout,
    zoo,
)
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

OBSERVATION_KEYS = ["game", "options", "board", "game_index", "players", "you", "phase", "round", "rounds_total",
                    "turn", "turns_per_round", "roller", "die", "die_applies_to_you", "hand", "hand_sizes",
                    "known_hands", "zoos", "chosen", "discards", "bag", "unseen", "history", "match_scores",
                    "match_t_rex"]
VIEW_ONLY = {"hands", "pending", "bag_order"}
OBSERVATION_ONLY = {"you", "hand", "die_applies_to_you", "known_hands", "unseen"}


# --- ED-5 -----------------------------------------------------------------------------------------

@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(GAME.variants()), seed=st.integers(0, 10**6), depth=st.floats(0, 1),
       pick=st.integers(0, 10**6))
def test_ed_5_no_observation_depends_on_another_seats_pending_choice(variant, seed, depth, pick):
    players, options = variant
    state = GAME.new_state(players, seed, options)
    random_playout(state, seed=seed, upto=int(depth * 12 * players))
    if state.is_terminal() or state.current_player() == max(state.asked):
        return  # the last seat's choice completes the step and is revealed at once, as it should be
    chooser = state.current_player()
    legal = state.legal_actions()
    a, b = state.clone(), state.clone()
    a.apply(legal[pick % len(legal)])
    b.apply(legal[(pick // 7) % len(legal)])
    for seat in range(players):
        if seat != chooser:
            assert a.observation(seat) == b.observation(seat)
            assert a.legal_actions() == b.legal_actions() or a.current_player() != seat


def test_ed_5_the_pending_choice_is_in_the_view_only():
    state = new(3, seed=2)
    choice = state.legal_actions()[1]
    state.apply(choice)
    assert state.view()["pending"] == [choice, None, None]
    assert all("pending" not in state.observation(seat) for seat in range(3))


# --- ED-7 -----------------------------------------------------------------------------------------

def test_ed_7_hands_are_multisets_named_by_species():
    state = position(2, SUMMER, zoos=[zoo("summer")] * 2, hands=[["spinosaurus", "t_rex", "spinosaurus"]] * 2,
                     roller=0)
    river_moves = [a for a in state.legal_actions() if a["to"] == "river"]
    assert river_moves == [{"dino": "t_rex", "to": "river"}, {"dino": "spinosaurus", "to": "river"}]
    assert state.observation(0)["hand"] == ["t_rex", "spinosaurus", "spinosaurus"]


# --- ED-8 -----------------------------------------------------------------------------------------

def remembered_hands(players, options, seed, seat):
    """Replay a game from ``seat``'s observations alone, deducing the hands it held before (ED-8),
    and compare with ``known_hands`` at every decision of that seat."""
    state = GAME.new_state(players, seed, options)
    memory: dict[int, Counter] = {}
    last_hand = None
    last_turn = None
    checked = 0
    while not state.is_terminal():
        observation = state.observation(seat)
        key = (observation["game_index"], observation["round"], observation["turn"])
        if observation["phase"] == "place" and key != last_turn:
            if observation["turn"] == 1:
                memory = {}
            else:
                entry = observation["history"][-1]
                removed = {p["seat"]: [p["dino"]] for p in entry["placements"]}
                for d in entry["discards"]:
                    removed[d["seat"]].append(d["dino"])
                carried = dict(memory)
                carried[seat] = last_hand
                memory = {}
                for holder, dinos in carried.items():
                    dinos = dinos - Counter(removed[holder])
                    new_holder = (holder + 1) % players
                    if new_holder != seat:
                        memory[new_holder] = dinos
            last_hand = Counter(observation["hand"])
            last_turn = key
            expected = [{"holder": h, "dinos": sorted(memory[h].elements(), key=SPECIES_ORDER.index)}
                        for h in sorted(memory)]
            assert observation["known_hands"] == expected
            checked += 1
        state.apply(state.legal_actions()[(seed + len(state.history)) % len(state.legal_actions())])
    return checked


SPECIES_ORDER = ["t_rex", "triceratops", "stegosaurus", "spinosaurus", "parasaurolophus", "brachiosaurus"]


def test_ed_8_known_hands_are_exactly_what_memory_deduces():
    for players in (2, 3, 4, 5):
        for seat in range(players):
            assert remembered_hands(players, SUMMER_WINTER, seed=players * 10 + seat, seat=seat) == 24


def test_ed_8_known_hands_grow_with_each_pass_and_reset_each_round():
    state = new(4, seed=1)
    sizes = []
    while state.round == 1:
        sizes.append([k["holder"] for k in state.observation(1)["known_hands"]])
        play_step(state, lambda s, seat: s.legal_actions()[-1])
    assert sizes == [[], [2], [2, 3], [0, 2, 3], [0, 2, 3], [0, 2, 3]]
    assert state.observation(1)["known_hands"] == []


def test_ed_8_two_players_know_both_hands_after_the_first_swap():
    state = new(2, seed=1)
    play_step(state, lambda s, seat: s.legal_actions()[-1])
    assert state.observation(0)["known_hands"] == []  # discard step of turn 1: still secret
    play_step(state, lambda s, seat: s.legal_actions()[-1])
    assert state.observation(0)["known_hands"] == [{"holder": 1, "dinos": state.view()["hands"][1]}]


def test_ed_8_two_players_keep_the_known_hand_through_the_discard_step():
    state = new(2, seed=1)
    for _ in range(3):  # turn 1: place, discard; turn 2: place
        play_step(state, lambda s, seat: s.legal_actions()[-1])
    assert (state.phase, state.turn) == ("discard", 2)
    for seat in range(2):
        other = 1 - seat
        known = state.observation(seat)["known_hands"]
        assert known == [{"holder": other, "dinos": state.view()["hands"][other]}]
        assert len(known[0]["dinos"]) == 3, "the opponent's placement of this turn is already out"


def test_ed_8_unseen_counts():
    for options in (SUMMER, WINTER):
        state = new(4, options, seed=5)
        random_playout(state, seed=5, upto=10)  # turn 3 of round 1, seats 0 and 1 have chosen
        for seat in range(4):
            observation = state.observation(seat)
            unknown = [size for holder, size in enumerate(observation["hand_sizes"])
                       if holder != seat and holder not in [k["holder"] for k in observation["known_hands"]]]
            assert sum(observation["unseen"].values()) == observation["bag"]["remaining"] + sum(unknown)
            actual = Counter(state.bag)
            for holder in range(4):
                if holder != seat and holder not in [k["holder"] for k in observation["known_hands"]]:
                    actual.update(state.hands[holder])
            assert observation["unseen"] == {s: actual[s] for s in SPECIES_ORDER}


def test_ed_8_unseen_is_empty_at_the_end_and_counts_discards():
    state = new(2, seed=3)
    play_step(state, lambda s, seat: s.legal_actions()[0])
    play_step(state, lambda s, seat: s.legal_actions()[0])
    observation = state.observation(0)
    assert sum(observation["unseen"].values()) == 48 - 4 - 8  # placed, discarded, own hand, known hand
    random_playout(state, seed=3)
    assert set(state.observation(1)["unseen"].values()) == {0}


# --- ED-20 and Section 13 -------------------------------------------------------------------------

def test_ed_20_observation_and_view_fields():
    state = new(3, SUMMER, seed=0)
    observation = state.observation(1)
    assert list(observation) == OBSERVATION_KEYS
    view = state.view()
    assert set(view) == (set(OBSERVATION_KEYS) - OBSERVATION_ONLY) | VIEW_ONLY
    assert (observation["round"], observation["turn"], observation["game_index"]) == (1, 1, 0)
    assert observation["you"] == 1 and observation["options"] == SUMMER
    assert json.loads(json.dumps(observation)) == observation


def test_ed_20_zoo_encoding_of_section_13():
    state = new(2, WINTER, seed=0)
    state.zoos = [zoo("winter", well_ordered_wood=["triceratops", "stegosaurus"], pyramid={"B1": "t_rex"},
                      river=["stegosaurus"]), zoo("winter")]
    encoded = state.view()["zoos"][0]
    assert encoded == {"seat": 0, "pens": {
        "well_ordered_wood": ["triceratops", "stegosaurus"], "lovers_bridge_left": [], "lovers_bridge_right": [],
        "pyramid": {"B1": "t_rex", "B2": None, "B3": None, "M1": None, "M2": None, "T": None},
        "lookout": [], "quarantine_zone": []}, "river": ["stegosaurus"], "t_rex_count": 1, "score": 8}
    assert list(new(2).view()["zoos"][0]["pens"]) == ["forest_of_sameness", "meadow_of_differences",
                                                      "prairie_of_love", "woody_trio", "king_of_the_jungle",
                                                      "solitary_island"]


def test_ed_20_history_entries_and_end_fields():
    state = position(2, WINTER, hands=[["t_rex", "triceratops"] * 3] * 2, roller=0)
    state.apply({"dino": "t_rex", "to": "pyramid", "cell": "B2"})
    state.apply({"dino": "triceratops", "to": "river"})
    state.apply({"discard": "t_rex"})
    state.apply({"discard": "triceratops"})
    assert state.view()["history"][0] == {
        "round": 1, "turn": 1, "roller": 0, "die": state.view()["history"][0]["die"],
        "placements": [{"seat": 0, "dino": "t_rex", "to": "pyramid", "cell": "B2"},
                       {"seat": 1, "dino": "triceratops", "to": "river"}],
        "discards": [{"seat": 0, "dino": "t_rex"}, {"seat": 1, "dino": "triceratops"}]}
    random_playout(state, seed=1)
    end = state.observation(0)
    assert (end["phase"], end["round"], end["turn"]) == ("game_over", 4, 3)
    assert (end["roller"], end["die"], end["die_applies_to_you"], end["chosen"]) == (None, None, False, [])
    assert end["hand"] == [] and end["known_hands"] == []


def test_ed_20_match_fields_let_a_final_view_be_ranked():
    state = new(3, SUMMER_WINTER, seed=6)
    random_playout(state, seed=6)
    view = state.view()
    totals = [view["match_scores"][s] + view["zoos"][s]["score"] for s in range(3)]
    t_rex = [view["match_t_rex"][s] + view["zoos"][s]["t_rex_count"] for s in range(3)]
    assert totals == state.scores() and t_rex == state.t_rex_counts()
    assert any(view["match_t_rex"]) or any(view["match_scores"])


# --- secrecy of this game's hidden information ----------------------------------------------------

@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(variant=st.sampled_from(GAME.variants()), seed=st.integers(0, 10**6), depth=st.floats(0, 1),
       redeal=st.integers(0, 10**6))
def test_resample_hidden_redraws_exactly_what_a_seat_cannot_know(variant, seed, depth, redeal):
    players, options = variant
    state = GAME.new_state(players, seed, options)
    random_playout(state, seed=seed, upto=int(depth * 13 * players))
    for seat in range(players):
        twin = state.resample_hidden(seat, redeal)
        assert twin.observation(seat) == state.observation(seat)
        known = set(state.known_holders(seat)) | {seat}
        hidden = [h for h in range(players) if h not in known]
        for holder in known:
            assert twin.hands[holder] == state.hands[holder]
        pool = Counter(state.bag) + sum((Counter(state.hands[h]) for h in hidden), Counter())
        twin_pool = Counter(twin.bag) + sum((Counter(twin.hands[h]) for h in hidden), Counter())
        assert twin_pool == pool
        for other in twin.asked:
            if twin.pending[other] is not None:
                assert twin.pending[other] in twin.legal_for(other)
        assert twin.pending[seat] == state.pending[seat]


def test_resample_hidden_changes_hands_bag_order_and_pending_choices():
    state = new(4, SUMMER, seed=2)
    state.apply(state.legal_actions()[0])
    state.apply(state.legal_actions()[0])
    views = [state.resample_hidden(3, redeal).view() for redeal in range(20)]
    assert len({json.dumps(v["hands"][0]) for v in views}) > 1
    assert len({json.dumps(v["bag_order"]) for v in views}) > 1
    assert len({json.dumps(v["pending"][0]) for v in views}) > 1
    assert all(v["hands"][3] == state.view()["hands"][3] for v in views)


def test_resample_hidden_redraws_future_dice_but_not_the_current_one():
    state = new(3, SUMMER, seed=2)
    dice = set()
    for redeal in range(30):
        twin = state.resample_hidden(0, redeal)
        assert twin.die == state.die
        play_step(twin, lambda s, seat: s.legal_actions()[-1])
        dice.add(twin.die)
    assert len(dice) > 1
