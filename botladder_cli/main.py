"""The ``botladder`` command: argument parsing, the subcommands, and what each exits with.

Exit statuses (docs/cli.md): 0 success (for ``compare --wait``: the candidate is better); 1 any failure
(an API error, an unreachable server, a bad path); 2 a usage error (argparse's); 3, 4, 5 the verdicts
worse, equal and inconclusive of ``compare --wait``; 6 an upload the worker rejected (``upload --wait``).
Human output goes to stdout and progress to stderr, every line of it escaped (``botladder_cli.terminal``:
the server's text is shown, never obeyed); ``--json`` prints one ASCII JSON document on stdout instead
(an error too: ``{"error", "status", "code", "fields", "retry_after_s"}``).
"""

from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
import time
from pathlib import Path

from botladder_cli.archive import ArchiveError, upload_payload
from botladder_cli.client import ApiError, Client
from botladder_cli.config import ConfigError, config_load, config_path, config_save
from botladder_cli.terminal import Output, ascii_json_line

OK, FAILURE, USAGE, WORSE, EQUAL, INCONCLUSIVE, REJECTED = 0, 1, 2, 3, 4, 5, 6
VERDICT_STATUS = {"better": OK, "worse": WORSE, "equal": EQUAL, "inconclusive": INCONCLUSIVE}


class Failure(Exception):
    """A failure to report with ``status`` (not an API error: those are ApiError)."""

    def __init__(self, message: str, status: int = FAILURE, body: dict | None = None) -> None:
        super().__init__(message)
        self.message, self.status, self.body = message, status, body


def _client(args, *, token_needed: bool = True) -> Client:
    config = config_load(url=getattr(args, "url", None))
    if token_needed and not config.token:
        raise Failure(f"not logged in to {config.url}: run `botladder login` (or set BOTLADDER_TOKEN)")
    return Client(config.url, config.token)


def _ids(text: str) -> list[int]:
    try:
        ids = [int(part) for part in text.replace(" ", "").split(",") if part]
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a comma-separated list of ids") from None
    if not ids or any(value < 1 for value in ids):
        raise argparse.ArgumentTypeError(f"{text!r}: ids are positive integers")
    return ids


def _poll(fetch, done, *, interval: float, timeout: float | None, what: str):
    """Call ``fetch()`` until ``done(body)``; Failure after ``timeout`` seconds (None: no limit)."""
    started = time.monotonic()
    while True:
        body = fetch()
        if done(body):
            return body
        if timeout is not None and time.monotonic() - started > timeout:
            raise Failure(f"gave up waiting for {what} after {timeout:g} seconds; it goes on on the server")
        time.sleep(interval)


# --- login --------------------------------------------------------------------------------------------


def cmd_login(args, out: Output) -> int:
    config = config_load(url=args.url)
    if args.password_stdin and not args.username:
        raise Failure("with --password-stdin, give --username too", status=USAGE)
    username = args.username or input("username: ").strip()
    if args.password_stdin:
        password = sys.stdin.readline().rstrip("\r\n")
    else:
        password = getpass.getpass("password: ")
    if not username or not password:
        raise Failure("give a username and a password")
    token = Client(config.url).post("/api/auth/token/", json={"username": username, "password": password})["token"]
    me = Client(config.url, token).get("/api/auth/me/")
    path = config_save(url=config.url, token=token)
    out.result({"url": config.url, "username": me["username"], "config": str(path)},
               [f"logged in to {config.url} as {me['username']}; token saved in {path}"])
    return OK


# --- upload -------------------------------------------------------------------------------------------


def _version_text(version: dict) -> str:
    text = f"version {version['number']}: {version['validation_status']}"
    return text + (f": {version['validation_message']}" if version.get("validation_message") else "")


def _version_line(bot: dict, version: dict) -> str:
    return f"bot {bot['id']} ({bot['name']}) {_version_text(version)}"


def cmd_upload(args, out: Output) -> int:
    new_bot = args.game is not None or args.name is not None
    if (args.bot is not None and new_bot) or (args.bot is None and (args.game is None or args.name is None)):
        raise Failure("say which bot: --game G --name N for a new bot, or --bot ID for a new version of yours",
                      status=USAGE)
    try:
        filename, code = upload_payload(Path(args.path))
    except ArchiveError as error:
        raise Failure(str(error)) from None
    client = _client(args)
    files = {"code": (filename, code)}
    if args.bot is None:
        bot = client.post("/api/bots/", data={"game": args.game, "name": args.name}, files=files)
        bot_id, number = bot["id"], bot["versions"][-1]["number"]
    else:
        bot_id, number = args.bot, client.post(f"/api/bots/{args.bot}/versions/", files=files)["number"]

    def version_of(bot: dict) -> dict:
        return next(v for v in bot["versions"] if v["number"] == number)

    bot = client.get(f"/api/bots/{bot_id}/")
    if args.wait:
        started = time.monotonic()

        def fetch():
            body = client.get(f"/api/bots/{bot_id}/")
            if version_of(body)["validation_status"] == "pending":
                out.progress(f"bot {bot_id} version {number}: waiting for the check "
                             f"({time.monotonic() - started:.0f} s)")
            return body

        bot = _poll(fetch, lambda body: version_of(body)["validation_status"] != "pending", interval=1.0,
                    timeout=args.timeout, what=f"the check of bot {bot_id} version {number}")
    version = version_of(bot)
    result = {"bot": {key: bot[key] for key in ("id", "name", "game", "owner")}, "version": version}
    lines = [_version_line(bot, version)]
    if version["validation_status"] == "rejected":
        if version.get("validation_log"):
            lines += ["--- the end of what the bot printed:", *_text_lines(version["validation_log"])]
        out.result(result, lines)
        return REJECTED
    out.result(result, lines)
    return OK


def _text_lines(text: str) -> list[str]:
    """A bot's text of several lines (its log) as the lines it printed; a CR stays in its line, escaped."""
    return text.rstrip("\n").split("\n")


def cmd_bot(args, out: Output) -> int:
    bot = _client(args, token_needed=False).get(f"/api/bots/{args.bot}/")
    current = bot.get("current_version") or {}
    lines = [f"bot {bot['id']} ({bot['name']}, {bot['game']}, owner {bot['owner']}): "
             f"{'active' if bot['active'] else 'inactive'}, plays version {current.get('number', 'none')}"]
    lines += ["  " + _version_text(version) for version in bot["versions"]]
    out.result(bot, lines)
    return OK


# --- compare ------------------------------------------------------------------------------------------


def _elo(elo: dict, games: int) -> str:
    if elo.get("estimate") is None:
        # Null before the first pair, and when every pair went one way (the estimate is infinite).
        return "Elo ?" if not games else "Elo unbounded"
    low = "-inf" if elo.get("low") is None else f"{elo['low']:+.0f}"
    high = "+inf" if elo.get("high") is None else f"{elo['high']:+.0f}"
    return f"Elo {elo['estimate']:+.0f} [{low}, {high}]"


def comparison_line(body: dict) -> str:
    """``games 24/200  LLR 1.31 in [-2.94, 2.94]  Elo +120 [+40, +210]``, with the verdict once done."""
    llr = body["llr"]
    line = (f"comparison {body['id']}: games {body['games']}/{body['max_games']}  LLR {llr['value']:.2f} in "
            f"[{llr['lower']:.2f}, {llr['upper']:.2f}]  {_elo(body['elo'], body['games'])}")
    return line + (f"  -> {body['verdict']}" if body.get("verdict") else "")


def cmd_compare(args, out: Output) -> int:
    client = _client(args)
    request = {"baseline": args.baseline, "candidate": args.candidate, "opponents": args.opponents or []}
    for name in ("max_games", "elo0", "elo1", "alpha", "beta"):
        if getattr(args, name) is not None:
            request[name] = getattr(args, name)
    body = client.post(f"/api/bots/{args.bot}/comparisons/", json=request)
    if not args.wait:
        out.result(body, [comparison_line(body), f"follow it: botladder follow {body['id']}"])
        return OK
    return _follow_comparison(client, body["id"], args, out)


def _follow_comparison(client: Client, comparison_id: int, args, out: Output) -> int:
    def fetch():
        body = client.get(f"/api/comparisons/{comparison_id}/")
        if body["status"] != "done":
            out.progress(comparison_line(body))
        return body

    body = _poll(fetch, lambda body: body["status"] == "done", interval=args.interval, timeout=args.timeout,
                 what=f"comparison {comparison_id}")
    out.result(body, [comparison_line(body)])
    return VERDICT_STATUS.get(body["verdict"], FAILURE)


def cmd_follow(args, out: Output) -> int:
    return _follow_comparison(_client(args), args.comparison, args, out)


# --- tournaments --------------------------------------------------------------------------------------


def _option(text: str) -> tuple[str, object]:
    key, sep, value = text.partition("=")
    if not sep or not key:
        raise argparse.ArgumentTypeError(f"{text!r}: write an option as name=value (value in JSON, e.g. true)")
    try:
        return key, json.loads(value)
    except ValueError:
        return key, value


def _tournament_line(body: dict) -> str:
    progress = body.get("progress") or {}
    return (f"tournament {body['id']} ({body['name']}, {body['game']}): {body['status']}, "
            f"{progress.get('finished', 0)}/{progress.get('total', 0)} matches finished, "
            f"{progress.get('failed', 0)} failed")


def cmd_tournament_create(args, out: Output) -> int:
    client = _client(args)
    request = {"game": args.game, "name": args.name, "bots": args.bots, "players_per_match": args.players,
               "games_per_pairing": args.games_per_pairing, "options": dict(args.option or []),
               "duplicate": args.duplicate}
    if args.seed is not None:
        request["seed"] = args.seed
    body = client.post("/api/tournaments/", json=request)
    if args.wait:
        def fetch():
            current = client.get(f"/api/tournaments/{body['id']}/")
            if current["status"] == "running":
                out.progress(_tournament_line(current))
            return current

        body = _poll(fetch, lambda current: current["status"] != "running", interval=args.interval,
                     timeout=args.timeout, what=f"tournament {body['id']}")
    lines = [_tournament_line(body)]
    lines += [f"  {line['rank']:>3}. {line['bot']} (bot {line['bot_id']}): {line['points']:g} points"
              for line in body.get("standings") or []]
    out.result(body, lines)
    failed = (body.get("progress") or {}).get("failed", 0)
    return FAILURE if args.wait and (body["status"] != "finished" or failed) else OK


# --- matches, logs, bundles, export -------------------------------------------------------------------


def cmd_matches(args, out: Output) -> int:
    client = _client(args, token_needed=False)
    body = client.get("/api/matches/", game=args.game, bot=args.bot, tournament=args.tournament,
                      status=args.status, page_size=args.limit)
    rows = body["results"]
    lines = [f"{len(rows)} of {body['count']} matches, newest first"]
    for match in rows:
        seats = ", ".join(f"{seat['bot']} v{seat['version']}"
                          + (f" {seat['score']} (#{seat['place']})" if seat.get("place") else "")
                          for seat in match["seats"])
        lines.append(f"{match['id']:>8}  {match['game']:<16} {match['status']:<9} {seats}")
    out.result(rows, lines)
    return OK


def cmd_logs(args, out: Output) -> int:
    body = _client(args).get(f"/api/matches/{args.match}/logs/")
    lines = []
    for seat in body["seats"]:
        lines.append(f"--- seat {seat['position']}: {seat['bot']} v{seat['version']} ({seat['outcome']}"
                     + (f": {seat['reason']}" if seat.get("reason") else "") + ")")
        lines += _text_lines(seat["log"]) if seat.get("log") else ["(printed nothing)"]
    out.result(body, lines)
    return OK


def cmd_bundle(args, out: Output) -> int:
    client = _client(args, token_needed=False)
    body = client.get(f"/api/matches/{args.match}/bundle/")
    path = Path(args.output or f"match-{args.match}.json")
    try:
        path.write_text(json.dumps(body, indent=1) + "\n", encoding="utf-8")
    except OSError as error:
        raise Failure(f"cannot write {path}: {error.strerror}") from None
    out.result({"match": args.match, "file": str(path)},
               [f"match {args.match} saved in {path}; replay it with: python manage.py play --from-bundle {path}"])
    return OK


def _resume_point(path: Path) -> int:
    """The id of the last complete line of an export file (0 for none), where ``--resume`` goes on; a
    broken last line (the download cut in its middle) is cut off the file first."""
    last, end = 0, 0
    with open(path, "rb+") as file:
        for line in file:
            if not line.endswith(b"\n"):
                break
            end += len(line)
            if line.strip():
                try:
                    last = int(json.loads(line)["id"])
                except (ValueError, KeyError, TypeError):
                    raise Failure(f"{path} holds a line that is not an exported match: export afresh "
                                  "without --resume") from None
        file.truncate(end)
    return last


def cmd_export(args, out: Output) -> int:
    client = _client(args, token_needed=False)
    after = args.after
    if args.resume:
        if not args.output:
            raise Failure("--resume goes on with the file of -o FILE", status=USAGE)
        path = Path(args.output)
        after = _resume_point(path) if path.exists() else 0
    target, count, last = None, 0, after
    try:
        # One response holds at most X-Export-Limit matches: as many, and the next ones follow after the last.
        while True:
            page = client.stream(f"/api/exports/{args.game}/matches/", after=last or None)
            # The file is opened once the server answered: a refusal leaves an earlier export as it was.
            if target is None:
                target = open(args.output, "ab" if args.resume else "wb") if args.output else sys.stdout.buffer
            limit, in_page, pending = int(page.headers.get("X-Export-Limit") or 0), 0, b""
            try:
                # Only complete lines are written, so that a download cut short leaves a file --resume continues.
                for chunk in page.chunks():
                    *lines, pending = (pending + chunk).split(b"\n")
                    for line in lines:
                        # A file keeps the server's bytes; a terminal gets what it can show without obeying.
                        target.write((line if args.output else ascii_json_line(line)) + b"\n")
                    if lines:
                        count, in_page, last = count + len(lines), in_page + len(lines), json.loads(lines[-1])["id"]
                        if args.output:
                            out.progress(f"{count} matches exported (last id {last})")
                if pending:
                    raise ApiError(f"the download from {client.url} ended in the middle of a line")
            except ApiError as error:
                hint = "; run the same command with --resume to go on" if args.output else ""
                raise ApiError(f"{error.message} after {count} matches (last id {last}){hint}") from None
            if not limit or in_page < limit:
                break
    finally:
        if target is not None:
            target.flush()
            if args.output:
                target.close()
    if args.output:
        out.result({"game": args.game, "matches": count, "last_id": last, "file": args.output},
                   [f"{count} {args.game} matches written to {args.output} (last id {last})"])
    return OK


# --- the parser ---------------------------------------------------------------------------------------


def parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", help="print one JSON document instead of text")
    common.add_argument("--url", help="the server (default: BOTLADDER_URL, then the config file)")
    waiting = argparse.ArgumentParser(add_help=False)
    waiting.add_argument("--timeout", type=float, default=None, help="give up waiting after this many seconds")
    waiting.add_argument("--interval", type=float, default=2.0, help="seconds between polls (default 2)")

    top = argparse.ArgumentParser(prog="botladder", description="A command-line client of the bot ladder's API "
                                  "(docs/cli.md). Exit status: 0 ok, 1 failure, 2 usage, compare --wait: 3 worse, "
                                  "4 equal, 5 inconclusive; upload --wait: 6 rejected.")
    commands = top.add_subparsers(dest="command", required=True, metavar="COMMAND")

    login = commands.add_parser("login", parents=[common], help="get your API token and save it")
    login.add_argument("--username")
    login.add_argument("--password-stdin", action="store_true", help="read the password from standard input")
    login.set_defaults(run=cmd_login)

    upload = commands.add_parser("upload", parents=[common, waiting], help="upload a new bot or a new version")
    upload.add_argument("path", help="bot.py, a .zip with bot.py at its root, or a folder (zipped for you)")
    upload.add_argument("--game", help="a new bot: its game")
    upload.add_argument("--name", help="a new bot: its name")
    upload.add_argument("--bot", type=int, help="a new version of your bot with this id")
    upload.add_argument("--wait", action="store_true", help="wait for the check: exit 0 accepted, 6 rejected")
    upload.set_defaults(run=cmd_upload)

    bot = commands.add_parser("bot", parents=[common], help="a bot: the version that plays, every version's check")
    bot.add_argument("bot", type=int, help="the bot's id")
    bot.set_defaults(run=cmd_bot)

    compare = commands.add_parser("compare", parents=[common, waiting], help="is version M of your bot better "
                                  "than version N?")
    compare.add_argument("bot", type=int, help="your bot's id")
    compare.add_argument("--baseline", type=int, required=True, help="version number of the baseline")
    compare.add_argument("--candidate", type=int, required=True, help="version number of the candidate")
    compare.add_argument("--opponents", type=_ids, help="bot ids of a field to play against (default: each other)")
    compare.add_argument("--max-games", type=int)
    compare.add_argument("--elo0", type=float, help="H0: the candidate is elo0 better (default 0)")
    compare.add_argument("--elo1", type=float, help="H1: the candidate is elo1 better (default 20)")
    compare.add_argument("--alpha", type=float)
    compare.add_argument("--beta", type=float)
    compare.add_argument("--wait", action="store_true", help="follow it; exit 0 better, 3 worse, 4 equal, "
                                                             "5 inconclusive")
    compare.set_defaults(run=cmd_compare)

    follow = commands.add_parser("follow", parents=[common, waiting], help="follow a running comparison to its "
                                 "verdict (exit status as compare --wait)")
    follow.add_argument("comparison", type=int, help="the comparison's id")
    follow.set_defaults(run=cmd_follow)

    tournament = commands.add_parser("tournament", help="round robins")
    tournament_commands = tournament.add_subparsers(dest="tournament_command", required=True, metavar="COMMAND")
    create = tournament_commands.add_parser("create", parents=[common, waiting], help="start a round robin")
    create.add_argument("--game", required=True)
    create.add_argument("--name", required=True)
    create.add_argument("--bots", type=_ids, required=True, help="bot ids, comma-separated")
    create.add_argument("--players", type=int, default=2, help="players per match (default 2)")
    create.add_argument("--games-per-pairing", type=int, default=1)
    create.add_argument("--seed", type=int)
    create.add_argument("--duplicate", action="store_true", help="play each deal in every seat rotation")
    create.add_argument("--option", type=_option, action="append", help="a game option, name=value (repeat)")
    create.add_argument("--wait", action="store_true", help="wait until it finished (exit 1 if a match failed)")
    create.set_defaults(run=cmd_tournament_create)

    matches = commands.add_parser("matches", parents=[common], help="list matches, newest first")
    matches.add_argument("--game")
    matches.add_argument("--bot", type=int)
    matches.add_argument("--tournament", type=int)
    matches.add_argument("--status", choices=("queued", "running", "finished", "failed"))
    matches.add_argument("--limit", type=int, default=20, help="how many (at most 100)")
    matches.set_defaults(run=cmd_matches)

    logs = commands.add_parser("logs", parents=[common], help="your bots' logs in a match")
    logs.add_argument("match", type=int)
    logs.set_defaults(run=cmd_logs)

    bundle = commands.add_parser("bundle", parents=[common], help="save a finished match to replay at home")
    bundle.add_argument("match", type=int)
    bundle.add_argument("-o", "--output", help="the file (default match-<id>.json)")
    bundle.set_defaults(run=cmd_bundle)

    export = commands.add_parser("export", parents=[common], help="every finished public match of a game, as "
                                 "JSON Lines")
    export.add_argument("game")
    export.add_argument("-o", "--output", help="the file (default: standard output)")
    export.add_argument("--after", type=int, default=0, help="only matches with a larger id")
    export.add_argument("--resume", action="store_true", help="go on after the last match already in -o FILE")
    export.set_defaults(run=cmd_export)
    return top


def main(argv: list[str] | None = None) -> int:
    args = parser().parse_args(argv)
    out = Output(getattr(args, "json", False))
    try:
        return args.run(args, out)
    except ApiError as error:
        return _fail(out, error.lines, error.to_json(), FAILURE)
    except Failure as error:
        return _fail(out, [error.message], {"error": error.message, **(error.body or {})}, error.status)
    except ConfigError as error:
        return _fail(out, [str(error)], {"error": str(error), "config": str(config_path())}, FAILURE)
    except (KeyError, TypeError, IndexError, StopIteration) as error:
        # An answer without what the ladder's API always sends: another server, or another version of it.
        message = (f"the server's answer lacks what botladder expects ({type(error).__name__}: {error}): is "
                   f"{config_load(url=getattr(args, 'url', None)).url} a bot ladder of this version?")
        return _fail(out, [message], {"error": message}, FAILURE)
    except EOFError:
        return _fail(out, ["standard input ended before the answer was read"], {"error": "end of input"}, FAILURE)
    except BrokenPipeError:
        # The reader of standard output went away (`botladder export GAME | head`): stop quietly.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
    except OSError as error:  # a file of ours: -o into a missing folder, a full disk
        message = f"{error.filename}: {error.strerror}" if error.filename else str(error)
        return _fail(out, [message], {"error": message}, FAILURE)
    except KeyboardInterrupt:
        out.error(["interrupted"])
        return 130


def _fail(out: Output, lines: list[str], body: dict, status: int) -> int:
    """Report a failure: ``body`` as the JSON document with ``--json``, and ``lines`` on stderr always."""
    if out.as_json:
        out.json(body)
    out.error(lines)
    return status
