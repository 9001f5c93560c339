"""``manage.py play``: one match on this machine, through exactly the sandbox the workers use.

``play GAME BOT [BOT ...] [--seed N] [--options JSON] [--json]``. A BOT is a ``bot.py`` file, a zip with
``bot.py`` at its root, a folder holding ``bot.py``, or the name of one of the game's example bots
(``random``, ``greedy``). Without ``--json`` the output is the clock every bot played under, a table of the
seats (score, place, outcome, time its decisions took, reason) and the tail of each bot's log; with
``--json`` it is the one JSON object of docs/bots.md ("Playing a match locally"). Exit status: 0 played,
2 bad arguments, 3 no isolation here, 4 sandbox failure.

``play --from-bundle FILE ...`` replays a match bundle instead (:mod:`bots.bundle_replay`), with this
module's bot arguments, report and exit statuses.
"""

from __future__ import annotations

import argparse
import io
import json
import random
import zipfile
from pathlib import Path

import engines
from bots.examples import EXAMPLES_DIR
from bots.referee import BotSpec, Limits, MatchResult, SandboxFault, SandboxUnavailable, play_match
from bots.sandbox.unsafe import WARNING as UNSAFE_WARNING
from bots.terminal import printable

LOG_TAIL_LINES = 8


class ArgumentError(Exception):
    """A command line ``play`` cannot run: said on stderr, exit status 2."""


class Parser(argparse.ArgumentParser):
    """An argument parser that raises :class:`ArgumentError` rather than exit."""

    def error(self, message: str):
        raise ArgumentError(message)


def _parser() -> argparse.ArgumentParser:
    parser = Parser(prog="play", description="Play one match between bots in the sandbox.",
                    epilog="To replay a match bundle (GET /api/matches/{id}/bundle/), or hand one of its seats to "
                           "another bot from a step on: play --from-bundle FILE [--seat N BOT] [--from-step K] "
                           "[--json] (see play --from-bundle FILE --help).")
    parser.add_argument("game", help=f"one of: {', '.join(engines.names())}")
    parser.add_argument("bots", nargs="+", metavar="BOT",
                        help="bot.py, a zip, a folder with bot.py, or an example bot's name (random, greedy)")
    parser.add_argument("--seed", type=int, default=None, help="the match's seed (random if omitted)")
    parser.add_argument("--options", default=None, help="game options as a JSON object")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    return parser


def load_bot_argument(game: str, argument: str) -> BotSpec:
    """The BotSpec for a command-line BOT (a path, or an example bot's name for ``game``)."""
    path = Path(argument)
    if not path.exists():
        for candidate in (EXAMPLES_DIR / game / f"{argument}_bot.py", EXAMPLES_DIR / game / f"{argument}.py"):
            if candidate.is_file():
                return BotSpec(argument, candidate.read_bytes())
        raise ArgumentError(f"no bot at {argument!r} (and no example bot of that name for {game})")
    if path.is_dir():
        if not (path / "bot.py").is_file():
            raise ArgumentError(f"{argument}: the folder has no bot.py")
        try:
            return BotSpec(path.name, _zip_folder(path))
        except OSError as exc:
            raise ArgumentError(f"cannot read the bot {argument}: {exc.strerror or exc}") from None
    name = path.parent.name if path.name == "bot.py" else path.stem
    try:
        return BotSpec(name or path.stem, path.read_bytes())
    except OSError as exc:
        raise ArgumentError(f"cannot read the bot {argument}: {exc.strerror or exc}") from None


def _zip_folder(folder: Path) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as archive:
        for file in sorted(folder.rglob("*")):
            if file.is_file() and not file.is_symlink() and "__pycache__" not in file.parts:
                archive.write(file, file.relative_to(folder).as_posix())
    return buffer.getvalue()


def main(argv: list[str], *, limits: Limits, allow_unsafe: bool, stdout, stderr) -> int:
    """Run ``play`` with ``argv`` (without the program name) under ``limits``; returns the exit status."""
    try:
        args = _parser().parse_args(argv)
        try:
            engines.get(args.game)
        except KeyError as exc:
            raise ArgumentError(exc.args[0]) from None
        options = None
        if args.options is not None:
            try:
                options = json.loads(args.options)
            except ValueError as exc:
                raise ArgumentError(f"--options is not JSON: {exc}") from None
        bots = [load_bot_argument(args.game, bot) for bot in args.bots]
    except ArgumentError as exc:
        say(stderr, exc)
        return 2
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**31)
    result, status = play_or_explain(
        lambda: play_match(args.game, bots, seed=seed, options=options, limits=limits, allow_unsafe=allow_unsafe),
        stderr)
    if result is None:
        return status
    if args.json:
        stdout.write(json.dumps(result.to_json()) + "\n")
    else:
        stdout.write(format_result(result, limits=limits))
    return 0


def play_or_explain(run, stderr) -> tuple[MatchResult | None, int]:
    """``run()``'s result, or None and the exit status after saying why it could not play."""
    try:
        result = run()
    except ValueError as exc:
        say(stderr, exc)
        return None, 2
    except SandboxUnavailable as exc:
        say(stderr, f"cannot run bots here: {exc}")
        return None, 3
    except SandboxFault as exc:
        say(stderr, f"the sandbox failed (not the bots' fault; try again): {exc}")
        return None, 4
    if result.unsafe:
        stderr.write(f"WARNING: {UNSAFE_WARNING}\n")
    return result, 0


def say(stderr, message) -> None:
    """One line on stderr: ``play: `` and ``message``, which may quote a bot or a bundle, escaped.

    Written whole, newline included: Django's OutputWrapper ends every write with a newline of its own, so
    ``print``'s two writes made two lines of one.
    """
    stderr.write(f"play: {printable(str(message))}\n")


def format_result(result: MatchResult, *, limits: Limits | None = None) -> str:
    """The human-readable report: a banner in unsafe mode, the clock of ``limits`` (when given), the
    seats' table, each bot's log tail."""
    lines = []
    if result.unsafe:
        lines += ["!" * 100, f"!! {UNSAFE_WARNING}", "!" * 100]
    options = json.dumps(result.options, sort_keys=True)
    lines.append(f"{result.game}, {result.players} players, seed {result.seed}, options {options}: "
                 f"{len(result.actions)} actions in {result.duration_s:.2f} s")
    if limits is not None:
        # What "time used" is measured against, so that a timeout's reason can be read off the table.
        lines.append(f"clock per bot: {limits.move_ms} ms per move, a bank of {limits.bank_ms} ms, "
                     f"{limits.match_ms} ms for the whole match")
    header = ("seat", "bot", "score", "place", "outcome", "time used", "reason")
    # The bots' names (a file's, or a bundle's), reasons (quoting a bot's error or answer) and logs are
    # theirs to write: shown, never obeyed by the terminal.
    rows = [(str(index), printable(seat.bot), str(seat.score), str(seat.place), seat.outcome,
             f"{seat.time_used_ms} ms", printable(seat.reason)) for index, seat in enumerate(result.seats)]
    widths = [max(len(row[column]) for row in [header, *rows]) for column in range(len(header) - 1)]
    for row in [header, *rows]:
        cells = [cell.ljust(width) for cell, width in zip(row, widths)]
        lines.append("  ".join(cells + [row[-1]]).rstrip())
    for index, seat in enumerate(result.seats):
        # Lines end at a newline only: a CR or another separator inside a line is shown escaped as written.
        tail = seat.log.rstrip("\n").split("\n")[-LOG_TAIL_LINES:] if seat.log.strip("\n") else []
        lines.append(f"--- log of seat {index} ({printable(seat.bot)}): "
                     + ("empty" if not tail else f"last {len(tail)} lines"))
        lines += [f"    {printable(line)}" for line in tail]
    return "\n".join(lines) + "\n"
