"""CD-6.3, CD-6.5, CD-7.2 and section 12.2 checked against a naive re-reading of the rules along real games.

The engine keeps each plane's frontier incrementally and caches its cities; this oracle rescans the
``view()`` from scratch at every ``resolve`` decision: the legal actions in canonical order (every empty
cell next to a plane, every distinct rotation whose edges match all occupied neighbours) and
``score_if_stop`` (the largest closed city through the points table, doubled in a doubled turn). The games
favour building into existing planes, so planes grow large and crowded.
"""

import random

import engines

GAME = engines.get("carcassonne_dice")
EDGES = {"CAP": "CFFF", "CORNER": "CCFF", "BAND": "CFCF", "TRIPLE": "CCCF"}  # CD-1.3 at rotation 0
STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0))  # N, E, S, W with y growing to the North (CD-6.1)
POINTS = {3: 1, 4: 3, 5: 6, 6: 10, 7: 15, 8: 21, 9: 28}  # CD-7.2, copied from the rules table


def rotate(edges, r):
    return "".join(edges[(d - r) % 4] for d in range(4))


def naive_actions(view):
    pool = {die["face"] for die in view["turn"]["pool"]}
    actions = [{"collect": "KNIGHT"}] if "KNIGHT" in pool else []
    for face in ("CAP", "CORNER", "BAND", "TRIPLE"):  # face ids 1-4
        if face not in pool:
            continue
        actions.append({"build": [face, "new"]})
        for plane in view["turn"]["planes"]:
            cells = {(die["x"], die["y"]): die["edges"] for die in plane["dice"]}
            empty = {(x + dx, y + dy) for x, y in cells for dx, dy in STEPS} - set(cells)
            for x, y in sorted(empty):
                codes = []
                for r in range(4):
                    code = rotate(EDGES[face], r)
                    touching = [(d, cells.get((x + dx, y + dy))) for d, (dx, dy) in enumerate(STEPS)]
                    if code not in codes and all(other is None or other[(d + 2) % 4] == code[d]
                                                 for d, other in touching):
                        actions.append({"build": [face, plane["plane"], x, y, r]})
                    codes.append(code)
    if view["turn"]["rolls_made"] < 3 and view["turn"]["pool"]:
        actions.append({"roll": True})
    actions.append({"stop": True})
    return actions


def naive_largest_closed_city(view):
    largest = 0
    for plane in view["turn"]["planes"]:
        cells = {(die["x"], die["y"]): die["edges"] for die in plane["dice"]}
        unvisited = set(cells)
        while unvisited:
            city, closed, frontier = set(), True, [unvisited.pop()]
            while frontier:
                x, y = frontier.pop()
                city.add((x, y))
                for d, (dx, dy) in enumerate(STEPS):
                    neighbour = (x + dx, y + dy)
                    if cells[(x, y)][d] != "C":
                        continue
                    if neighbour not in cells:
                        closed = False
                    elif neighbour in unvisited:
                        unvisited.discard(neighbour)
                        frontier.append(neighbour)
            if closed:
                largest = max(largest, len(city))
    return largest


def test_cd_6_3_cd_7_2_legal_actions_and_score_match_a_naive_rescan_along_random_games():
    chooser = random.Random(7)
    decisions = 0
    for seed in range(6):
        state = GAME.new_state(2 + seed % 4, seed, {"equal_turns": seed % 2 == 1})
        while not state.is_terminal():
            view = state.view()
            legal = state.legal_actions()
            if view["phase"] == "resolve":
                assert legal == naive_actions(view)
                expected = POINTS.get(naive_largest_closed_city(view), 0)
                assert view["turn"]["score_if_stop"] == expected * (2 if view["turn"]["doubled"] else 1)
                decisions += 1
            into_planes = [a for a in legal if "build" in a and a["build"][1] != "new"]
            use_plane = into_planes and chooser.random() < 0.8
            state.apply(chooser.choice(into_planes if use_plane else legal))
    assert decisions > 500
