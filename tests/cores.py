"""Independent pure computations of a test spread over the machine's cores.

The suite runs one test at a time, so a test that plays hundreds of independent games in this process
leaves every core but one idle. :class:`Cores` plays them in forked processes instead: they share this
process's imports (the engines, the bots a test loaded) as they were when the processes were forked, and
must touch nothing shared (no database, no sandbox, no broker).
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable, Iterable
from concurrent.futures import ProcessPoolExecutor


def cores() -> int:
    """The cores this process may run on."""
    return len(os.sched_getaffinity(0))


class Cores:
    """One forked process per core (none on one core), kept for many :meth:`map` calls: a module of small
    tests shares one set instead of forking for each test."""

    def __init__(self) -> None:
        self._pool = None
        if cores() > 1:
            self._pool = ProcessPoolExecutor(max_workers=cores(), mp_context=multiprocessing.get_context("fork"))

    def map(self, function: Callable, items: Iterable) -> list:
        """``[function(item) for item in items]``, the items computed side by side.

        ``function`` is a module-level function or a ``functools.partial`` of one (it is pickled by name);
        an exception it raises, an assertion's included, is raised here (the first item's, in order, that
        raised one), with the traceback of the process it was raised in.
        """
        items = list(items)
        if self._pool is None or len(items) <= 1:
            return [function(item) for item in items]
        chunk = max(1, len(items) // (4 * cores()))
        return list(self._pool.map(function, items, chunksize=chunk))

    def close(self) -> None:
        if self._pool is not None:
            self._pool.shutdown(cancel_futures=True)

    def __enter__(self) -> Cores:
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()


def across_cores(function: Callable, items: Iterable) -> list:
    """``[function(item) for item in items]``, computed by processes forked for this call (:class:`Cores`)."""
    with Cores() as pool:
        return pool.map(function, items)
