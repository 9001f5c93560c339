"""A greedy bot for Carcassonne: The Dice Game: build towards the largest city it can close.

How it decides, one action at a time (the engine asks again after every collect or build):

1. It reads the turn's planes from the observation and rebuilds the geometry itself (a bot cannot import
   the engine): each face's edge code, rotations, and which cities are open or closed.
2. It values a position as the best of: the points of its largest closed city, or for each open city a
   rough expectation "points if it gets closed x chance to close it" (the chance depends on how many open
   city edges are left, how many dice are still free and how many rolls remain).
3. It tries every legal build and takes the one that raises that value most. A die that helps nothing
   stays in the pool and is rolled again.
4. When no build helps, it rolls again if the estimated gain of another roll is positive (an open city
   that could still be closed, or enough free dice to start a scoring one), and otherwise stops.

Knights are ignored: collecting one takes a die away from the cities, and the knight option only pays
off with three of them. If the knight choice ever comes up, it scores.

The face drawings below copy the engine's table (rules CD-1.3); copy this file and change the value
function to make a stronger bot.
"""

# Edge codes at rotation 0 in the order North, East, South, West; C is city, F is field.
FACE_EDGES = {"CAP": "CFFF", "CORNER": "CCFF", "BAND": "CFCF", "TRIPLE": "CCCF"}
# Points by the size of the largest closed city (index = number of dice).
POINTS = [0, 0, 0, 1, 3, 6, 10, 15, 21, 28]
# Neighbour offsets by direction: 0 North (y+1), 1 East, 2 South, 3 West.
STEPS = [(0, 1), (1, 0), (0, -1), (-1, 0)]
# Rough chance that one free die closes one particular open edge in one roll: it must show a city face
# (4 in 6) of a shape that fits (about half of them).
CLOSE_CHANCE = 1 / 3


def rotate(edges, r):
    """Edges after r quarter turns clockwise: direction d shows the old edge of direction d - r."""
    return "".join(edges[(d - r) % 4] for d in range(4))


def city_at(cells, start):
    """(size, open city edges) of the city containing the die at ``start``."""
    seen = {start}
    stack = [start]
    open_edges = 0
    while stack:
        x, y = stack.pop()
        edges = cells[(x, y)]
        for d, (dx, dy) in enumerate(STEPS):
            if edges[d] != "C":
                continue
            neighbour = (x + dx, y + dy)
            if neighbour not in cells:
                open_edges += 1
            elif neighbour not in seen:
                seen.add(neighbour)
                stack.append(neighbour)
    return len(seen), open_edges


def city_value(size, open_edges, free_dice, rolls_left):
    """What a city is worth now: its points if closed, else its points once closed times a rough chance."""
    if open_edges == 0:
        return POINTS[size]
    if open_edges > free_dice:
        return 0.0
    # Each open edge needs one of the free dice; with several rolls each die gets several tries. After the
    # last roll the faces are known, so "one more try" stands for building with what is lying there.
    tries = max(rolls_left, 1) * free_dice / open_edges
    chance_per_edge = 1 - (1 - CLOSE_CHANCE) ** tries
    return POINTS[min(size + open_edges, 9)] * chance_per_edge ** open_edges


class Bot:
    def __init__(self, game, seat, players, options):
        self.seat = seat

    def act(self, observation, legal_actions):
        if {"score": True} in legal_actions:
            return {"score": True}
        turn = observation["turn"]
        planes = {
            plane["plane"]: {(d["x"], d["y"]): d["edges"] for d in plane["dice"]} for plane in turn["planes"]
        }
        rolls_left = turn["rolls_left"]
        pool_size = len(turn["pool"])

        def position_value(free_dice):
            best = 0.0
            for cells in planes.values():
                for cell in cells:
                    size, open_edges = city_at(cells, cell)
                    best = max(best, city_value(size, open_edges, free_dice, rolls_left))
            return best

        current = position_value(pool_size)
        best_action, best_value = None, current
        for action in legal_actions:
            if "build" not in action:
                continue
            face, where = action["build"][0], action["build"][1:]
            if where == ["new"]:
                cells, cell, edges = {}, (0, 0), FACE_EDGES[face]
            else:
                index, x, y, r = where
                cells, cell, edges = planes[index], (x, y), rotate(FACE_EDGES[face], r)
            trial = dict(cells)
            trial[cell] = edges
            size, open_edges = city_at(trial, cell)
            # The rest of the position keeps its value; the built die may raise the city it joins.
            value = max(current * 0.999, city_value(size, open_edges, pool_size - 1, rolls_left))
            if value > best_value + 1e-9:
                best_action, best_value = action, value
        if best_action is not None:
            return best_action

        # No build helps. Another roll cannot lose what is built, so its gain is positive whenever the
        # free dice could still improve the score.
        if {"roll": True} in legal_actions:
            closed_points = max(
                (POINTS[size] for cells in planes.values() for cell in cells
                 for size, open_edges in [city_at(cells, cell)] if open_edges == 0),
                default=0,
            )
            expected_after_roll = max(current, city_value(pool_size, pool_size // 2, pool_size, rolls_left))
            if expected_after_roll > closed_points:
                return {"roll": True}
        return {"stop": True}
