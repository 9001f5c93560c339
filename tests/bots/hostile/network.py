"""Tries every way out to the network: PostgreSQL, Redis and the test's own listener, over TCP and UDP."""
import socket

# PORT (a TCP listener) and UDP_PORT (a UDP socket) are defined by the test above this line.
TCP_TARGETS = [("127.0.0.1", 5432), ("127.0.0.1", 6379), ("127.0.0.1", PORT), ("0.0.0.0", PORT),  # noqa: F821
               ("::1", PORT)]  # noqa: F821
UDP_TARGETS = [("127.0.0.1", UDP_PORT), ("::1", UDP_PORT)]  # noqa: F821


def attempt(family, kind, address):
    try:
        with socket.socket(family, kind) as sock:
            sock.settimeout(0.2)
            if kind == socket.SOCK_STREAM:
                sock.connect(address)
            else:
                sock.sendto(b"hello", address)
        print("ESCAPED", family, kind, address, flush=True)
    except OSError as exc:
        print("refused", address, exc, flush=True)


attacked = False


def act(observation, legal_actions):
    global attacked
    if attacked:
        return legal_actions[0]
    attacked = True
    for host, port in TCP_TARGETS:
        attempt(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_STREAM, (host, port))
    for host, port in UDP_TARGETS:
        attempt(socket.AF_INET6 if ":" in host else socket.AF_INET, socket.SOCK_DGRAM, (host, port))
    try:
        socket.create_connection(("example.com", 80), timeout=0.2)
        print("ESCAPED dns+tcp", flush=True)
    except OSError as exc:
        print("refused example.com", exc, flush=True)
    return legal_actions[0]
