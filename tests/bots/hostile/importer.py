"""Imports every extension module of the standard library and the allowed packages, and uses them."""
import importlib
import os
import sysconfig

done = False


def act(observation, legal_actions):
    global done
    if done:
        return legal_actions[0]
    done = True
    folder = sysconfig.get_config_var("DESTSHARED")
    names = sorted({entry.split(".")[0] for entry in os.listdir(folder) if entry.endswith(".so")})
    failed = []
    for name in names:
        try:
            importlib.import_module(name)
        except Exception as exc:  # noqa: BLE001 - every failure is reported
            failed.append(f"{name}: {type(exc).__name__}: {exc}")
    import numpy
    import numpy.linalg
    import orjson

    inverse = numpy.linalg.inv(numpy.array([[2.0, 0.0], [0.0, 4.0]]))
    checks = [float(inverse[1][1]) == 0.25, orjson.loads(orjson.dumps({"a": [1, 2]})) == {"a": [1, 2]}]
    print("imported", len(names) - len(failed), "of", len(names), flush=True)
    for line in failed:
        print("FAILED", line, flush=True)
    print("checks", "ok" if all(checks) else checks, flush=True)
    return legal_actions[0]
