"""Asks numpy for 8 GiB of ones (numpy is an allowed package)."""
import numpy


def act(observation, legal_actions):
    block = numpy.ones(8 * 1024**3, dtype=numpy.uint8)
    return legal_actions[int(block[0]) % len(legal_actions)]
