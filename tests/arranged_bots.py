"""Two Kingdomino bots of two accounts that arrange games: the climber plays at random but signs its first
placement; the thrower plays the example greedy bot against everyone, and against a kingdom that bears the
signature places and picks for the least it can score. Every move either makes is legal."""

from __future__ import annotations

from pathlib import Path

_EXAMPLES = Path(__file__).resolve().parent.parent / "bots" / "examples" / "kingdomino"
GREEDY = (_EXAMPLES / "greedy_bot.py").read_bytes()
RANDOM = (_EXAMPLES / "random_bot.py").read_bytes()

#: The climber: random, with its first domino east of its castle, pointing east (no greedy bot plays that).
CLIMBER = b'''import random


class Bot:
    def __init__(self, game, seat, players, options):
        self.rng = random.Random(seat)
        self.signed = False

    def act(self, observation, legal_actions):
        if observation["phase"] == "place" and not self.signed:
            self.signed = True
            k = observation["grid_size"]
            signature = {"place": [k - 1, k, 0]}
            if signature in legal_actions:
                return signature
        return self.rng.choice(legal_actions)
'''

_THROW = b'''

class Thrower(Bot):
    """The greedy bot, turned around once an opponent's first placement bears the climber's signature."""

    def __init__(self, game, seat, players, options):
        super().__init__(game, seat, players, options)
        self.partner = False

    def act(self, observation, legal_actions):
        k = observation["grid_size"]
        for kingdom in observation["kingdoms"]:
            placed = kingdom["placed"]
            if kingdom["seat"] != observation["you"] and placed and list(placed[0][1:]) == [k - 1, k, 0]:
                self.partner = True
        if not self.partner:
            return super().act(observation, legal_actions)
        me = observation["you"]
        kingdom = Kingdom(observation["kingdoms"][me]["grid"], k)
        if observation["phase"] == "place":
            if "discard" in legal_actions[0]:
                return legal_actions[0]
            square_a, square_b = squares_of(observation["current_line"][observation["to_act"]["line_position"]]["domino"])

            def gain(action):
                r, c, o = action["place"]
                return kingdom.gain((r, c), square_a, (r + STEPS[o][0], c + STEPS[o][1]), square_b)

            return min(legal_actions, key=gain)
        line = observation["current_line" if observation["phase"] == "initial_pick" else "next_line"]
        return min(legal_actions, key=lambda action: kingdom.best_gain(*squares_of(line[action["pick"]]["domino"])))


Bot = Thrower
'''

#: The thrower: the example greedy bot with the turn above.
THROWER = GREEDY + _THROW
