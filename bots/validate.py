"""Upload validation: decide whether bytes sent by a user may become an active bot version.

:func:`validate_upload` accepts a ``bot.py`` file or a zip with ``bot.py`` at its root and refuses, with a
message that says what to fix, anything else: empty or oversized uploads, unsafe zips (absolute paths,
``..``, symbolic links, too many files or folders too deep, zip bombs), missing ``bot.py``, text that is not
Python, syntax errors (:mod:`bots.upload_checks` holds the checks that run none of its code). A bot that
passes those checks then plays a smoke match in the sandbox against the game's random bot
(``bots/examples/<game>/random_bot.py``) in every other seat, from a fresh random deal; a version that
cannot finish a legal game is refused with its error and the tail of its log. Runs on the workers only.

The caller gives the smoke match what a rated match of the game is played with (limits, players,
options: the server gives its ladder's), and the upload's seat is drawn at random like the seed, so
that what the bot is told (its ``start`` message, every ``time_left_ms``) does not tell it that it is
being checked. A bot that answers every decision legally and in time until it has spent its whole
``match_ms`` passes: it is slow, not broken, and its rated matches judge that.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass
from pathlib import Path

from bots.archive import DEFAULT_CAPS, ArchiveCaps, sha256_of
from bots.examples import EXAMPLES_DIR
from bots.limits import Limits
from bots.upload_checks import LOG_TAIL_CHARS, UploadRejected, check_compiles, check_static

__all__ = ["UploadRejected", "ValidatedBot", "random_bot_path", "smoke_match",
           "smoke_seat", "smoke_seed", "validate_upload"]


@dataclass(frozen=True)
class ValidatedBot:
    code: bytes
    sha256: str
    size: int
    kind: str  # "py" or "zip"
    message: str


def validate_upload(data: bytes, filename: str, *, game: str, limits: Limits | None = None,
                    players: int = 2, options: dict | None = None, allow_unsafe: bool = False,
                    caps: ArchiveCaps = DEFAULT_CAPS, smoke: bool = True) -> ValidatedBot:
    """Check an upload, compile it and play its smoke match; :class:`UploadRejected` if it may not be
    activated, with a message that says what to fix (never an exception of the compiler).

    ``limits``, ``players`` and ``options`` are the smoke match's: those of a rated match of ``game``.
    ``smoke=False`` skips the match. Sandbox failures during the smoke match propagate as
    :class:`bots.referee.SandboxFault`: they say nothing about the upload. This runs bots: workers call it,
    never the web tier (which calls :func:`bots.upload_checks.check_static` alone).
    """
    kind = check_static(data, filename, caps)
    check_compiles(data, caps)
    message = "bot.py compiles" if kind == "py" else "zip with bot.py compiles"
    if smoke:
        message = smoke_match(data, game=game, limits=limits, players=players, options=options,
                              allow_unsafe=allow_unsafe)
    return ValidatedBot(code=data, sha256=sha256_of(data), size=len(data), kind=kind, message=message)


def smoke_seed() -> int:
    """A fresh seed for each smoke match, so that no bot can recognise the validation game by its deal."""
    return secrets.randbits(62)


def smoke_seat(players: int) -> int:
    """The upload's seat in its smoke match, drawn afresh each time: a rated match may seat a bot anywhere,
    and a fixed seat would tell the check apart."""
    return secrets.randbelow(players)


def random_bot_path(game: str) -> Path:
    return EXAMPLES_DIR / game / "random_bot.py"


def smoke_match(data: bytes, *, game: str, limits: Limits | None = None, players: int = 2,
                options: dict | None = None, seat: int | None = None, allow_unsafe: bool = False) -> str:
    """Play the upload in seat ``seat`` (:func:`smoke_seat` when None) of a ``players`` match, the game's
    random bot in every other seat; the message for the version, or UploadRejected."""
    from bots.referee import BotSpec, play_match

    opponent = random_bot_path(game)
    if not opponent.is_file():
        raise UploadRejected(f"no random bot for {game!r} to play the smoke match against "
                              f"(expected {opponent.relative_to(EXAMPLES_DIR.parent.parent)})")
    limits = limits or Limits()
    upload_seat = smoke_seat(players) if seat is None else seat
    bots = [BotSpec("random", opponent.read_bytes()) for _ in range(players)]
    bots[upload_seat] = BotSpec("upload", data)
    result = play_match(game, bots, seed=smoke_seed(), options=options, limits=limits, allow_unsafe=allow_unsafe)
    seat = result.seats[upload_seat]
    if _spent_the_smokes_time(seat, limits):
        return (f"smoke match against the random bot: {len(seat.decisions)} decisions answered legally until "
                f"the match's {limits.match_ms} ms of thinking were spent")
    if seat.outcome != "ok":
        raise UploadRejected(f"the smoke match against the random bot failed: {seat.outcome}: {seat.reason}",
                              log_tail=seat.log[-LOG_TAIL_CHARS:])
    return (f"smoke match against the random bot: finished in {len(result.actions)} actions, "
            f"place {seat.place}, score {seat.score}")


def _spent_the_smokes_time(seat, limits: Limits) -> bool:
    """Whether ``seat`` forfeited only because it spent its whole ``match_ms``: the referee
    then gives no decision more than what is left, so the seat's time reaches it (within a millisecond
    of rounding), where a decision that outlasts ``move_ms`` and the bank stops short of it."""
    return seat.outcome == "timeout" and seat.time_used_ms >= limits.match_ms - 1
