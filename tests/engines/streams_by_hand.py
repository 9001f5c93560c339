"""The chance streams of ``engines.chance.ChanceStreams`` written out independently of the engines, for
tests that compute a deal by hand, and a recorder of the streams a state asks for.

``stream_rng(seed, purpose, *position)`` is the ``random.Random`` of that stream (BLAKE2b of the canonical
text, as the contract states), ``fisher_yates`` the shuffle every engine uses, ``below`` an integer in
``range(n)``. ``RecordingStreams`` stands in for a state's ``streams`` and lists every stream asked for.
"""

from __future__ import annotations

import hashlib
import random

from engines import ChanceStreams


def stream_rng(seed: int, purpose: str, *position: int) -> random.Random:
    text = ":".join(str(part) for part in (seed, purpose, *position))
    digest = hashlib.blake2b(text.encode("ascii"), digest_size=16, person=b"engines.stream.1").digest()
    return random.Random(int.from_bytes(digest, "big"))


def below(rng: random.Random, n: int) -> int:
    return int(rng.random() * n)


def fisher_yates(rng: random.Random, items) -> list:
    items = list(items)
    for i in range(len(items) - 1, 0, -1):
        j = below(rng, i + 1)
        items[i], items[j] = items[j], items[i]
    return items


class RecordingStreams(ChanceStreams):
    """The streams of ``seed``, noting each ``(purpose, *position)`` asked for in ``asked``."""

    __slots__ = ("asked",)

    def __init__(self, seed: int) -> None:
        super().__init__(seed)
        self.asked: list[tuple] = []

    def stream(self, purpose: str, *position: int):
        self.asked.append((purpose, *position))
        return super().stream(purpose, *position)

    def __deepcopy__(self, memo: dict) -> RecordingStreams:
        return self
