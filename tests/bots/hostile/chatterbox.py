"""Prints 50 MB to its log, then plays normally."""
import sys

attacked = False


def act(observation, legal_actions):
    global attacked
    if attacked:
        return legal_actions[0]
    attacked = True
    line = "chatter " * 127 + "\n"
    for _ in range(50 * 1024 * 1024 // len(line)):
        sys.stdout.write(line)
    print("END OF CHATTER", flush=True)
    return legal_actions[0]
