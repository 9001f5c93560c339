"""Allocates 8 GiB at once."""


def act(observation, legal_actions):
    block = bytearray(8 * 1024**3)
    return legal_actions[len(block) % len(legal_actions)]
