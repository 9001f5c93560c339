"""Writes outside its folder: the host path the test watches, its own code, the root; fills /tmp."""

# HOST_TARGET is defined by the test above this line.
TARGETS = [HOST_TARGET, "/bot/pwned", "/pwned", "/usr/lib/pwned", "/dev/pwned"]  # noqa: F821


attacked = False


def act(observation, legal_actions):
    global attacked
    if attacked:
        return legal_actions[0]
    attacked = True
    for path in TARGETS:
        try:
            with open(path, "w") as handle:
                handle.write("pwned")
            print("ESCAPED wrote", path, flush=True)
        except OSError as exc:
            print("refused", path, exc, flush=True)
    with open("/tmp/scratch", "w") as handle:
        handle.write("a private scratch file is fine")
    try:
        with open("/tmp/big", "wb") as handle:
            handle.writelines(b"x" * (1 << 20) for _ in range(64))
        print("ESCAPED wrote 64 MiB to /tmp", flush=True)
    except OSError as exc:
        print("tmp is capped:", exc, flush=True)
    return legal_actions[0]
