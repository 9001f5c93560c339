"""``manage.py play --from-bundle``: a match bundle played again, whole or with one seat taken over.

``play --from-bundle FILE [--seat N BOT] [--from-step K] [--json]`` plays a match bundle
(``GET /api/matches/{id}/bundle/``) again, under the bundle's limits, with :class:`bots.referee.ReplayScript`:

* Without ``--seat`` it replays the match: the seats whose code the bundle carries are played by that code,
  the others by their recorded actions, and the report says whether the actions played reproduce the
  recorded ones exactly, or at which step, with whom on move, they diverge (exit status 1 then).
* With ``--seat N BOT [--from-step K]`` (K defaults to 0) BOT takes over seat N from step K. BOT is started
  with the others and asked at every decision of seat N before K too, its answers discarded and the
  recorded actions applied, so that a bot that keeps state has at step K the memory it would have had
  playing the match. Before K every seat follows the record; from K on the other seats are played by their
  bundled code, and those without code by their recorded actions while these are legal, then by the first
  legal action (the report says from which step).

A bundle whose ``rules_version`` differs from the installed engine's cannot be replayed exactly and is
refused, like one of another format, of a game not installed here, or whose code does not match its
SHA-256. ``--json`` prints play's object with a ``replay`` object beside it (see :func:`replay_report`).

The command line, the bot arguments, the report of the match and the exit statuses are ``play``'s
(:mod:`bots.play`); the command picks this module when :func:`asks_for_replay`.
"""

from __future__ import annotations

import argparse
import base64
import binascii
import dataclasses
import hashlib
import json

import orjson

import engines
from bots.archive import UnsafeArchive, check_unpackable
from bots.bundle_format import BUNDLE_FORMAT, BUNDLE_FORMAT_VERSION
from bots.play import ArgumentError, Parser, format_result, load_bot_argument, play_or_explain, say
from bots.referee import BotSpec, Limits, MatchResult, ReplayScript, play_match
from bots.terminal import printable

#: Largest bundle file read. The ladder's are far smaller: five seats of code at the largest upload, in
#: base64, and a long match's actions.
BUNDLE_MAX_BYTES = 64 * 1024 * 1024
#: Deepest nesting a bundle may have: its own shape takes four levels (bundle, seats, seat, code), and an
#: action or an option a few more. It stays far below the recursion limit of what handles the values after.
BUNDLE_MAX_DEPTH = 32
# Characters of an action quoted in the report.
_QUOTE_CHARS = 200


def asks_for_replay(argv: list[str]) -> bool:
    """Whether a ``play`` command line (without the program name) asks for a bundle's replay."""
    return any(arg == "--from-bundle" or arg.startswith("--from-bundle=") for arg in argv)


def main(argv: list[str], *, limits: Limits, allow_unsafe: bool, stdout, stderr,
         limit_caps: Limits | None = None) -> int:
    """Run ``play --from-bundle`` with ``argv`` (without the program name); returns the exit status. The
    bundle's limits apply, each at most its value in ``limit_caps`` (by default ``limits`` itself): a bundle
    is a file anyone can write, so it may tighten the sandbox but never loosen it beyond what this machine
    allows."""
    caps = limit_caps or limits
    try:
        args = _bundle_parser().parse_args(argv)
        bundle = load_bundle(args.from_bundle, caps=caps)
        takeover = None
        if args.seat is None and args.from_step is not None:
            raise ArgumentError("--from-step K needs --seat N BOT: the bot that takes over from step K")
        from_step = args.from_step or 0
        if args.seat is not None:
            seat_text, bot_argument = args.seat
            try:
                seat = int(seat_text)
            except ValueError:
                raise ArgumentError(f"--seat N BOT: N must be a seat number, not {seat_text!r}") from None
            if not 0 <= seat < bundle.players:
                raise ArgumentError(f"--seat {seat}: the match has seats 0 to {bundle.players - 1}")
            if not 0 <= from_step < len(bundle.actions):
                raise ArgumentError(f"--from-step {from_step}: the match has steps 0 to "
                                    f"{len(bundle.actions) - 1} ({len(bundle.actions)} actions)")
            takeover = (seat, load_bot_argument(bundle.game, bot_argument))
    except ArgumentError as exc:
        say(stderr, exc)
        return 2
    bots = []
    for seat in bundle.seats:
        if takeover is not None and seat.position == takeover[0]:
            bots.append(takeover[1])
        else:
            label = seat.bot if seat.version is None else f"{seat.bot} v{seat.version}"
            bots.append(BotSpec(label, seat.code))
    recording = ReplayScript(actions=bundle.actions, follow_until=from_step if takeover is not None else 0)
    result, status = play_or_explain(
        lambda: play_match(bundle.game, bots, seed=bundle.seed, options=bundle.options, limits=bundle.limits,
                           allow_unsafe=allow_unsafe, recording=recording),
        stderr)
    if result is None:
        return status
    report = replay_report(bundle, result, recording, takeover=None if takeover is None else
                           {"seat": takeover[0], "bot": takeover[1].name, "from_step": from_step})
    if args.json:
        stdout.write(json.dumps({**result.to_json(), "replay": report}) + "\n")
    else:
        stdout.write(format_result(result, limits=bundle.limits))
        stdout.write(format_replay(report))
    return 1 if takeover is None and not report["reproduced"] else 0


def _bundle_parser() -> argparse.ArgumentParser:
    parser = Parser(prog="play --from-bundle",
                    description="Replay a match bundle in the sandbox, or hand one of its seats to another bot "
                                "from a step on.")
    parser.add_argument("--from-bundle", required=True, metavar="FILE",
                        help="a match bundle (GET /api/matches/{id}/bundle/)")
    parser.add_argument("--seat", nargs=2, metavar=("N", "BOT"),
                        help="BOT (bot.py, a zip, a folder with bot.py, or an example bot's name) takes over seat N")
    parser.add_argument("--from-step", type=int, default=None, metavar="K",
                        help="the step from which BOT's answers count (default 0); before it the recorded actions")
    parser.add_argument("--json", action="store_true", help="print the result as one JSON object")
    return parser


_KIND_NAMES = {int: "a whole number", str: "a string", dict: "a JSON object", list: "a list"}


@dataclasses.dataclass(frozen=True)
class BundleSeat:
    position: int
    bot: str
    version: int | None
    outcome: str | None
    #: The code of the version that played, None where the bundle carries none.
    code: bytes | None


@dataclasses.dataclass(frozen=True)
class Bundle:
    """A match bundle as read by :func:`load_bundle`: everything checked, the code decoded."""

    match: int | None
    game: str
    rules_version: int | None
    players: int
    seed: int
    options: dict
    limits: Limits
    actions: list
    seats: list[BundleSeat]


def load_bundle(path: str, *, caps: Limits) -> Bundle:
    """The bundle in file ``path``, or ``ArgumentError`` saying what is wrong with it: not readable,
    larger than :data:`BUNDLE_MAX_BYTES`, not JSON in UTF-8, nested deeper than :data:`BUNDLE_MAX_DEPTH`,
    not a bundle of the known format, a game not installed here, rules that changed since, a field of the
    wrong type, limits that are not whole numbers or exceed ``caps``, code that is not valid base64, whose
    SHA-256 differs from the bundle's, or a zip that cannot be unpacked (:func:`bots.archive.unpack`).

    A bundle is a file anyone can write: whatever its bytes, this raises nothing else.
    """
    data = _bundle_json(path)
    if not isinstance(data, dict) or data.get("format") != BUNDLE_FORMAT:
        raise ArgumentError(f"{path} is not a match bundle (no \"format\": \"{BUNDLE_FORMAT}\"): a bundle is the "
                            "file GET /api/matches/{id}/bundle/ gives")
    if data.get("format_version") != BUNDLE_FORMAT_VERSION:
        raise ArgumentError(f"{path} is a bundle of format version {data.get('format_version')!r}; this play "
                            f"reads version {BUNDLE_FORMAT_VERSION}")

    def field(name, kind, *, null=False):
        value = data.get(name)
        if (value is None and null) or (isinstance(value, kind) and not isinstance(value, bool)):
            return value
        raise ArgumentError(f"{path}: the bundle's {name!r} is missing or not {_KIND_NAMES[kind]}")

    game = field("game", str)
    try:
        engine = engines.get(game)
    except KeyError:
        raise ArgumentError(f"the bundle's game {game!r} is not installed here; games: "
                            f"{', '.join(engines.names())}") from None
    rules_version = field("rules_version", int, null=True)
    if rules_version is not None and rules_version != engine.rules_version:
        raise ArgumentError(f"the bundle was played under version {rules_version} of the {game} rules, and this "
                            f"engine plays version {engine.rules_version}: the rules changed since, so the "
                            "match cannot be replayed exactly")
    players = field("players", int)
    seats = field("seats", list)
    if len(seats) != players or not all(isinstance(seat, dict) for seat in seats):
        raise ArgumentError(f"{path}: the bundle's 'seats' must be {players} objects, one per player")
    return Bundle(
        match=field("match", int, null=True), game=game, rules_version=rules_version, players=players,
        seed=field("seed", int), options=field("options", dict), limits=_bundle_limits(field("limits", dict), path, caps),
        actions=field("actions", list),
        seats=[_bundle_seat(seat, position, path) for position, seat in enumerate(seats)],
    )


def _bundle_json(path: str):
    """The JSON value in file ``path``, bounded in size and depth (orjson: strict UTF-8, no lone surrogate
    escapes, no NaN), or ``ArgumentError``."""
    try:
        with open(path, "rb") as file:
            raw = file.read(BUNDLE_MAX_BYTES + 1)
    except OSError as exc:
        raise ArgumentError(f"cannot read the bundle {path}: {exc.strerror or exc}") from None
    if len(raw) > BUNDLE_MAX_BYTES:
        raise ArgumentError(f"{path} is larger than {BUNDLE_MAX_BYTES} bytes: not a bundle the ladder gives")
    too_deep = f"{path} is nested deeper than {BUNDLE_MAX_DEPTH} levels: not a bundle the ladder gives"
    try:
        data = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        if str(exc).startswith("depth limit exceeded"):
            raise ArgumentError(too_deep) from None
        raise ArgumentError(f"{path} is not JSON ({exc}): a bundle is the file GET /api/matches/{{id}}/bundle/ "
                            "gives") from None
    if _deeper_than(data, BUNDLE_MAX_DEPTH):
        raise ArgumentError(too_deep)
    return data


def _deeper_than(value, levels: int) -> bool:
    """Whether the JSON ``value`` nests more than ``levels`` containers deep (walked without recursion)."""
    stack = [(value, 1)]
    while stack:
        item, depth = stack.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, list) else None
        if children is None:
            continue
        if depth > levels:
            return True
        stack.extend((child, depth + 1) for child in children if isinstance(child, (dict, list)))
    return False


def _bundle_limits(stored: dict, path: str, caps: Limits) -> Limits:
    """The bundle's limits as ``Limits`` (names this version does not know are left out, like a worker
    does with a match's stored limits), each between its floor and its value in ``caps``."""
    known = {f.name for f in dataclasses.fields(Limits)}
    values = {}
    for name, value in stored.items():
        if name not in known:
            continue
        # A bank may be empty; every other limit is a positive amount.
        floor = 0 if name == "bank_ms" else 1
        if not isinstance(value, int) or isinstance(value, bool) or value < floor:
            raise ArgumentError(f"{path}: the bundle's limit {name!r} is {value!r}, not a whole number >= {floor}")
        cap = getattr(caps, name)
        if value > cap:
            raise ArgumentError(f"{path}: the bundle's limit {name!r} is {value}, more than this machine allows "
                                f"({cap}): a bundle may tighten the sandbox, never loosen it")
        values[name] = value
    return Limits(**values)


def _bundle_seat(seat: dict, position: int, path: str) -> BundleSeat:
    bot = seat.get("bot")
    name = bot if isinstance(bot, str) and bot else f"seat {position}"
    version = seat.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        version = None
    code = seat.get("code")
    data = None
    if code is not None:
        if not isinstance(code, dict) or code.get("kind") not in ("py", "zip") or not isinstance(code.get("base64"), str):
            raise ArgumentError(f"{path}: the code of seat {position} is not {{\"kind\": \"py\" or \"zip\", "
                                "\"sha256\", \"base64\"}")
        try:
            data = base64.b64decode(code["base64"], validate=True)
        except (binascii.Error, ValueError):
            raise ArgumentError(f"{path}: the code of seat {position} is not valid base64") from None
        if hashlib.sha256(data).hexdigest() != code.get("sha256"):
            raise ArgumentError(f"{path}: the code of seat {position} does not match its sha256 (the file was "
                                "changed or cut)")
        try:
            # Checked now, so that the refusal names the seat; the sandbox would refuse it on starting.
            check_unpackable(data)
        except UnsafeArchive as exc:
            raise ArgumentError(f"{path}: the code of seat {position} cannot be unpacked: {exc}") from None
    outcome = seat.get("outcome") if isinstance(seat.get("outcome"), str) else None
    return BundleSeat(position=position, bot=name, version=version, outcome=outcome, code=data)


def replay_report(bundle: Bundle, result: MatchResult, recording: ReplayScript, *, takeover: dict | None) -> dict:
    """What a bundle's replay did, as JSON: ``{"match", "recorded_actions", "played_actions",
    "reproduced", "diverged_at", "takeover", "seats", "discarded"}``.

    ``reproduced``: the actions played are the recorded ones, all of them. ``diverged_at``: null, or the
    first step where they differ, ``{"step", "seat", "recorded", "played"}`` (``seat`` on move there; a side
    missing because one game was longer is null). ``takeover``: null or ``{"seat", "bot", "from_step"}``.
    ``seats``: per seat ``{"position", "played_by"}`` (``"code"``: the bundle's, ``"recording"``: its
    recorded actions, ``"takeover"``: the given bot), with ``recorded_outcome`` and ``outcome`` (now), and
    ``fallback_from_step``: for a seat played by the recording, the step from which it took the first legal
    action since the recorded one was not legal (else null). ``discarded``: the answers given before the
    takeover's step that differ from the record (:class:`bots.referee.ReplayScript`).
    """
    recorded, played = bundle.actions, result.actions
    diverged = next((step for step in range(max(len(recorded), len(played)))
                     if step >= len(recorded) or step >= len(played) or recorded[step] != played[step]), None)
    diverged_at = None
    if diverged is not None:
        diverged_at = {"step": diverged, "seat": _on_move(bundle, played, diverged),
                       "recorded": recorded[diverged] if diverged < len(recorded) else None,
                       "played": played[diverged] if diverged < len(played) else None}
    seats = []
    for seat, outcome in zip(bundle.seats, result.seats, strict=True):
        if takeover is not None and seat.position == takeover["seat"]:
            played_by = "takeover"
        else:
            played_by = "recording" if seat.code is None else "code"
        seats.append({"position": seat.position, "played_by": played_by, "recorded_outcome": seat.outcome,
                      "outcome": outcome.outcome, "fallback_from_step": recording.fallback_from.get(seat.position)})
    return {"match": bundle.match, "recorded_actions": len(recorded), "played_actions": len(played),
            "reproduced": diverged is None, "diverged_at": diverged_at, "takeover": takeover, "seats": seats,
            "discarded": recording.discarded}


def _on_move(bundle: Bundle, played: list, step: int) -> int | None:
    """The seat on move at ``step`` of the game ``played`` (None past its end)."""
    state = engines.get(bundle.game).new_state(bundle.players, bundle.seed, bundle.options)
    for action in played[:step]:
        state.apply(action)
    return None if state.is_terminal() else state.current_player()


def _quote(action) -> str:
    text = json.dumps(action)
    return text if len(text) <= _QUOTE_CHARS else text[: _QUOTE_CHARS - 3] + "..."


def format_replay(report: dict) -> str:
    """The human-readable lines of :func:`replay_report`."""
    match = "the bundle's match" if report["match"] is None else f"match {report['match']}"
    lines = [f"--- replay of {match}"]
    for seat in report["seats"]:
        who = {"code": "the bundle's code", "recording": "its recorded actions (no code in the bundle)",
               "takeover": "the given bot"}[seat["played_by"]]
        line = f"    seat {seat['position']}: played by {who}"
        if seat["fallback_from_step"] is not None:
            line += (f"; the first legal action from step {seat['fallback_from_step']} on (its recorded one was "
                     "not legal there)")
        if seat["recorded_outcome"] not in (None, seat["outcome"]):
            line += f"; outcome {seat['outcome']}, recorded {printable(seat['recorded_outcome'])}"
        lines.append(line)
    takeover = report["takeover"]
    if takeover is not None:
        lines.append(f"    seat {takeover['seat']} taken over by {printable(takeover['bot'])} from step "
                     f"{takeover['from_step']}: "
                     "before it every seat followed the record (the bots were asked, their answers discarded)")
        if report["discarded"]:
            first, count = report["discarded"][0], len(report["discarded"])
            lines.append(f"    {count} answer{'' if count == 1 else 's'} before step {takeover['from_step']} differed from "
                         f"the record, the first at step {first['step']} (seat {first['seat']}: "
                         f"{_quote(first['answer'])}, recorded {_quote(first['recorded'])})")
    diverged = report["diverged_at"]
    if diverged is None:
        lines.append(f"    reproduces the {report['recorded_actions']} recorded actions exactly")
    else:
        on_move = "the game was over" if diverged["seat"] is None else f"seat {diverged['seat']} on move"
        played = "nothing (the game was over)" if diverged["played"] is None and diverged["step"] >= \
            report["played_actions"] else _quote(diverged["played"])
        recorded = "nothing (the recorded game was over)" if diverged["step"] >= report["recorded_actions"] \
            else _quote(diverged["recorded"])
        lines.append(f"    diverges from the record at step {diverged['step']} ({on_move}): played {played}, "
                     f"recorded {recorded}")
    return "\n".join(lines) + "\n"
