"""The contract every game engine fulfils: the engine class, the state class and the types they share.

An engine is a package under ``engines/`` that defines a :class:`GameEngine` subclass and registers an
instance of it with :func:`engines.register`. Everything above the engines (the referee, the workers,
the site, the bots) talks to games only through the methods declared here:

* :class:`GameFacts` is what a game is (players, chance, simultaneous moves, information, a bound on its
  length, the version of its rules), declared once at the top of its package as data.
* :class:`GameEngine` describes a game (its facts, options) and deals new states.
* :class:`State` is one position of one match. It is mutated by :meth:`State.apply`; every other method
  only reads it. Actions, observations and views are plain JSON values (dicts, lists, strings, numbers,
  booleans, ``None``), so they cross process boundaries and are stored as they are.
* :class:`IllegalAction` is raised by ``apply`` for anything that is not in ``legal_actions()``; the
  state is left exactly as it was.

All chance an engine uses comes from :mod:`engines.chance` (the match's :class:`~engines.chance.ChanceStreams`).

The base classes own the public contract (OpenSpiel style): checking arguments and actions, the
legal-action cache, the copies handed out and cloning. A game implements only its rules:
``GameEngine._new_state`` and ``State._legal_actions``, ``State._apply``, ``State._observation``,
``State.view`` and the results.

Engines import nothing of the project beyond this module and :mod:`engines.chance`.
"""

from __future__ import annotations

import copy
import enum
import json
import reprlib
from abc import ABC, abstractmethod
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, ClassVar

import orjson

from engines.chance import check_seed

JSON = Any


class IllegalAction(ValueError):
    """An action that is not one of ``State.legal_actions()`` at the time it was applied."""


class Information(enum.Enum):
    """Whether every seat sees the whole position (OpenSpiel's ``Information``)."""

    PERFECT = "perfect"
    #: Some seat cannot see part of the position (face-down stacks, hidden hands, pending choices).
    IMPERFECT = "imperfect"


@dataclass(frozen=True)
class GameFacts:
    """What a game is, declared once at the top of its package (OpenSpiel's ``_GAME_TYPE``/``_GAME_INFO``).

    :class:`GameEngine` derives ``name``, ``title``, ``min_players``, ``max_players``, ``rules_version`` and
    ``hidden_information`` from it, and the conformance suite checks every fact by random play.
    """

    name: str
    title: str
    min_players: int
    max_players: int
    #: Dice, shuffles or draws: all of it from the match's :class:`ChanceStreams`, each event from the
    #: stream of its purpose and position (the engine's docstring lists them).
    chance: bool
    #: Some decisions are taken by several seats at once (asked one seat at a time, kept hidden).
    simultaneous: bool
    information: Information
    #: An upper bound on the number of decisions of a match, in every configuration (OpenSpiel's
    #: ``max_game_length``): what a referee may rely on to tell a runaway engine from a long game.
    max_game_length: int
    #: Version of the rules implementation; bump it when a change alters how a recorded match replays.
    rules_version: int

    def __post_init__(self) -> None:
        if not self.name or not self.title:
            raise ValueError("a game needs a name and a title")
        if not 1 <= self.min_players <= self.max_players:
            raise ValueError(f"bad player range {self.min_players}..{self.max_players} for {self.name}")
        if self.max_game_length < 1 or self.rules_version < 1:
            raise ValueError(f"max_game_length and rules_version of {self.name} must be positive")


class State(ABC):
    """One position of a match. Only ``apply`` changes it.

    Decisions are sequential: at any time exactly one seat (``current_player()``) decides, or none once
    the game is over. Games with simultaneous choices ask the seats one at a time and keep each choice
    hidden from the others until all have chosen.

    The base class owns the public contract; a game implements the underscored hooks:

    * ``_legal_actions()`` lists the current decision's actions. The base calls it once per position
      (the list is cached until the next ``apply`` or :meth:`reset_legal_cache`) and never hands that
      list out: ``legal_actions()`` returns a copy, so a caller that mutates it changes nothing. Nor does
      the base change it, so a game may return a list it shares between positions.
    * ``_apply(action)`` plays an action that the base has already checked: ``action`` is the cached
      element equal to what the caller sent (the game may keep it, but must not mutate it).
    * ``_observation(player)`` for a seat the base has already checked; it and ``view()`` build a fresh
      JSON value on each call that shares no list or dict with the state.

    A state keeps its seat count in ``players``.
    """

    players: int
    #: The current position's legal actions as ``_legal_actions()`` listed them; ``None`` until asked.
    _legal_cache: list[JSON] | None = None
    #: The same list encoded once, so that every hand-out is one fast decode.
    _legal_bytes: bytes | None = None

    @abstractmethod
    def current_player(self) -> int | None:
        """The seat (0-based) whose decision it is, or ``None`` once the game is over."""

    def legal_actions(self) -> list[JSON]:
        """Every action the current player may take, as JSON values; never empty before the end.

        The order is deterministic (the same position always lists the same actions in the same order).
        After the end it is ``[]``. The list is the caller's own: changing it changes nothing here.
        """
        encoded = self._legal_bytes
        if encoded is None:
            legal = self._cached_legal()
            try:
                encoded = orjson.dumps(legal)
            except TypeError:
                # Beyond orjson's range (say an integer over 64 bits): copy it the slow way.
                return copy.deepcopy(legal)
            self._legal_bytes = encoded
        return orjson.loads(encoded)

    def apply(self, action: JSON) -> None:
        """Play ``action`` for the current player.

        Raises :class:`IllegalAction` (and changes nothing) if ``action`` is not equal, as JSON, to one of
        ``legal_actions()``, or if the game is over.
        """
        if self.is_terminal():
            raise IllegalAction("the game is over")
        chosen = find_action(self._cached_legal(), action)
        self.reset_legal_cache()
        self._apply(chosen)

    def observation(self, player: int) -> dict:
        """What ``player`` may know now, as a JSON object; nothing the rules keep secret from them.

        Raises ``ValueError`` for a seat that is not in the game.
        """
        if isinstance(player, bool) or not isinstance(player, int) or not 0 <= player < self.players:
            raise ValueError(f"no seat {player!r} in a {self.players}-player game")
        return self._observation(player)

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
        """An independent copy: applying actions to one never changes the other.

        The copy starts as a shallow one; :meth:`_copy_parts` gives it its own mutable parts.
        """
        twin = object.__new__(type(self))
        twin.__dict__.update(self.__dict__)
        self._copy_parts(twin)
        twin.reset_legal_cache()
        return twin

    def resample_hidden(self, player: int, seed: int) -> State:
        """A copy that ``player`` cannot tell apart from this one, with what they cannot see re-dealt.

        Everything ``player`` knows is kept (their observation is unchanged); hidden information (the
        order of face-down stacks, other seats' hidden hands, choices made but not yet revealed) is
        redrawn from ``seed`` among the possibilities consistent with that knowledge. Bots can use it for
        determinisation; the conformance suite uses it to prove observations leak nothing. Games without
        hidden information return a plain clone.
        """
        return self.clone()

    def reset_legal_cache(self) -> None:
        """Forget the cached legal actions: for code that changes a position outside ``apply``
        (``resample_hidden``, a test that sets up a position by hand)."""
        self._legal_cache = self._legal_bytes = None

    # The hooks a game implements.

    def _legal_actions(self) -> list[JSON]:
        """The current decision's legal actions in their canonical order (``[]`` after the end)."""
        raise NotImplementedError(f"{type(self).__name__} does not list its legal actions")

    def _apply(self, action: JSON) -> None:
        """Play ``action``, an element of the cached ``_legal_actions()`` list."""
        raise NotImplementedError(f"{type(self).__name__} does not apply actions")

    def _observation(self, player: int) -> dict:
        """What ``player`` (a valid seat) may know, as a fresh JSON object."""
        raise NotImplementedError(f"{type(self).__name__} does not observe")

    def _copy_parts(self, twin: State) -> None:
        """Give ``twin``, a shallow copy of this state, its own copy of every part ``_apply`` mutates.

        The default deep-copies everything; games override it with copies of just what changes.
        """
        twin.__dict__.update(copy.deepcopy(self.__dict__))

    def _cached_legal(self) -> list[JSON]:
        legal = self._legal_cache
        if legal is None:
            legal = self._legal_cache = self._legal_actions()
        return legal


class GameEngine(ABC):
    """A game's engine: its facts and a factory of initial states.

    Subclasses set ``facts`` (a :class:`GameFacts`, from which ``name``, ``title``, ``min_players``,
    ``max_players``, ``rules_version`` and ``hidden_information`` follow) and implement
    :meth:`_new_state`. ``options`` are a JSON object; the defaults come from :meth:`default_options` and
    unknown keys or bad values are refused.
    """

    facts: ClassVar[GameFacts | None] = None
    name: str = ""
    title: str = ""
    min_players: int = 2
    max_players: int = 2
    #: Version of the rules implementation; bump it when a change alters how a recorded match replays.
    rules_version: int = 1
    #: True when some seat cannot see part of the position (face-down stacks, hidden hands, pending
    #: choices). Such a game must implement ``State.resample_hidden`` so that it re-deals those parts.
    hidden_information: bool = False

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        facts = cls.__dict__.get("facts")
        if facts is not None:
            cls.name, cls.title = facts.name, facts.title
            cls.min_players, cls.max_players = facts.min_players, facts.max_players
            cls.rules_version = facts.rules_version
            cls.hidden_information = facts.information is Information.IMPERFECT

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

    def new_state(self, players: int, seed: int, options: dict | None = None) -> State:
        """The initial state for ``players`` seats, dealt from ``seed``.

        Raises ``ValueError`` with a message a user can act on for a bad player count, a bad seed or bad
        options; then hands the checked arguments (options merged over the defaults) to ``_new_state``.
        """
        self.check_players(players)
        check_seed(seed)
        return self._new_state(players, seed, self.resolve_options(options))

    def _new_state(self, players: int, seed: int, options: dict) -> State:
        """The initial state from checked arguments; ``ValueError`` for a combination the game refuses."""
        raise NotImplementedError(f"{type(self).__name__} deals no states")

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
        return f"<GameEngine {self.name}>"


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
    # The fast path: Python's equality scans in C, and the one candidate it finds is confirmed by its
    # canonical bytes (Python says 1 == True == 1.0, JSON does not). Whatever it misses (tuples for lists,
    # keys that are not strings, values Python cannot compare) the canonical texts below decide.
    try:
        candidate = legal[legal.index(action)]
        if orjson.dumps(candidate, option=_SORTED) == orjson.dumps(action, option=_SORTED):
            return candidate
    except Exception:  # noqa: BLE001 - a bot's value may raise anything from __eq__
        pass
    try:
        wanted = canonical_json(action)
    except (TypeError, ValueError, RecursionError) as exc:
        raise IllegalAction(f"action is not JSON: {_ACTION_REPR.repr(action)}") from exc
    for candidate in legal:
        if canonical_json(candidate) == wanted:
            return candidate
    shown = wanted if len(wanted) <= _ACTION_CHARS else wanted[:_ACTION_CHARS] + "..."
    raise IllegalAction(f"illegal action {shown}")


_SORTED = orjson.OPT_SORT_KEYS

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
