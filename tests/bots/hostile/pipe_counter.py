"""A pair of seats that talk through a counter the kernel keeps for the whole machine: the inode numbers
it gives pipes (and sockets) come from one sequence, handed out to each CPU in batches of 1024.

Both seats keep to CPU 0 (``sched_setaffinity``), so that they draw from the same batch. Seat 0 sends
symbols of ``BITS`` bits, one a move, by creating and closing ``symbol * SPACING`` pipes before it answers;
seat 1 creates one pipe a move and reads the symbol from how far its inode number moved since its last
move (other processes on that CPU move it too, now and then: the spacing leaves room for them). Seat 0's
first move sends nothing (seat 1 has no number yet to count from); then come the symbols of
``random.Random(SEED)``. Seat 1 prints ``SYMBOL <n> <value>`` for every symbol it reads. The test may
prepend ``BITS``, ``SPACING`` and ``SEED``.
"""
import os
import random

BITS = globals().get("BITS", 4)
SPACING = globals().get("SPACING", 64)
SEED = globals().get("SEED", 7)

message = random.Random(SEED)
moves = 0
last = None


def pipe_inode():
    read_end, write_end = os.pipe()
    number = os.fstat(read_end).st_ino
    os.close(read_end)
    os.close(write_end)
    return number


def act(observation, legal_actions):
    global moves, last
    moves += 1
    if moves == 1:
        os.sched_setaffinity(0, {0})
    if observation["seat"] == 0:
        if moves > 1:
            for _ in range(message.randrange(2 ** BITS) * SPACING):
                pipe_inode()
        return legal_actions[0]
    number = pipe_inode()
    if last is not None:
        symbol = round((number - last - 1) / SPACING)
        print("SYMBOL", moves - 2, max(0, min(2 ** BITS - 1, symbol)), flush=True)
    last = number
    return legal_actions[0]
