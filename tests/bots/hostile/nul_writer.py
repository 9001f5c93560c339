"""Prints NUL characters to its log and dies with one in its error: PostgreSQL refuses NUL in text, so
an unsanitised log or reason would make the match impossible to record."""

import sys


def act(observation, legal_actions):
    print("before\x00after")
    sys.stdout.flush()
    raise RuntimeError("bad\x00byte")
