"""A Kingdomino bot that takes the best immediate score, and picks the domino that would score best next.

It reads everything from the observation (see the ``engines.kingdomino`` docstring for its fields):

* ``place``: try every legal placement on your own grid and keep the one that raises your score most
  (score = sum over properties of squares x crowns). Ties go to placements that join more squares of
  the same terrain and keep the kingdom's bounding box small, which leaves room for later dominoes.
* ``pick`` and ``initial_pick``: for each free domino of the line being claimed, find the best gain it
  would give if placed in your kingdom as it stands; take the best, the earlier position on a tie (an
  earlier position also means acting earlier next round).

Only the standard library is used, as in the sandbox.
"""

LETTER = {"wheat": "W", "forest": "F", "lake": "L", "grassland": "G", "swamp": "S", "mine": "M"}
# Direction o of a placement as (row step, column step): 0 east, 1 south, 2 west, 3 north.
STEPS = ((0, 1), (1, 0), (0, -1), (-1, 0))
# What a domino that cannot be placed at all is worth to us: it will be discarded.
UNPLACEABLE = -3


class Kingdom:
    """Your grid from the observation, with its properties labelled so that gains are cheap to compute."""

    def __init__(self, grid, grid_size):
        self.grid = grid
        self.size = len(grid)
        self.k = grid_size
        cells = [(r, c) for r in range(self.size) for c in range(self.size) if grid[r][c]]
        rows = [r for r, _ in cells]
        cols = [c for _, c in cells]
        self.box = (min(rows), max(rows), min(cols), max(cols))
        self._label_properties()

    def terrain(self, r, c):
        """The terrain letter at (r, c): "" empty or off the frame, "C" castle."""
        if 0 <= r < self.size and 0 <= c < self.size:
            return self.grid[r][c][:1]
        return ""

    def _label_properties(self):
        """Give each property (same-terrain squares joined edge to edge) an id, its size and crowns."""
        self.label = {}
        self.squares, self.crowns = [], []
        for r in range(self.size):
            for c in range(self.size):
                t = self.terrain(r, c)
                if t in ("", "C") or (r, c) in self.label:
                    continue
                ident = len(self.squares)
                self.label[(r, c)] = ident
                stack, squares, crowns = [(r, c)], 0, 0
                while stack:
                    cr, cc = stack.pop()
                    squares += 1
                    crowns += int(self.grid[cr][cc][1:])
                    for dr, dc in STEPS:
                        q = (cr + dr, cc + dc)
                        if q not in self.label and self.terrain(*q) == t:
                            self.label[q] = ident
                            stack.append(q)
                self.squares.append(squares)
                self.crowns.append(crowns)

    def _joined(self, cells, letter):
        """The ids of the properties of terrain ``letter`` that touch any of ``cells``."""
        found = set()
        for r, c in cells:
            for dr, dc in STEPS:
                q = (r + dr, c + dc)
                if self.terrain(*q) == letter:
                    found.add(self.label[q])
        return found

    def gain(self, a, square_a, b, square_b):
        """Score increase of putting square_a = (letter, crowns) on cell a and square_b on cell b."""
        if square_a[0] == square_b[0]:
            groups = [([a, b], square_a[0], square_a[1] + square_b[1])]
        else:
            groups = [([a], square_a[0], square_a[1]), ([b], square_b[0], square_b[1])]
        total = 0
        for cells, letter, new_crowns in groups:
            joined = self._joined(cells, letter)
            squares = len(cells) + sum(self.squares[i] for i in joined)
            crowns = new_crowns + sum(self.crowns[i] for i in joined)
            total += squares * crowns - sum(self.squares[i] * self.crowns[i] for i in joined)
        return total

    def neatness(self, a, square_a, b, square_b):
        """Tie-breaker: more same-terrain (or castle) contacts, then a smaller bounding box."""
        contacts = 0
        for (r, c), letter in ((a, square_a[0]), (b, square_b[0])):
            for dr, dc in STEPS:
                if self.terrain(r + dr, c + dc) in (letter, "C"):
                    contacts += 1
        r0, r1, c0, c1 = self.box
        rows = [r0, r1, a[0], b[0]]
        cols = [c0, c1, a[1], b[1]]
        area = (max(rows) - min(rows) + 1) * (max(cols) - min(cols) + 1)
        return contacts, -area

    def connects(self, a, square_a, b, square_b):
        """Rule KD-4.4: a square touches the castle or the same terrain (the other new square aside)."""
        for (r, c), letter in ((a, square_a[0]), (b, square_b[0])):
            for dr, dc in STEPS:
                if self.terrain(r + dr, c + dc) in (letter, "C"):
                    return True
        return False

    def placements(self, square_a, square_b):
        """Every legal (cell a, cell b) for a domino (rules KD-4.2 to KD-4.4).

        A legal domino has a square next to an occupied cell, so only the empty cells along the edge of
        the kingdom are tried, each with its empty neighbours, in both orders.
        """
        r0, r1, c0, c1 = self.box
        span = self.k - 1
        rows = range(max(r1 - span, 0), min(r0 + span, self.size - 1) + 1)
        cols = range(max(c1 - span, 0), min(c0 + span, self.size - 1) + 1)
        found = set()
        for x in self.edge_cells(rows, cols):
            for dr, dc in STEPS:
                y = (x[0] + dr, x[1] + dc)
                if y[0] in rows and y[1] in cols and not self.grid[y[0]][y[1]]:
                    for a, b in ((x, y), (y, x)):
                        if self.connects(a, square_a, b, square_b):
                            found.add((a, b))
        return sorted(found)

    def edge_cells(self, rows, cols):
        """The empty cells inside the window that touch an occupied cell."""
        edge = []
        for r in rows:
            for c in cols:
                if not self.grid[r][c] and any(self.terrain(r + dr, c + dc) for dr, dc in STEPS):
                    edge.append((r, c))
        return edge

    def best_gain(self, square_a, square_b):
        options = self.placements(square_a, square_b)
        if not options:
            return UNPLACEABLE
        return max(self.gain(a, square_a, b, square_b) for a, b in options)


def squares_of(domino):
    """A domino's two squares as (terrain letter, crowns)."""
    return (LETTER[domino["a"][0]], domino["a"][1]), (LETTER[domino["b"][0]], domino["b"][1])


class Bot:
    """The ladder makes one Bot per seat and match and calls ``act`` for each of that seat's decisions."""

    def __init__(self, game, seat, players, options):
        self.seat = seat

    def act(self, observation, legal_actions):
        """Return one element of ``legal_actions``: the phase says whether to place or to pick."""
        me = observation["you"]
        kingdom = Kingdom(observation["kingdoms"][me]["grid"], observation["grid_size"])
        if observation["phase"] == "place":
            return self.place(observation, kingdom, legal_actions)
        line = observation["current_line" if observation["phase"] == "initial_pick" else "next_line"]
        return self.pick(line, kingdom, legal_actions)

    def place(self, observation, kingdom, legal_actions):
        """The placement with the largest immediate gain (a discard when it is the only action)."""
        if "discard" in legal_actions[0]:
            return legal_actions[0]
        position = observation["to_act"]["line_position"]
        square_a, square_b = squares_of(observation["current_line"][position]["domino"])

        def value(action):
            r, c, o = action["place"]
            a, b = (r, c), (r + STEPS[o][0], c + STEPS[o][1])
            return (kingdom.gain(a, square_a, b, square_b),) + kingdom.neatness(a, square_a, b, square_b)

        # max() keeps the first of equal values, and legal actions come in a fixed order: deterministic.
        return max(legal_actions, key=value)

    def pick(self, line, kingdom, legal_actions):
        """The free domino of ``line`` that would score best in the kingdom as it stands."""

        def value(action):
            domino = line[action["pick"]]["domino"]
            square_a, square_b = squares_of(domino)
            return kingdom.best_gain(square_a, square_b), -action["pick"]

        return max(legal_actions, key=value)
