"""``python -m ladder.private_postgres -- COMMAND``: COMMAND gets a PostgreSQL server of its own when
``DATABASE_URL`` is unset, kept data in ``VAR_DIR/postgres``, a throwaway cluster for a second run at once,
and no server process outlives the run, however it ends (COMMAND's exit, SIGINT passed on, SIGKILL)."""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

from ladder.private_postgres import THROWAWAY_PREFIX, remove_stale_throwaways, try_lock
from tests.conftest import wait_until

REPO = Path(__file__).resolve().parents[2]
WRAPPER = [sys.executable, "-m", "ladder.private_postgres", "--"]

# COMMAND of the tests: says what server it reached (its URL, version, data folder, postmaster's pid).
REPORT = """
import json, os, sys, psycopg
with psycopg.connect(os.environ["DATABASE_URL"], autocommit=True) as c:
    row = c.execute("SELECT current_database(), current_setting('server_version_num'),"
                    " current_setting('data_directory'), (SELECT pid FROM pg_stat_activity"
                    " WHERE backend_type = 'checkpointer')").fetchone()
print(json.dumps({"url": os.environ["DATABASE_URL"], "database": row[0], "version": int(row[1]),
                  "data": row[2], "checkpointer": row[3]}), flush=True)
"""


@pytest.fixture
def var_dir():
    """A VAR_DIR the server's user (``nobody`` when the tests run as root) can reach."""
    folder = Path(tempfile.mkdtemp(prefix="ladder-private-postgres-test-"))
    folder.chmod(0o755)
    yield folder / "var"
    shutil.rmtree(folder, ignore_errors=True)


def environment(var_dir: Path) -> dict[str, str]:
    env = {key: value for key, value in os.environ.items() if key != "DATABASE_URL"}
    env["VAR_DIR"] = str(var_dir)
    return env


def report(var_dir: Path, *then: str) -> tuple[dict, subprocess.CompletedProcess]:
    done = subprocess.run([*WRAPPER, sys.executable, "-c", "\n".join([REPORT, *then])], cwd=REPO,
                          env=environment(var_dir), capture_output=True, text=True, timeout=120)
    return json.loads(done.stdout.splitlines()[0]), done


def alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state != "Z"


def test_a_command_gets_a_server_of_its_own_that_keeps_its_data_and_stops_after_it(var_dir):
    first, done = report(var_dir, "c = psycopg.connect(os.environ['DATABASE_URL'], autocommit=True)",
                         "c.execute('CREATE TABLE kept (n int)'); c.execute('INSERT INTO kept VALUES (7)')")
    assert done.returncode == 0, done.stderr
    assert first["url"].startswith("postgres://postgres@127.0.0.1:") and first["url"].endswith("/ladder")
    assert first["database"] == "ladder" and first["version"] >= 180000
    assert Path(first["data"]) == var_dir / "postgres"
    assert not alive(first["checkpointer"])

    second, done = report(var_dir, "c = psycopg.connect(os.environ['DATABASE_URL'])",
                          "sys.exit(c.execute('SELECT n FROM kept').fetchone()[0])")
    assert done.returncode == 7, done.stderr  # the command's status, and the data of the first run
    assert not alive(second["checkpointer"])


def test_with_a_database_url_the_command_runs_on_it_alone(var_dir):
    env = {**environment(var_dir), "DATABASE_URL": "postgres://somebody@db.invalid/elsewhere"}
    done = subprocess.run([*WRAPPER, sys.executable, "-c", "import os; print(os.environ['DATABASE_URL'])"],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "postgres://somebody@db.invalid/elsewhere"
    assert not (var_dir / "postgres").exists()


def test_a_second_run_at_once_gets_a_throwaway_server_deleted_after_it(var_dir):
    holding = subprocess.Popen([*WRAPPER, sys.executable, "-c", REPORT + "\nimport time; time.sleep(60)"],
                               cwd=REPO, env=environment(var_dir), stdout=subprocess.PIPE, text=True)
    try:
        kept = json.loads(holding.stdout.readline())
        other, done = report(var_dir)
        assert done.returncode == 0, done.stderr
        assert Path(kept["data"]) == var_dir / "postgres"
        assert other["url"] != kept["url"] and Path(other["data"]).parent.name.startswith("ladder-postgres-")
        assert not Path(other["data"]).exists() and not alive(other["checkpointer"])
        assert alive(kept["checkpointer"])  # the first run's server was left alone
    finally:
        holding.kill()
        holding.wait()


def test_sigint_reaches_the_command_which_still_has_its_database_then_the_server_stops(var_dir):
    # The handler goes in before the report: the signal is sent once the report is read.
    command = """
import signal, time
stopping = []
signal.signal(signal.SIGINT, lambda *_: stopping.append(1))
""" + REPORT + """
while not stopping:
    time.sleep(0.05)
with psycopg.connect(os.environ["DATABASE_URL"]) as c:
    sys.exit(c.execute("SELECT 3").fetchone()[0])
"""
    run = subprocess.Popen([*WRAPPER, sys.executable, "-c", command], cwd=REPO, env=environment(var_dir),
                           stdout=subprocess.PIPE, text=True)
    seen = json.loads(run.stdout.readline())
    run.send_signal(signal.SIGINT)
    assert run.wait(timeout=60) == 3
    assert not alive(seen["checkpointer"])


def test_a_killed_run_leaves_neither_command_nor_server(var_dir):
    command = REPORT + "\nimport time; print(os.getpid(), flush=True); time.sleep(120)"
    run = subprocess.Popen([*WRAPPER, sys.executable, "-c", command], cwd=REPO, env=environment(var_dir),
                           stdout=subprocess.PIPE, text=True)
    seen = json.loads(run.stdout.readline())
    command_pid = int(run.stdout.readline())
    run.kill()
    run.wait()
    wait_until(lambda: not alive(command_pid) and not alive(seen["checkpointer"]), timeout=15, interval=0.1,
               message="the command and the server to end with the wrapper")
    # The next run takes the same data folder again, past the crash.
    again, done = report(var_dir)
    assert done.returncode == 0, done.stderr
    assert again["data"] == seen["data"]


def test_a_throwaway_cluster_is_deleted_by_a_later_run_once_its_own_has_died(var_dir):
    temp_dir = var_dir.parent
    stale, held = temp_dir / f"{THROWAWAY_PREFIX}stale", temp_dir / f"{THROWAWAY_PREFIX}held"
    for folder in (stale, held):
        (folder / "data").mkdir(parents=True)
        (folder / "lock").touch()
    lock = try_lock(held / "lock")
    try:
        remove_stale_throwaways(temp_dir)
        assert not stale.exists() and (held / "data").exists()
    finally:
        os.close(lock)
