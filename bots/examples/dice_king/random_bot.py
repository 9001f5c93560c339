"""A King of the Dice bot that plays a uniformly random legal action.

The simplest possible bot, and the template to start from: the ladder creates one ``Bot`` per seat and
match, then calls ``act`` for every decision with the seat's observation and the list of legal actions.
``act`` must return one element of that list. Only the standard library (and numpy and orjson) is available.
"""

import random


class Bot:
    def __init__(self, game, seat, players, options):
        # Seeded, so a match between the same bots replays identically; the seat keeps two random bots
        # in one match from mirroring each other.
        self.rng = random.Random(seat)

    def act(self, observation, legal_actions):
        return self.rng.choice(legal_actions)
