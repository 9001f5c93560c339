"""Lets hypothesis-jsonschema (used by schemathesis to generate request bodies) run on current Hypothesis.

hypothesis-jsonschema 0.23.1, its newest release, still drives Hypothesis' internal ``many`` helper with
the old ``while elements.more(): ...`` loop; Hypothesis 6.170 replaced it with a context manager that is
iterated. ``install()`` adds ``more()`` back, written on top of the new protocol, and does nothing on a
Hypothesis that still has it.
"""

from __future__ import annotations

from hypothesis.internal.conjecture import utils


def _more(self) -> bool:
    if not hasattr(self, "_legacy_steps"):
        self.__enter__()
        self._legacy_steps = iter(self)
    try:
        next(self._legacy_steps)
    except StopIteration:
        self.__exit__(None)
        return False
    return True


def install() -> None:
    if not hasattr(utils.many, "more"):
        utils.many.more = _more
