"""A Draftosaurus bot that picks uniformly among the legal actions.

It is the baseline every other bot should beat, and the smallest complete example of the bot protocol:
a class ``Bot`` built once per match with the game, its seat, the number of players and the options,
whose ``act`` receives the seat's observation and the list of legal actions and returns one of them.
"""

import random


class Bot:
    def __init__(self, game, seat, players, options):
        # Seeded from the seat so that a match replays the same way; no other state is needed.
        self.rng = random.Random(seat)

    def act(self, observation, legal_actions):
        return self.rng.choice(legal_actions)
