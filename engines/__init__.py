"""Pure game rules: one package per game behind the small API of :mod:`engines.base` and
:mod:`engines.chance`.

``engines.get(name)`` returns a :class:`~engines.base.GameEngine`; ``engines.names()`` lists the games that
are installed. Each game package registers itself when imported; the registry imports the known packages
on first use, so adding a game means writing its package (its :class:`~engines.base.GameFacts`, a
:class:`~engines.base.GameEngine` and a :class:`~engines.base.State` that implements the rules' hooks) and
adding its name to ``_PACKAGES``.
"""

from __future__ import annotations

import importlib

from engines.base import (
    GameEngine,
    GameFacts,
    IllegalAction,
    Information,
    State,
    competition_ranking,
    find_action,
    same_action,
)
from engines.chance import Chance, ChanceStreams, StreamBlocks, stream_seed

__all__ = [
    "Chance",
    "ChanceStreams",
    "GameEngine",
    "GameFacts",
    "IllegalAction",
    "Information",
    "State",
    "StreamBlocks",
    "competition_ranking",
    "find_action",
    "get",
    "names",
    "register",
    "replay",
    "same_action",
    "stream_seed",
]

# Game packages in the order they are listed to users. A package that is missing is skipped, so a
# checkout with only some engines still works.
_PACKAGES = ("kingdomino", "draftosaurus", "carcassonne_dice", "dice_king")

_registry: dict[str, GameEngine] = {}
_loaded = False


def register(game: GameEngine) -> GameEngine:
    """Add ``game`` to the registry under ``game.name`` (called by each game package on import)."""
    if not game.name:
        raise ValueError("a game needs a name to be registered")
    existing = _registry.get(game.name)
    if existing is not None and type(existing) is not type(game):
        raise ValueError(f"two games registered as {game.name!r}")
    _registry[game.name] = game
    return game


def _load() -> None:
    global _loaded
    if _loaded:
        return
    for package in _PACKAGES:
        try:
            importlib.import_module(f"engines.{package}")
        except ModuleNotFoundError as exc:
            if exc.name != f"engines.{package}":
                raise
    _loaded = True


def names() -> list[str]:
    """The names of the installed games, in a fixed order."""
    _load()
    known = [name for name in _PACKAGES if name in _registry]
    return known + sorted(set(_registry) - set(known))


def get(name: str) -> GameEngine:
    """The game called ``name``; ``KeyError`` with the list of games if there is none."""
    _load()
    try:
        return _registry[name]
    except KeyError:
        raise KeyError(f"no game {name!r}; games: {', '.join(names())}") from None


def replay(name: str, players: int, seed: int, options: dict | None, actions: list) -> list[dict]:
    """The ``view()`` after each action of a recorded match, the first element being the initial view.

    So ``len(result) == len(actions) + 1``. Raises :class:`IllegalAction` if an action does not fit.
    """
    state = get(name).new_state(players, seed, options)
    views = [state.view()]
    for action in actions:
        state.apply(action)
        views.append(state.view())
    return views
