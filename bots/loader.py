"""Load a bot module and give it one calling convention, in or out of the sandbox.

A bot is a directory holding ``bot.py`` (an uploaded file is unpacked into one). ``bot.py`` defines either
a function ``act(observation, legal_actions)`` or a class ``Bot`` with ``__init__(self, game, seat,
players, options)`` and ``act(self, observation, legal_actions)``. :func:`load_bot` hides the difference.
An ``act`` that also takes ``time_left_ms`` is given it by keyword (:func:`wants_time_left`).
"""

from __future__ import annotations

import importlib.util
import inspect
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

ActFn = Callable[[Any, list], Any]


class BotLoadError(Exception):
    """The bot's module could not be imported or defines neither ``act`` nor ``Bot``."""


def load_module(bot_path: str | Path, module_name: str = "bot"):
    """Import a bot as a fresh module: ``bot_path`` is a ``.py`` file or a directory holding ``bot.py``.

    The file's directory goes first on ``sys.path`` so that a zipped bot can import its own modules.
    """
    bot_path = Path(bot_path)
    path = bot_path if bot_path.is_file() else bot_path / "bot.py"
    if not path.is_file():
        raise BotLoadError(f"no bot.py in {bot_path}")
    bot_dir = path.parent
    if str(bot_dir) not in sys.path:
        sys.path.insert(0, str(bot_dir))
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        raise BotLoadError(f"cannot import {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def bind(module, *, game: str, seat: int, players: int, options: dict) -> ActFn:
    """The bot's decision function for one seat of one match."""
    bot_class = getattr(module, "Bot", None)
    if isinstance(bot_class, type):
        try:
            instance = bot_class(game, seat, players, options)
        except TypeError as exc:
            if _accepts(bot_class, game, seat, players, options):
                raise  # raised inside the bot's own constructor: its fault, reported as it is
            raise BotLoadError(f"class Bot is made as Bot(game, seat, players, options), "
                               f"and its constructor refused them: {exc}") from exc
        act = getattr(instance, "act", None)
        if not callable(act):
            raise BotLoadError("class Bot has no act(self, observation, legal_actions) method")
        return act
    act = getattr(module, "act", None)
    if callable(act):
        return act
    raise BotLoadError("bot.py defines neither act(observation, legal_actions) nor class Bot")


def _accepts(bot_class: type, *arguments) -> bool:
    """Whether ``bot_class`` can be called with ``arguments`` at all (its signature binds them)."""
    try:
        inspect.signature(bot_class).bind(*arguments)
    except TypeError:
        return False
    except ValueError:  # no signature to read (a class of C code): assume it binds
        return True
    return True


def wants_time_left(act: ActFn) -> bool:
    """Whether ``act`` takes the optional third argument ``time_left_ms`` (by that name, or ``**kwargs``):
    the milliseconds this decision may take, for bots that manage their own clock.

    The answer is what :func:`inspect.signature` says. A plain function or a method bound to it (nearly
    every bot) is read straight from its code object instead: the SDK asks at every start, on the bot's
    clock, and building a signature is slow."""
    quick = _time_left_from_code(act)
    if quick is not None:
        return quick
    try:
        parameters = inspect.signature(act).parameters.values()
    except (TypeError, ValueError):
        return False  # a builtin or an object whose signature cannot be read: call it the plain way
    return any(p.name == "time_left_ms" and p.kind is not p.POSITIONAL_ONLY or p.kind is p.VAR_KEYWORD
               for p in parameters)


def _time_left_from_code(act) -> bool | None:
    """:func:`wants_time_left` of a plain Python function, or of a method bound to one, from its code
    object; None for anything else (wrapped, given a ``__signature__``, a partial, a builtin, a callable
    object), which is left to :func:`inspect.signature`."""
    bound = type(act) is types.MethodType
    function = act.__func__ if bound else act
    if type(function) is not types.FunctionType or "__wrapped__" in function.__dict__ \
            or "__signature__" in function.__dict__ or (bound and "__signature__" in getattr(act, "__dict__", {})):
        return None
    code = function.__code__
    positional = code.co_argcount
    if bound and positional == 0:
        return None  # a method without a parameter for its instance: inspect's to judge
    if code.co_flags & inspect.CO_VARKEYWORDS:
        return True
    names = code.co_varnames
    # Positional-only parameters cannot be given by keyword; a bound method's first one is its instance.
    first = max(code.co_posonlyargcount, 1 if bound else 0)
    named = list(names[first:positional + code.co_kwonlyargcount])
    if code.co_flags & inspect.CO_VARARGS:
        named.append(names[positional + code.co_kwonlyargcount])
    return "time_left_ms" in named


def load_bot(bot_path: str | Path, *, game: str, seat: int, players: int, options: dict,
             module_name: str = "bot") -> ActFn:
    """Import the bot at ``bot_path`` and bind it to a seat (see :func:`load_module`, :func:`bind`)."""
    return bind(load_module(bot_path, module_name), game=game, seat=seat, players=players, options=options)
