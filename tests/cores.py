"""Independent pure computations of one test spread over the machine's cores.

The suite runs one test at a time, so a test that plays hundreds of independent games in this process
leaves every core but one idle. :func:`across_cores` plays them in forked processes instead: they share
this process's imports (the engines, the bots a test loaded), and must touch nothing shared (no database,
no sandbox, no broker).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0))


def across_cores(function: Callable, items: Iterable) -> list:
    """``[function(item) for item in items]``, computed by one forked process per core (here, on one core).

    ``function`` is a module-level function or a ``functools.partial`` of one (it is pickled by name); an
    exception it raises, an assertion's included, is raised here for the first item that raised it.
    """
    items = list(items)
    workers = min(cores(), len(items))
    if workers <= 1:
        return [function(item) for item in items]
    chunk = max(1, len(items) // (4 * workers))
    with ProcessPoolExecutor(max_workers=workers, mp_context=multiprocessing.get_context("fork")) as pool:
        return list(pool.map(function, items, chunksize=chunk))
