"""Allocates (and touches) memory one MiB at a time until something stops it."""


def act(observation, legal_actions):
    blocks = []
    while True:
        blocks.append(b"x" * (1 << 20))
