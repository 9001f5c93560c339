"""The one source of chance engines share: seeded random streams, the same on every machine.

* :class:`Chance` is the only randomness an engine may use. It is built on ``random.Random.random()``
  alone, the one method whose sequence Python promises to keep across versions, so that
  ``(game, players, seed, options, actions)`` replays the same game on any machine.
* :class:`ChanceStreams` derives independent :class:`Chance` streams from a match's seed, one per chance
  event named by its purpose and position (``streams.stream("dice", turn)``). Engines draw each event
  from its own stream, so a player's choice (a re-roll, a longer turn) never shifts the numbers a later,
  unrelated event sees: the same seed means the same luck whatever the players choose ("common random
  numbers"), which is what lets a duplicate tournament cancel the luck of the deal. :class:`StreamBlocks`
  reads one stream as fixed-size blocks, one per event of a series (the dice of each turn of a round).
"""

from __future__ import annotations

import hashlib
import random
import re
from collections.abc import Iterable, MutableSequence, Sequence
from typing import Any, TypeVar

T = TypeVar("T")


class Chance:
    """A seeded source of chance whose sequence is stable across Python versions and platforms.

    Only :meth:`random.Random.random` is guaranteed to produce the same stream everywhere for the same
    seed; ``randrange``, ``choice`` and ``shuffle`` have changed between releases. Every helper here is
    derived from ``random()`` by a fixed formula, so engines get reproducible dice, draws and shuffles.
    """

    __slots__ = ("_rng",)

    def __init__(self, seed: int) -> None:
        check_seed(seed)
        self._rng = random.Random(seed)

    def random(self) -> float:
        """A float in [0, 1)."""
        return self._rng.random()

    def below(self, n: int) -> int:
        """An integer in ``range(n)``, as ``int(random() * n)``; ``n`` must be positive."""
        if n <= 0:
            raise ValueError(f"below() needs a positive bound, got {n}")
        return int(self._rng.random() * n)

    def die(self, sides: int = 6) -> int:
        """A die roll from 1 to ``sides``."""
        return 1 + self.below(sides)

    def dice(self, count: int, sides: int = 6) -> list[int]:
        """``count`` die rolls: the same values as ``count`` calls of :meth:`die`, drawn faster."""
        draw = self._rng.random
        return [1 + int(draw() * sides) for _ in range(count)]

    def randoms(self, count: int) -> list[float]:
        """The next ``count`` floats of :meth:`random`, as a list."""
        draw = self._rng.random
        return [draw() for _ in range(count)]

    def choice(self, items: Sequence[T]) -> T:
        """One element of a non-empty sequence."""
        return items[self.below(len(items))]

    def shuffle(self, items: MutableSequence[Any]) -> None:
        """Shuffle in place with an explicit Fisher-Yates pass from the last index down."""
        for i in range(len(items) - 1, 0, -1):
            j = self.below(i + 1)
            items[i], items[j] = items[j], items[i]

    def shuffled(self, items: Iterable[T]) -> list[T]:
        """A shuffled copy of ``items`` as a list."""
        result = list(items)
        self.shuffle(result)
        return result

    def getstate(self) -> Any:
        return self._rng.getstate()

    def setstate(self, state: Any) -> None:
        self._rng.setstate(state)

    def __deepcopy__(self, memo: dict) -> Chance:
        twin = Chance.__new__(Chance)
        twin._rng = random.Random()
        twin._rng.setstate(self._rng.getstate())
        return twin


class ChanceStreams:
    """The chance of one match: independent :class:`Chance` streams derived from its seed.

    ``stream(purpose, *position)`` is a fresh stream, the same one every time it is asked for with the
    same seed, purpose and position, and unrelated to every other: its seed is :func:`stream_seed`, a
    BLAKE2b hash of the canonical encoding of the three, so the numbers are the same on every machine and
    Python version (the stream itself is :class:`Chance`, built on ``random()`` alone).

    The contract an engine keeps: each chance event (a shuffle at setup, the dice of a turn, the tile of
    a draw) is drawn from a stream named by what it is for (``purpose``, a lower-case identifier such as
    ``"deck"`` or ``"dice"``) and where it happens (``position``, integers such as the game, round, turn,
    roll or draw number). A stream may serve a sequence of events only where the rules fix how many
    numbers each of them takes and in which order, whatever the players choose (the 18 throws of a
    turn's dice, one number per die and throw). So no choice can change which numbers a later, unrelated
    event sees. Each engine documents the streams it uses.

    The object is immutable (copies and clones share it).
    """

    __slots__ = ("_seed",)

    def __init__(self, seed: int) -> None:
        check_seed(seed)
        self._seed = seed

    @property
    def seed(self) -> int:
        """The match's seed, from which every stream derives."""
        return self._seed

    def stream(self, purpose: str, *position: int) -> Chance:
        """The stream of the chance event ``purpose`` at ``position``; ``ValueError`` for a bad name."""
        chance = Chance.__new__(Chance)
        chance._rng = random.Random(_derive(self._seed, purpose, position))
        return chance

    def __copy__(self) -> ChanceStreams:
        return self

    def __deepcopy__(self, memo: dict) -> ChanceStreams:
        return self

    def __eq__(self, other: object) -> bool:
        return isinstance(other, ChanceStreams) and other._seed == self._seed

    def __hash__(self) -> int:
        return hash(("ChanceStreams", self._seed))

    def __repr__(self) -> str:
        return f"ChanceStreams({self._seed})"


class StreamBlocks:
    """A stream read as consecutive blocks of ``size`` numbers: ``block(i)`` is numbers ``size * i`` to
    ``size * (i + 1) - 1`` of it (floats in [0, 1), as :meth:`Chance.random` gives them).

    For events that come in a fixed order but need not all happen (the dice of each turn of a round, the
    tiles of each draw): one stream serves them all, and each event reads its own block whatever happened
    before. Blocks are drawn in order as far as they are asked for and then kept, so a block holds the same
    numbers whoever asks first, and a state and its copies can share one object.
    """

    __slots__ = ("_numbers", "_stream", "size")

    def __init__(self, stream: Chance, size: int) -> None:
        if size <= 0:
            raise ValueError(f"blocks need a positive size, got {size}")
        self._stream = stream
        self._numbers: list[float] = []
        self.size = size

    def block(self, index: int) -> list[float]:
        """The ``index``-th block (from 0), as a new list."""
        if index < 0:
            raise ValueError(f"no block {index}")
        start, end = index * self.size, (index + 1) * self.size
        numbers = self._numbers
        if len(numbers) < end:
            numbers.extend(self._stream.randoms(end - len(numbers)))
        return numbers[start:end]


#: A purpose is a lower-case identifier, so that the encoding below is unambiguous.
_PURPOSE = re.compile(r"[a-z][a-z0-9_]*\Z")
#: BLAKE2b's personalisation: these hashes mean nothing elsewhere. The trailing 1 versions the encoding.
_STREAM_PERSON = b"engines.stream.1"


def stream_seed(seed: int, purpose: str, *position: int) -> int:
    """The seed of stream ``(purpose, *position)`` of the match dealt from ``seed``: a 128-bit integer.

    The encoding is canonical: the decimal texts of ``seed``, ``purpose`` and each position joined by
    ``:`` in ASCII (``"42:dice:7:2"``), hashed with BLAKE2b (16-byte digest, personalisation
    ``engines.stream.1``) and read as a big-endian integer. Different names give different texts, since no
    part contains ``:``. Raises ``ValueError`` unless ``seed`` and every position are integers (not
    booleans) and ``purpose`` is a lower-case identifier.
    """
    check_seed(seed)
    return _derive(seed, purpose, position)


def _derive(seed: int, purpose: str, position: tuple) -> int:
    """:func:`stream_seed` for a seed already checked (streams are asked for often: keep it lean)."""
    if type(purpose) is not str or purpose not in _PURPOSES_SEEN:
        if type(purpose) is not str or not _PURPOSE.match(purpose):
            raise ValueError(f"a stream's purpose is a lower-case identifier, got {purpose!r}")
        _PURPOSES_SEEN.add(purpose)
    for part in position:
        if type(part) is not int:
            if isinstance(part, bool) or not isinstance(part, int):
                raise ValueError(f"a stream's position is made of integers, got {part!r}")
            position = tuple(int(item) for item in position)  # an int subclass: its plain value
            break
    text = ":".join((str(seed), purpose, *map(str, position)))
    return int.from_bytes(_blake2b(text.encode("ascii"), digest_size=16, person=_STREAM_PERSON).digest(), "big")


_blake2b = hashlib.blake2b
#: Purposes already checked (a handful per engine), so that the check costs one lookup per stream.
_PURPOSES_SEEN: set[str] = set()


def check_seed(seed: Any) -> None:
    """Raise ``ValueError`` unless ``seed`` is an integer (``True`` is not a seed)."""
    if isinstance(seed, bool) or not isinstance(seed, int):
        # The engines' contract promises ValueError for every bad argument, whatever its kind.
        raise ValueError(f"seed must be an integer, got {seed!r}")  # noqa: TRY004
