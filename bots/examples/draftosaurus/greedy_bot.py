"""A Draftosaurus bot that plays the placement worth most right now, judged from the observation alone.

How it decides:

* ``place``: for every legal placement it puts the dinosaur into a copy of its own zoo and scores the
  result with the printed tables (the same ones the engine uses), plus a small "promise" for pens that
  pay later (a Woody Trio on its way to 3, a lone dinosaur on the Prairie waiting for its pair, one bank of
  the Lovers' Bridge waiting for the other). It takes the best; ties go to the earlier legal action.
* ``discard`` (2 players): the remaining hand goes to the opponent, so it throws away the dinosaur that
  would help the opponent's zoo most.
* ``quarantine`` (winter): moves the quarantined dinosaur where it scores most.

It imports only the standard library, as a sandboxed bot must, so it re-implements scoring from the
observation's ``zoos`` (see the engine's documentation for the observation format).
"""

from collections import Counter

SAMENESS = (0, 2, 4, 8, 12, 18, 24)
DIFFERENCES = (0, 1, 3, 6, 10, 15, 21)
PYRAMID_POINTS = {"B1": 2, "B2": 2, "B3": 2, "M1": 4, "M2": 4, "T": 7}


def dinos_in(zoo):
    """Every dinosaur of a zoo (pens, Pyramid cells and River): what "your zoo" counts."""
    dinos = list(zoo["river"])
    for contents in zoo["pens"].values():
        if isinstance(contents, dict):  # the Pyramid maps cells to dinosaurs
            dinos.extend(dino for dino in contents.values() if dino)
        else:
            dinos.extend(contents)
    return dinos


def zoo_score(zoos, seat):
    """The score of ``zoos[seat]`` by the printed tables (what the engine reports as ``score``)."""
    zoo = zoos[seat]
    pens = zoo["pens"]
    mine = Counter(dinos_in(zoo))
    points = len(zoo["river"])
    for contents in pens.values():
        present = [d for d in contents.values() if d] if isinstance(contents, dict) else contents
        if "t_rex" in present:
            points += 1  # the T-Rex bonus: one per pen, never for the River
    if "forest_of_sameness" in pens:  # summer side
        points += SAMENESS[len(pens["forest_of_sameness"])]
        points += DIFFERENCES[len(pens["meadow_of_differences"])]
        points += 5 * sum(n // 2 for n in Counter(pens["prairie_of_love"]).values())
        points += 7 if len(pens["woody_trio"]) == 3 else 0
        king = pens["king_of_the_jungle"]
        if king:
            species = king[0]
            others = [Counter(dinos_in(z))[species] for i, z in enumerate(zoos) if i != seat]
            points += 7 if all(mine[species] >= n for n in others) else 0
        island = pens["solitary_island"]
        points += 7 if island and mine[island[0]] == 1 else 0
    else:  # winter side
        points += SAMENESS[len(pens["well_ordered_wood"])]
        left, right = Counter(pens["lovers_bridge_left"]), Counter(pens["lovers_bridge_right"])
        points += 6 * sum(min(n, right[s]) for s, n in left.items())
        points += sum(PYRAMID_POINTS[c] for c, d in pens["pyramid"].items() if d)
        lookout = pens["lookout"]
        if lookout:
            neighbour = zoos[(seat - 1) % len(zoos)]
            points += 2 * Counter(dinos_in(neighbour))[lookout[0]]
    return points


def promise(zoo):
    """Points a pen is likely to pay later but does not pay yet (a rough, hand-tuned guess)."""
    pens = zoo["pens"]
    bonus = 0.0
    if "woody_trio" in pens:
        bonus += {0: 0, 1: 2, 2: 4, 3: 0}[len(pens["woody_trio"])]
        singles = sum(n % 2 for n in Counter(pens["prairie_of_love"]).values())
        bonus += 2 * singles
    else:
        left, right = Counter(pens["lovers_bridge_left"]), Counter(pens["lovers_bridge_right"])
        unmatched = sum(abs(left[s] - right[s]) for s in set(left) | set(right))
        bonus += 2 * unmatched
    return bonus


def with_placement(zoo, dino, to, cell=None, leaving=None):
    """A copy of ``zoo`` with ``dino`` added to ``to`` (and removed from ``leaving`` if given)."""
    pens = {pen: (dict(c) if isinstance(c, dict) else list(c)) for pen, c in zoo["pens"].items()}
    river = list(zoo["river"])
    if leaving:
        pens[leaving].remove(dino)
    if to == "river":
        river.append(dino)
    elif cell is not None:
        pens[to][cell] = dino
    else:
        pens[to].append(dino)
    return {"pens": pens, "river": river}


def value_of(zoos, seat, dino, to, cell=None, leaving=None):
    """Score plus promise of ``zoos[seat]`` after the move."""
    changed = list(zoos)
    changed[seat] = with_placement(zoos[seat], dino, to, cell, leaving)
    return zoo_score(changed, seat) + promise(changed[seat])


class Bot:
    def __init__(self, game, seat, players, options):
        self.seat = seat

    def act(self, observation, legal_actions):
        zoos = observation["zoos"]
        me = observation["you"]
        phase = observation["phase"]
        if phase == "place":
            def placement_value(action):
                return value_of(zoos, me, action["dino"], action["to"], action.get("cell"))
            return max(legal_actions, key=placement_value)  # max keeps the first of equal values
        if phase == "discard":
            opponent = 1 - me
            base = zoo_score(zoos, opponent) + promise(zoos[opponent])

            def help_to_opponent(action):
                dino = action["discard"]
                pens = ("river",) + _pens_taking(zoos[opponent], dino)
                best = max(value_of(zoos, opponent, dino, pen) for pen in pens)
                return best - base
            return max(legal_actions, key=help_to_opponent)
        if phase == "quarantine":
            dino = zoos[me]["pens"]["quarantine_zone"][0]

            def moved_value(action):
                return value_of(zoos, me, dino, action["to"], action.get("cell"), leaving="quarantine_zone")
            return max(legal_actions, key=moved_value)
        return legal_actions[0]


def _pens_taking(zoo, dino):
    """The list pens of ``zoo`` whose own rules take ``dino`` (the Pyramid is left out: a rough guess)."""
    taking = []
    for pen, c in zoo["pens"].items():
        if not isinstance(c, list) or pen == "quarantine_zone":
            continue
        if pen == "forest_of_sameness":
            fits = len(c) < 6 and (not c or c[0] == dino)
        elif pen == "meadow_of_differences":
            fits = dino not in c
        elif pen == "well_ordered_wood":
            fits = not c or (len(c) == 1 and c[0] != dino) or (1 < len(c) < 6 and c[-2] == dino)
        elif pen in ("prairie_of_love", "woody_trio"):
            fits = len(c) < (6 if pen == "prairie_of_love" else 3)
        elif pen.startswith("lovers_bridge"):
            fits = True
        else:
            fits = not c
        if fits:
            taking.append(pen)
    return tuple(taking)
