"""Looks for the project's settings, environment variables, other processes and the other bot's code."""
import os

# PROJECT_FILES, OTHER_BOT_MARKER and CACHE_ROOT are defined by the test above this line.


attacked = False


def act(observation, legal_actions):
    global attacked
    if attacked:
        return legal_actions[0]
    attacked = True
    if os.environ:
        print("ESCAPED environment", dict(os.environ), flush=True)
    extra = ["/proc/1/environ", "/proc/self/environ", "/proc/1/cmdline", "/etc/passwd", CACHE_ROOT]  # noqa: F821
    for path in PROJECT_FILES + extra:  # noqa: F821
        try:
            if os.path.isdir(path):
                print("ESCAPED listed", path, os.listdir(path)[:5], flush=True)
            else:
                with open(path, "rb") as handle:
                    print("ESCAPED read", path, handle.read(40), flush=True)
        except OSError as exc:
            print("refused", path, exc, flush=True)
    if os.path.isdir("/proc"):
        print("ESCAPED /proc is visible", os.listdir("/proc")[:10], flush=True)
    # Search everything readable for the other bot's code.
    for root, dirs, files in os.walk("/"):
        if root.startswith("/bot"):
            continue  # its own code holds the marker it searches for
        for name in files:
            if name != "bot.py" and len(os.path.basename(root)) != 64:
                continue  # the other bot is a bot.py, in a folder named by its sha256 on the host
            path = os.path.join(root, name)
            try:
                with open(path, "rb") as handle:
                    if OTHER_BOT_MARKER.encode() in handle.read(1 << 20):  # noqa: F821
                        print("ESCAPED found the other bot in", path, flush=True)
            except OSError:
                pass
    print("visible top level:", sorted(os.listdir("/")), flush=True)
    return legal_actions[0]
