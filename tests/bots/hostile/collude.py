"""Both seats run this: each looks for the other through an abstract Unix socket and the /tmp folder."""
import os
import socket
import time

NAME = b"\0botladder-collusion"
attacked = False
kept = []  # the listening socket stays open for the rest of the match


def act(observation, legal_actions):
    global attacked
    if attacked:
        return legal_actions[0]
    attacked = True
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        listener.bind(NAME)
        listener.listen()
        kept.append(listener)
        print("bound", flush=True)
    except OSError as exc:
        print("ESCAPED: the other bot's socket is visible:", exc, flush=True)
    with open("/tmp/collusion-marker", "w") as handle:
        handle.write(str(os.getpid()))
    time.sleep(0.1)
    probe = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    probe.settimeout(0.1)
    try:
        probe.connect(NAME)
        print("connected to own socket only", flush=True)
    except OSError as exc:
        print("refused", exc, flush=True)
    return legal_actions[0]
