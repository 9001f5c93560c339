"""Observations, views and action encoding (rules section 12) and the secrecy of the hidden parts:
the removed tiles, the supply's content and the stack order (DK-2.5, DK-3.8)."""

from __future__ import annotations

import json
import random

from dice_king_helpers import GAME, fresh
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engines.dice_king.board import LANDSCAPES, TILE_LANDSCAPE, tile_name

KIND_ORDER = ["reroll", "stop", "joker", "claim", "alarm", "place", "steal_card", "steal_gem", "pass", "tame",
              "brawl", "alarm_field", "fire_from"]
JOKER_ORDER = {"pair": 0, "mixed": 1, "super": 2}


def canonical_key(action):
    """The sort key of rules section 12.2, written out from the text."""
    (kind, argument), = action.items()
    if kind == "reroll":
        inner = sum(1 << die for die in argument)
    elif kind == "joker":
        inner = ("RGB".index(argument[0]), argument[1], JOKER_ORDER[argument[2]])
    elif kind == "steal_gem":
        inner = (argument[0], 0 if argument[1] == "gold" else 1)
    elif kind in ("place", "steal_card"):
        inner = tuple(argument)
    elif kind in ("stop", "pass"):
        inner = 0
    else:
        inner = argument
    return KIND_ORDER.index(kind), inner


def random_game(players, seed):
    """Yield every state along a random game."""
    state = fresh(players, seed)
    chooser = random.Random(seed)
    while not state.is_terminal():
        yield state
        state.apply(chooser.choice(state.legal_actions()))
    yield state


def test_dk_12_2_legal_actions_come_in_the_canonical_order():
    seen_kinds = set()
    for players, seed in ((2, 1), (3, 2), (4, 3)):
        for state in random_game(players, seed):
            legal = state.legal_actions()
            keys = [canonical_key(action) for action in legal]
            assert keys == sorted(keys) and len(set(keys)) == len(keys)
            seen_kinds.update(next(iter(a)) for a in legal)
    assert {"reroll", "stop", "claim", "alarm", "place", "pass"} <= seen_kinds


def test_dk_12_1_observation_fields():
    state = fresh(3, seed=4)
    obs = state.observation(2)
    assert obs["game"] == "dice_king" and obs["players"] == 3 and obs["you"] == 2
    assert obs["to_act"] == state.active and obs["phase"] == "roll" and obs["winner"] is None
    assert set(obs["turn"]) == {"active", "rolls_made", "dice", "virtual_dice", "natural_claimable",
                                "claimable_now", "pending"}
    assert [d["die"] for d in obs["turn"]["dice"]] == list(range(6))
    assert obs["dice_table"] == ["RGRBBG", "RGGBRB", "BRRGBG", "BRBGGR", "GBGRRB", "GBBRGR"]
    assert len(obs["map"]) == 30 and obs["map"][0]["neighbours"] == [1, 6]
    assert set(obs["seats"][0]) == {"seat", "markers_left", "gems", "fires", "front_cards", "superjokers",
                                    "score_now"}
    assert obs["display"][0]["condition"] == obs["display"][0]["condition"].replace(" ", "")
    assert sum(obs["tiles"]["unplaced_by_landscape"].values()) == 28
    assert list(obs["tiles"]["unplaced_by_landscape"]) == list(LANDSCAPES)


def test_dk_12_1_view_adds_the_hidden_parts_and_has_no_you():
    state = fresh(3, seed=4)
    view = state.view()
    assert "you" not in view
    assert view["removed_tiles"] == sorted(view["removed_tiles"]) and len(view["supply"]) == 26
    for stack in range(1, 6):
        below = view["stack_order"][str(stack)]
        assert below == state.stacks[stack][1:]
        assert view["stack_remaining"][str(stack)] == sorted(below)
    obs = state.observation(0)
    assert {k: v for k, v in view.items() if k not in ("removed_tiles", "supply", "stack_order")} == {
        k: v for k, v in obs.items() if k != "you"}


def hidden_names(state):
    """Tile ids nobody may know: the removed tiles and the supply tiles that were never revealed."""
    return [tile_name(t) for t in state.removed + [t for t in state.supply if t not in state.seen_returned]]


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(players=st.integers(2, 4), seed=st.integers(0, 10**6), depth=st.integers(0, 400),
       redeal=st.integers(0, 10**6))
def test_secrecy_removed_tiles_supply_and_stack_order_never_reach_an_observation(players, seed, depth, redeal):
    chooser = random.Random(seed)
    state = GAME.new_state(players, seed)
    for _ in range(depth):
        if state.is_terminal():
            break
        state.apply(chooser.choice(state.legal_actions()))
    for player in range(players):
        obs = state.observation(player)
        text = json.dumps(obs)
        assert not any(f'"{name}"' in text for name in hidden_names(state))
        twin = state.resample_hidden(player, redeal)
        assert twin.observation(player) == obs
        # Tiles known to be in the supply stay there; the unplaced tiles are the same set.
        assert set(state.seen_returned) <= set(twin.supply)
        assert sorted(twin.removed + twin.supply) == sorted(state.removed + state.supply)
        assert {s: c[0] for s, c in twin.stacks.items() if c} == {s: c[0] for s, c in state.stacks.items() if c}


def test_secrecy_resampling_really_redeals_the_hidden_parts():
    state = fresh(3, seed=8)
    views = {json.dumps([state.resample_hidden(0, redeal).view()[key]
                         for key in ("removed_tiles", "supply", "stack_order")]) for redeal in range(6)}
    assert len(views) > 1
    removed = {tuple(state.resample_hidden(0, redeal).removed) for redeal in range(30)}
    assert len(removed) > 5


def test_seen_returned_tiles_counted_by_landscape_and_forgotten_when_drawn_again():
    state = fresh(3, seed=8)
    state.seen_returned = [3]
    landscape = LANDSCAPES[TILE_LANDSCAPE[3]]
    assert state.observation(0)["tiles"]["seen_returned_by_landscape"][landscape] == 1
    state.supply = [3]
    state.pending = {"effect": "DWARF", "card": "S1-01", "drawn": [], "to_place": 1, "tiers": 1}
    state._draw(1)
    assert state.seen_returned == []


def scribble(value):
    """Change every dict and list inside a JSON value in place."""
    if isinstance(value, dict):
        for item in value.values():
            scribble(item)
        value["scribbled"] = True
    elif isinstance(value, list):
        for item in value:
            scribble(item)
        value.append("scribbled")


def test_dk_12_1_observations_and_views_share_nothing_with_the_state():
    # Only apply() changes a state (engines.base.State): a caller that edits what it was given, such as
    # an in-process bot annotating its observation, must not rewrite the public log of later views.
    state = fresh(3, seed=4)
    before = json.dumps(state.view(), sort_keys=True)
    scribble(state.observation(0))
    scribble(state.view())
    assert json.dumps(state.view(), sort_keys=True) == before
    state.apply({"stop": True})
    before = json.dumps(state.view(), sort_keys=True)
    scribble(state.observation(1))
    scribble(state.view())
    assert json.dumps(state.view(), sort_keys=True) == before
