"""Lists everything it can read: every folder it can list, every file it can open, every symlink.

It walks / without following symlinks and prints one line, ``INVENTORY <base64 of zlib of JSON>``, with
the sorted lists, for the test to compare with what the policy allows.
"""
import base64
import json
import os
import zlib

done = False


def inventory():
    folders, files, links, refused = [], [], {}, []

    def record_refusal(error):
        refused.append(getattr(error, "filename", None) or str(error))

    for root, dirs, names in os.walk("/", onerror=record_refusal):
        folders.append(root)
        for name in list(dirs):
            path = os.path.join(root, name)
            if os.path.islink(path):
                links[path] = os.readlink(path)  # os.walk does not descend into it
        for name in names:
            path = os.path.join(root, name)
            if os.path.islink(path):
                links[path] = os.readlink(path)
                continue
            try:
                with open(path, "rb"):
                    pass
            except OSError:
                refused.append(path)
            else:
                files.append(path)
    return {"folders": sorted(folders), "files": sorted(files), "links": links, "refused": sorted(refused)}


def act(observation, legal_actions):
    global done
    if not done:
        done = True
        packed = zlib.compress(json.dumps(inventory()).encode(), 9)
        print("INVENTORY", base64.b64encode(packed).decode(), flush=True)
    return legal_actions[0]
