"""The contract every game engine fulfils, and the one source of chance they share.

An engine is a package under ``engines/`` that defines a :class:`Game` subclass and registers an
instance of it with :func:`engines.register`. Everything above the engines (the referee, the workers,
the site, the bots) talks to games only through the methods declared here:

* :class:`Game` describes a game (name, title, player range, options) and deals new states.
* :class:`State` is one position of one match. It is mutated by :meth:`State.apply`; every other method
  only reads it. Actions, observations and views are plain JSON values (dicts, lists, strings, numbers,
  booleans, ``None``), so they cross process boundaries and are stored as they are.
* :class:`IllegalAction` is raised by ``apply`` for anything that is not in ``legal_actions()``; the
  state is left exactly as it was.
* :class:`Chance` is the only randomness an engine may use. It is built on ``random.Random.random()``
  alone, the one method whose sequence Python promises to keep across versions, so that
  ``(game, players, seed, options, actions)`` replays the same game on any machine.

Engines import nothing of the project beyond this module.
"""

from __future__ import annotations

import copy
import json
import random
import reprlib
from abc import ABC, abstractmethod
from collections.abc import Iterable, MutableSequence, Sequence
from typing import Any, TypeVar

JSON = Any
T = TypeVar("T")


class IllegalAction(ValueError):
    """An action that is not one of ``State.legal_actions()`` at the time it was applied."""


class Chance:
    """A seeded source of chance whose sequence is stable across Python versions and platforms.

    Only :meth:`random.Random.random` is guaranteed to produce the same stream everywhere for the same
    seed; ``randrange``, ``choice`` and ``shuffle`` have changed between releases. Every helper here is
    derived from ``random()`` by a fixed formula, so engines get reproducible dice, draws and shuffles.
    """

    __slots__ = ("_rng",)

    def __init__(self, seed: int) -> None:
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ValueError(f"seed must be an integer, got {seed!r}")
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


class State(ABC):
    """One position of a match. Only ``apply`` changes it.

    Decisions are sequential: at any time exactly one seat (``current_player()``) decides, or none once
    the game is over. Games with simultaneous choices ask the seats one at a time and keep each choice
    hidden from the others until all have chosen.
    """

    @abstractmethod
    def current_player(self) -> int | None:
        """The seat (0-based) whose decision it is, or ``None`` once the game is over."""

    @abstractmethod
    def legal_actions(self) -> list[JSON]:
        """Every action the current player may take, as JSON values; never empty before the end.

        The order is deterministic (the same position always lists the same actions in the same order).
        After the end it is ``[]``.
        """

    @abstractmethod
    def apply(self, action: JSON) -> None:
        """Play ``action`` for the current player.

        Raises :class:`IllegalAction` (and changes nothing) if ``action`` is not equal, as JSON, to one of
        ``legal_actions()``, or if the game is over.
        """

    @abstractmethod
    def observation(self, player: int) -> dict:
        """What ``player`` may know now, as a JSON object; nothing the rules keep secret from them."""

    @abstractmethod
    def view(self) -> dict:
        """The spectator's view: the whole position as a JSON object, for replays and the site."""

    @abstractmethod
    def is_terminal(self) -> bool:
        """True once the game is over."""

    @abstractmethod
    def scores(self) -> list[int]:
        """Points per seat: the running total during the game, the final score at the end."""

    @abstractmethod
    def ranking(self) -> list[int]:
        """Place per seat (1 is best) after the game's tie-breakers; seats still tied share a place.

        Places are "competition" style: two seats tied for first are both 1 and the next seat is 3.
        """

    def clone(self) -> State:
        """An independent copy: applying actions to one never changes the other."""
        return copy.deepcopy(self)

    def resample_hidden(self, player: int, seed: int) -> State:
        """A copy that ``player`` cannot tell apart from this one, with what they cannot see re-dealt.

        Everything ``player`` knows is kept (their observation is unchanged); hidden information (the
        order of face-down stacks, other seats' hidden hands, choices made but not yet revealed) is
        redrawn from ``seed`` among the possibilities consistent with that knowledge. Bots can use it for
        determinisation; the conformance suite uses it to prove observations leak nothing. Games without
        hidden information return a plain clone.
        """
        return self.clone()


class Game(ABC):
    """A game: its facts and a factory of initial states.

    Subclasses set the class attributes and implement :meth:`new_state`. ``options`` are a JSON object;
    the defaults come from :meth:`default_options` and unknown keys or bad values are refused.
    """

    name: str = ""
    title: str = ""
    min_players: int = 2
    max_players: int = 2
    #: Version of the rules implementation; bump it when a change alters how a recorded match replays.
    rules_version: int = 1
    #: True when some seat cannot see part of the position (face-down stacks, hidden hands, pending
    #: choices). Such a game must implement ``State.resample_hidden`` so that it re-deals those parts.
    hidden_information: bool = False

    def default_options(self) -> dict:
        """The options a new match gets when none are given (a fresh dict each call)."""
        return {}

    def option_choices(self) -> dict[str, list[JSON]]:
        """For each option, the values it may take (``[]`` or absent: any value of the default's type)."""
        return {}

    def variants(self) -> list[tuple[int, dict]]:
        """Every supported configuration as ``(players, options)``: each player count with the defaults,
        plus each named variant with the player counts it allows.

        The conformance suite plays random games in every one of them, and forms offer them; games with
        options override this to list theirs.
        """
        return [(players, self.default_options()) for players in range(self.min_players, self.max_players + 1)]

    @abstractmethod
    def new_state(self, players: int, seed: int, options: dict | None = None) -> State:
        """The initial state for ``players`` seats, dealt from ``seed``.

        Raises ``ValueError`` with a message a user can act on for a bad player count, a bad seed or bad
        options.
        """

    # Helpers shared by the engines' ``new_state`` implementations.

    def check_players(self, players: int) -> None:
        """Raise ``ValueError`` unless ``players`` is an int within this game's range."""
        if isinstance(players, bool) or not isinstance(players, int):
            raise ValueError(f"{self.title} needs an integer number of players, got {players!r}")
        if not self.min_players <= players <= self.max_players:
            raise ValueError(
                f"{self.title} is for {self.min_players} to {self.max_players} players, not {players}"
            )

    def resolve_options(self, options: dict | None) -> dict:
        """Merge ``options`` over the defaults; refuse unknown keys and values of the wrong type."""
        merged = self.default_options()
        if options is None:
            return merged
        if not isinstance(options, dict):
            raise ValueError(f"options must be a JSON object, got {type(options).__name__}")
        unknown = sorted(set(options) - set(merged))
        if unknown:
            known = ", ".join(sorted(merged)) or "none"
            raise ValueError(f"unknown option(s) for {self.name}: {', '.join(unknown)} (known: {known})")
        for key, value in options.items():
            default = merged[key]
            if default is not None and type(value) is not type(default):
                raise ValueError(
                    f"option {key!r} of {self.name} must be {type(default).__name__}, got {value!r}"
                )
            choices = self.option_choices().get(key)
            if choices and value not in choices:
                raise ValueError(f"option {key!r} of {self.name} must be one of {choices}, got {value!r}")
            merged[key] = value
        return merged

    def __repr__(self) -> str:
        return f"<Game {self.name}>"


def same_action(a: JSON, b: JSON) -> bool:
    """Whether two actions are equal as JSON (so ``[1, 2]`` equals ``(1, 2)`` and ``1`` is not ``True``)."""
    return canonical_json(a) == canonical_json(b)


def canonical_json(value: JSON) -> str:
    """A canonical JSON text for ``value`` (sorted keys, no spaces) for equality and hashing."""
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def find_action(legal: list[JSON], action: JSON) -> JSON:
    """The element of ``legal`` equal to ``action`` as JSON, or raise :class:`IllegalAction`.

    ``action`` may come from a bot: whatever it is (not JSON, keys that cannot be sorted together, nested
    too deep to encode, huge), the only exception is :class:`IllegalAction`, with a short message.
    """
    try:
        wanted = canonical_json(action)
    except (TypeError, ValueError, RecursionError) as exc:
        raise IllegalAction(f"action is not JSON: {_ACTION_REPR.repr(action)}") from exc
    for candidate in legal:
        if canonical_json(candidate) == wanted:
            return candidate
    shown = wanted if len(wanted) <= _ACTION_CHARS else wanted[:_ACTION_CHARS] + "..."
    raise IllegalAction(f"illegal action {shown}")


# How much of a refused action a message shows: reprlib bounds the depth and length it walks, so showing
# a hostile value cannot recurse or grow without bound.
_ACTION_CHARS = 200
_ACTION_REPR = reprlib.Repr()
_ACTION_REPR.maxlevel = 4
_ACTION_REPR.maxstring = _ACTION_REPR.maxother = 60


def competition_ranking(keys: Sequence[Any]) -> list[int]:
    """Places from sort keys where a larger key is better; equal keys share a place (1, 1, 3)."""
    order = sorted(range(len(keys)), key=lambda seat: keys[seat], reverse=True)
    places = [0] * len(keys)
    for index, seat in enumerate(order):
        if index and keys[seat] == keys[order[index - 1]]:
            places[seat] = places[order[index - 1]]
        else:
            places[seat] = index + 1
    return places
