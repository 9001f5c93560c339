"""DK-3.4 to DK-3.7, DK-5.2, DK-6.1, DK-8.3 and DK-9.2 checked against a naive re-reading along real games.

At every decision the oracle recomputes from ``view()`` alone what the rules allow: which display cards
are claimable (every subset of the virtual dice tried, ED-21), whether dragon alarm is open (the claim
duty of the natural result), which joker spends the zone allows, where drawn tiles may go, which opponent
markers are nearest (breadth-first search over the printed neighbours), and every seat's score. Card
conditions are evaluated by the parsed card data, whose evaluator has its own brute-force test.
"""

import random
from collections import deque

import engines
from engines.dice_king.cards import CARDS
from engines.dice_king.conditions import stats

GAME = engines.get("dice_king")
#: Appendix A's tile list: tiles 2k and 2k+1 show landscape k (DK-1.2).
LANDSCAPE_ORDER = ("meadow", "wheat", "forest", "mountain", "lake", "river", "swamp", "hills", "heath",
                   "vineyard", "orchard", "quarry", "canyon", "glacier", "volcano")


def holds_for_some_subset(card, natural, virtual):
    return any(
        CARDS[card].condition.holds(stats(natural + [die for i, die in enumerate(virtual) if mask >> i & 1]))
        for mask in range(1 << len(virtual))
    )


def naive_claim_actions(view, seat):
    natural = [(die["colour"], die["value"]) for die in view["turn"]["dice"]]
    virtual = [(die["colour"], die["value"]) for die in view["turn"]["virtual_dice"]]
    shown = [entry for entry in view["display"] if entry["card"]]
    duty = [e["stack"] for e in shown if holds_for_some_subset(e["card"], natural, [])]
    zone = view["seats"][seat]
    supers = len(zone["superjokers"])
    actions = []
    for colour in "RGB":
        for value in range(1, 7):
            fronts = sum(1 for card in zone["front_cards"] if card["joker"] == [colour, value])
            for kind, allowed in (("pair", fronts >= 2), ("mixed", fronts >= 1 and supers >= 1),
                                  ("super", supers >= 2)):
                if allowed:
                    actions.append({"joker": [colour, value, kind]})
    actions += [{"claim": e["stack"]} for e in shown if holds_for_some_subset(e["card"], natural, virtual)]
    if not duty:
        actions += [{"alarm": e["stack"]} for e in shown]
    return duty, actions


def distances_from(field, neighbours):
    found, queue = {field: 0}, deque([field])
    while queue:
        here = queue.popleft()
        for there in neighbours[here]:
            if there not in found:
                found[there] = found[here] + 1
                queue.append(there)
    return found


def naive_brawl_targets(view, seat, neighbours):
    owner = [entry["owner"] for entry in view["map"]]
    own = [field for field in range(30) if owner[field] == seat]
    theirs = [field for field in range(30) if owner[field] is not None and owner[field] != seat]
    if not own:
        return theirs
    distance = {field: min(distances_from(field, neighbours)[mine] for mine in own) for field in theirs}
    return [field for field in theirs if distance[field] == min(distance.values())]


def naive_place_actions(view):
    free = [entry for entry in view["map"] if entry["tile"] is None]
    actions = []
    for tile in sorted(view["turn"]["pending"]["drawn"]):
        landscape = LANDSCAPE_ORDER[int(tile[1:]) // 2]
        actions += [{"place": [tile, entry["field"]]} for entry in free if entry["landscape"] == landscape]
    return actions


def naive_scores(view, neighbours):
    owner = [entry["owner"] for entry in view["map"]]
    fires = [zone["fires"] for zone in view["seats"]]
    totals = []
    for zone in view["seats"]:
        seat = zone["seat"]
        mine = {field for field in range(30) if owner[field] == seat}
        largest, left = 0, set(mine)
        while left:
            area, stack = set(), [left.pop()]
            while stack:
                here = stack.pop()
                area.add(here)
                for there in neighbours[here]:
                    if there in left:
                        left.discard(there)
                        stack.append(there)
            largest = max(largest, len(area))
        total = 3 * largest + (len(mine) - largest) + 3 * zone["gems"]["gold"] + 2 * zone["gems"]["white"]
        if max(fires) > 0 and zone["fires"] == max(fires):
            total += 4
        totals.append(total)
    return totals


def test_dk_3_7_dk_8_3_dk_9_2_decisions_and_scores_match_a_naive_reading_along_random_games():
    chooser = random.Random(11)
    checked = {"claim": 0, "brawl": 0, "place": 0}
    for seed in range(45):
        state = GAME.new_state(2 + seed % 3, seed)
        neighbours = [entry["neighbours"] for entry in state.view()["map"]]
        while not state.is_terminal():
            view, legal, seat = state.view(), state.legal_actions(), state.current_player()
            assert state.scores() == naive_scores(view, neighbours)
            if view["phase"] == "claim":
                duty, expected = naive_claim_actions(view, seat)
                assert view["turn"]["natural_claimable"] == duty
                assert legal == expected
            elif view["phase"] == "brawl":
                assert legal == [{"brawl": field} for field in naive_brawl_targets(view, seat, neighbours)]
            elif view["phase"] == "place":
                assert legal == naive_place_actions(view)
            checked[view["phase"]] = checked.get(view["phase"], 0) + 1
            # Stop early and spend jokers often, so claims meet virtual dice and several stacks.
            jokers = [action for action in legal if "joker" in action]
            if view["phase"] == "roll" and chooser.random() < 0.4:
                action = legal[-1]
            elif jokers and chooser.random() < 0.5:
                action = chooser.choice(jokers)
            else:
                action = chooser.choice(legal)
            state.apply(action)
        assert state.scores() == naive_scores(state.view(), neighbours)
    assert checked["claim"] > 1000 and checked["brawl"] > 5 and checked["place"] > 100
