"""A pair of seats that talk through the one thing the sandbox cannot hide from a bot: the clock.

Seat 0 sends symbols of ``BITS`` bits, one a move, by thinking ``symbol * STEP_MS`` milliseconds before it
answers; seat 1, paused meanwhile, reads each from the time that passed between its last answer and its
next question. Seat 0's first moves send nothing (they think 0 ms): seat 1 learns from them what a move
costs that carries no thought (the referee's and the pauses' own time; delays only ever add to it, so it
keeps the least). Then come the symbols of ``random.Random(SEED)``. Seat 1 prints ``SYMBOL <n> <value>``
for every symbol it reads. The test may prepend ``BITS``, ``STEP_MS`` and ``SEED``.
"""
import math
import random
import time

BITS = globals().get("BITS", 4)
STEP_MS = globals().get("STEP_MS", 20.0)
SEED = globals().get("SEED", 7)
# Seat 0's moves that think nothing: the first (seat 1 cannot time it) and those seat 1 calibrates on.
SILENT_MOVES = 5

message = random.Random(SEED)
moves = 0
last_answer = None
zero_ms = math.inf


def act(observation, legal_actions):
    global moves, last_answer, zero_ms
    moves += 1
    if observation["seat"] == 0:
        if moves > SILENT_MOVES:
            time.sleep(message.randrange(2 ** BITS) * STEP_MS / 1000)
        return legal_actions[0]
    asked = time.perf_counter()
    if last_answer is not None:
        waited_ms = (asked - last_answer) * 1000
        if moves <= SILENT_MOVES:
            zero_ms = min(zero_ms, waited_ms)
        else:
            # Delays only add: a symbol is read down unless it is most of a step late.
            symbol = math.floor((waited_ms - zero_ms) / STEP_MS + 0.25)
            print("SYMBOL", moves - SILENT_MOVES - 1, max(0, min(2 ** BITS - 1, symbol)), flush=True)
    last_answer = time.perf_counter()
    return legal_actions[0]
