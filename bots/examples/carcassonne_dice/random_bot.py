"""A random bot for Carcassonne: The Dice Game: every decision is a uniformly random legal action.

It is the baseline the other bots are measured against, and the smallest possible example of the bot
protocol: a class ``Bot`` whose ``act`` returns one element of ``legal_actions``.
"""

import random


class Bot:
    def __init__(self, game, seat, players, options):
        # Seeded by the seat, so a match replays the same way every time it is run.
        self.rng = random.Random(seat)

    def act(self, observation, legal_actions):
        return self.rng.choice(legal_actions)
