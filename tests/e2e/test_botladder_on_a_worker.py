"""The ``botladder`` command as a bot author's CI job runs it, each call its own process, against a live
server and real ``celery worker`` processes: it logs in, uploads a bot and versions and waits for their
checks (a broken one rejected with its message), compares a greedy version with a random one (exit 0)
and the reverse (exit 3, worse), runs a round robin, and exports it: each of its matches once, and an
exported match replays to its scores with the engine."""

import json
from pathlib import Path

import pytest

import engines
from ladder.models import Match
from tests.cli.conftest import cli_process
from tests.e2e.test_round_robin import EXAMPLES, registered
from tests.factories import FIRST_LEGAL_BOT, LAST_LEGAL_BOT

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]


def test_a_ci_job_uploads_compares_runs_a_round_robin_and_exports_it(workers, live_server, tmp_path):
    registered("ada")
    env = {"BOTLADDER_URL": live_server.url, "XDG_CONFIG_HOME": str(tmp_path / "config"), "BOTLADDER_TOKEN": ""}

    def botladder(*argv: str, stdin: str = ""):
        run = cli_process(*argv, env=env, stdin=stdin)
        assert "Traceback" not in run.err, run.err
        return run

    def uploaded(path: Path, *target: str) -> dict:
        run = botladder("upload", str(path), *target, "--wait", "--interval", "0.3", "--json")
        assert run.status == 0, (run.out, run.err, workers.logs())
        return json.loads(run.out)

    run = botladder("login", "--username", "ada", "--password-stdin", stdin="a-long-passphrase\n")
    assert run.status == 0 and "logged in" in run.out, run.err

    learner = uploaded(EXAMPLES / "random_bot.py", "--game", "kingdomino", "--name", "learner")
    assert learner["version"]["validation_status"] == "accepted"
    bot_id = learner["bot"]["id"]
    assert uploaded(EXAMPLES / "greedy_bot.py", "--bot", str(bot_id))["version"]["number"] == 2
    broken = tmp_path / "broken.py"
    broken.write_bytes(b"def act(observation, legal_actions:\n    return legal_actions[0]\n")
    run = botladder("upload", str(broken), "--bot", str(bot_id), "--wait", "--interval", "0.3")
    assert run.status == 6, (run.out, run.err)
    assert "version 3: rejected" in run.out and "syntax error" in run.out

    # The SPRT's H1 at 100 Elo: greedy against random decides within a few dozen games either way.
    sprt = ("--elo1", "100", "--max-games", "200", "--wait", "--interval", "0.5")
    better = botladder("compare", str(bot_id), "--baseline", "1", "--candidate", "2", *sprt, "--json")
    assert better.status == 0, (better.out, better.err, workers.logs())
    assert json.loads(better.out)["verdict"] == "better"
    worse = botladder("compare", str(bot_id), "--baseline", "2", "--candidate", "1", *sprt)
    assert worse.status == 3, (worse.out, worse.err)
    assert "-> worse" in worse.out and "LLR" in worse.out
    print(f"greedy over random: {json.loads(better.out)['games']} games; the reverse: {worse.out.strip()}")
    compared = set(Match.objects.filter(comparison__isnull=False).values_list("id", flat=True))
    assert compared

    entrants = [bot_id]
    for name, code in (("first", FIRST_LEGAL_BOT), ("last", LAST_LEGAL_BOT)):
        (tmp_path / f"{name}.py").write_bytes(code)
        entrants.append(uploaded(tmp_path / f"{name}.py", "--game", "kingdomino", "--name", name)["bot"]["id"])
    run = botladder("tournament", "create", "--game", "kingdomino", "--name", "cli",
                    "--bots", ",".join(map(str, entrants)), "--games-per-pairing", "2", "--seed", "5", "--wait",
                    "--interval", "0.5", "--json")
    assert run.status == 0, (run.out, run.err, workers.logs())
    tournament = json.loads(run.out)
    assert tournament["status"] == "finished" and tournament["progress"]["finished"] == 6

    path = tmp_path / "kingdomino.jsonl"
    run = botladder("export", "kingdomino", "-o", str(path))
    assert run.status == 0, run.err
    lines = [json.loads(line) for line in path.read_bytes().splitlines()]
    ids = [line["id"] for line in lines]
    assert ids == sorted(set(ids)) and not compared & set(ids)
    played = sorted(Match.objects.filter(tournament_id=tournament["id"]).values_list("id", flat=True))
    assert [line["id"] for line in lines if line["tournament_id"] == tournament["id"]] == played
    one = lines[-1]
    state = engines.get(one["game"]).new_state(one["players"], one["seed"], one["options"])
    for action in one["actions"]:
        state.apply(action)
    assert state.is_terminal() and state.scores() == [seat["score"] for seat in one["seats"]]
    assert one["rules_version"] == engines.get("kingdomino").rules_version
