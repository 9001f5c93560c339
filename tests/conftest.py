"""Shared fixtures: the factories of ``tests/factories.py`` as fixtures, API clients, and real Celery
worker processes.

Rows are built through factories (``tests/factories.py``, never ``Model.objects.create`` in a test).
Worker processes are real ``celery worker`` subprocesses on the configured broker (Kombu's filesystem
transport by default, Redis in CI) and the configured database (the test database on the PostgreSQL
server), so the workers see exactly what the test committed.
"""

from __future__ import annotations

import ast
import inspect
import os
import re
import signal
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from tests.factories import BotFactory, UserFactory, api_token_key

REPO = Path(__file__).resolve().parent.parent



def sandbox_is_available() -> bool:
    """Whether bots can run isolated on this machine. Where they cannot, the tests run their own
    trusted bots in the explicit unsafe mode, which is what a developer's machine would do too."""
    from bots.referee import SandboxUnavailable
    from bots.sandbox import get_sandbox

    try:
        get_sandbox(allow_unsafe=False)
    except SandboxUnavailable:
        return False
    return True


#: Fixtures that start real sandboxes, or real workers (which start them).
SANDBOX_FIXTURES = frozenset({"sandbox", "own_sandbox", "isolated", "worker_pool", "workers"})
#: What a test calls when it plays or checks bots in the real sandbox without one of those fixtures: the
#: shared sandbox, an upload's check, or the sandbox bench; and the referee's sandboxed match, when the
#: module's ``play_match`` is the referee's (not an in-process helper of the same name).
_SANDBOX_NAMES = ("get_sandbox", "ZygoteSandbox", "bot_version_validate", "validate_upload", "smoke_match",
                  "bench_sandbox", "check_pending_uploads", "match_execute", "validation_run")
#: A command that plays bots, started as a process.
_SANDBOX_COMMANDS = re.compile(r'"manage\.py", "(play|demo)"')
#: Folders every test of which starts real workers, and so sandboxes.
_SANDBOX_FOLDERS = ("e2e",)


def _file_sources(filename: str) -> dict[tuple[str, int], str]:
    """The source of each function defined in the file, decorators included, by (name, first line): the
    file is read and parsed once, where ``inspect.getsource`` tokenizes it again for each function."""
    try:
        text = Path(filename).read_text()
        tree = ast.parse(text)
    except (OSError, SyntaxError, ValueError):
        return {}
    lines = text.splitlines(keepends=True)
    sources = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            # A decorated function's code starts at its first decorator, as inspect.getsource's does.
            first = min([node.lineno, *(decorator.lineno for decorator in node.decorator_list)])
            sources[node.name, first] = "".join(lines[first - 1:node.end_lineno])
    return sources


def _source(function, sources: dict) -> str:
    """``function``'s source as ``inspect.getsource`` gives it (empty if it has none); ``sources`` keeps
    :func:`_file_sources` by file."""
    code = getattr(inspect.unwrap(function), "__code__", None)
    if code is None:
        return ""
    if code.co_filename not in sources:
        sources[code.co_filename] = _file_sources(code.co_filename)
    found = sources[code.co_filename].get((code.co_name, code.co_firstlineno))
    if found is None:  # a lambda, say
        try:
            found = inspect.getsource(function)
        except (OSError, TypeError):
            found = ""
    return found


def _calls(names) -> re.Pattern:
    return re.compile(rf"(?<![\w.])({'|'.join(names)})\(")


def _sandbox_calls(module, seen: dict, sources: dict) -> re.Pattern:
    """The calls that start sandboxes in ``module``: the sandbox's entry points, and the names of the
    module's own functions that call one (one level of helpers)."""
    if module not in seen:
        names = list(_SANDBOX_NAMES)
        referee_match = getattr(module, "play_match", None)
        if getattr(referee_match, "__module__", None) == "bots.referee":
            names.append("play_match")
        direct = _calls(names)
        names += [name for name, function in vars(module).items()
                  if inspect.isfunction(function) and function.__module__ == module.__name__
                  and (direct.search(_source(function, sources))
                       or _SANDBOX_COMMANDS.search(_source(function, sources)))]
        seen[module] = _calls(names)
    return seen[module]


def _starts_sandboxes(item, seen: dict, sources: dict) -> bool:
    if SANDBOX_FIXTURES & set(getattr(item, "fixturenames", ())):
        return True
    if Path(str(item.fspath)).parent.name in _SANDBOX_FOLDERS:
        return True
    function, module = getattr(item, "function", None), getattr(item, "module", None)
    if function is None or module is None:
        return False
    source = _source(function, sources)
    return bool(_sandbox_calls(module, seen, sources).search(source) or _SANDBOX_COMMANDS.search(source))


def pytest_collection_modifyitems(config, items):
    """Mark ``sandbox`` every test that starts real sandboxes: by the fixtures it uses (``SANDBOX_FIXTURES``),
    its folder (``tests/e2e``), or because it, or a function of its module it calls, plays or checks bots
    through the real sandbox (``_SANDBOX_NAMES``). ``-m "not sandbox"`` runs what a machine without Linux
    isolation can run."""
    seen: dict = {}
    sources: dict = {}
    for item in items:
        if _starts_sandboxes(item, seen, sources):
            item.add_marker(pytest.mark.sandbox)
    _skip_redis_tests_without_redis(items)


#: Why a ``redis`` test is skipped where the broker is not Redis (``make test`` without CELERY_BROKER_URL).
NEEDS_REDIS = ("needs Redis: CELERY_BROKER_URL is not a redis:// URL here (.ci/run runs the tests marked "
               "redis against Redis)")


def broker_is_redis() -> bool:
    """Whether the configured broker is Redis (CI), rather than Kombu's filesystem transport."""
    from django.conf import settings

    return settings.CELERY_BROKER_URL.startswith("redis://")


def _skip_redis_tests_without_redis(items) -> None:
    """Skip the tests marked ``redis`` (what only Redis has: the result group, the reconciler's view of
    taken messages, messages listed by match, FLUSHDB) where the broker is another."""
    if broker_is_redis():
        return
    for item in items:
        if item.get_closest_marker("redis"):
            item.add_marker(pytest.mark.skip(reason=NEEDS_REDIS))


@pytest.fixture(scope="session")
def django_db_setup(django_db_setup, django_db_blocker):
    """The test database with autovacuum off on its tables (as the CI machine's server has it everywhere):
    a background ANALYZE that lands while a table is empty between two tests would change the plans of the
    tests after it, which assert what their statements read. Statistics change only where a test asks."""
    from django.db import connection

    with django_db_blocker.unblock(), connection.cursor() as cursor:
        cursor.execute("SELECT format('ALTER TABLE %I.%I SET (autovacuum_enabled = off)', schemaname, tablename) "
                       "FROM pg_tables WHERE schemaname = current_schema()")
        for (statement,) in cursor.fetchall():
            cursor.execute(statement)


@pytest.fixture(scope="session")
def bots_allow_unsafe() -> bool:
    available = sandbox_is_available()
    if not available and os.environ.get("CI"):
        pytest.fail("CI must run bots in the real sandbox, but isolation is unavailable on this machine")
    return not available


@pytest.fixture(autouse=True)
def _ladder_settings(request):
    """Apply the sandbox mode to Django settings for tests that use Django at all."""
    uses_django = {"settings", "db", "transactional_db", "live_server"} & set(request.fixturenames)
    if not uses_django and not request.node.get_closest_marker("django_db"):
        yield
        return
    settings = request.getfixturevalue("settings")
    # Asked only here, so that tests without Django never start a sandbox for the question.
    settings.BOTS_ALLOW_UNSAFE = request.getfixturevalue("bots_allow_unsafe")
    yield


@pytest.fixture
def user_factory(db):
    return UserFactory


@pytest.fixture
def bot_factory(db):
    return BotFactory


@pytest.fixture(scope="module")
def big_history(django_db_setup, django_db_blocker):
    """10,000 finished matches between 20 bots, built in bulk (``tests.factories.big_history``): the history
    the query-count tests of the site and the API read. Built once per module, in a transaction that each
    test's own nests in (as a savepoint) and that is rolled back when the module's tests are done, so the
    tests of a module that reads it must all use ``db``, not ``transactional_db``."""
    from django.db import connection, transaction

    from tests.factories import big_history

    with django_db_blocker.unblock():
        module_transaction = transaction.atomic()
        module_transaction.__enter__()
        try:
            history = big_history()
            # Checked now, once: left deferred, the foreign keys of its rows would be checked again at the
            # end of each test, whose savepoint's rollback puts them back in the queue.
            connection.check_constraints()
        except BaseException:
            transaction.set_rollback(True)
            module_transaction.__exit__(None, None, None)
            raise
    yield history
    with django_db_blocker.unblock():
        transaction.set_rollback(True)
        module_transaction.__exit__(None, None, None)


@pytest.fixture(autouse=True)
def _no_counters_from_earlier_tests():
    """Every test starts with this process's in-memory cache empty: the quotas and throttles count in the
    cache by user and by client address, and one test's counts must not reach the next test's. (A shared
    cache is emptied only by :func:`fresh_cache`, where a test asks for it.)"""
    from django.core.cache import caches
    from django.core.cache.backends.locmem import LocMemCache

    if isinstance(caches["default"], LocMemCache):
        caches["default"].clear()


@pytest.fixture(autouse=True)
def _no_match_durations_from_earlier_tests():
    """Every test starts with this process's figures of how long matches take unread: they size the
    messages of a send (``ladder.messaging.match_durations``), and an earlier test's matches would size
    this one's."""
    from ladder.messaging.match_durations import match_seconds_forget

    match_seconds_forget()


@pytest.fixture
def fresh_cache():
    """The cache (rate limit counters) empty when the test starts and when it ends."""
    from django.core.cache import cache

    cache.clear()
    yield cache
    cache.clear()


@pytest.fixture
def throttle_rates(settings):
    """Set rate limits for one test: ``throttle_rates(uploads="2/hour")`` (None turns one off)."""

    def apply(**rates):
        settings.REST_FRAMEWORK = {
            **settings.REST_FRAMEWORK,
            "DEFAULT_THROTTLE_RATES": {**settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"], **rates},
        }

    return apply


@pytest.fixture
def api_client():
    from rest_framework.test import APIClient

    return APIClient()


@pytest.fixture
def auth_client(db):
    """An API client authenticated with a fresh user's token; the user is ``auth_client.user``."""
    from rest_framework.test import APIClient

    api_client = APIClient()
    user = UserFactory()
    api_client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_key(user)}")
    api_client.user = user
    return api_client


# --- Real worker processes --------------------------------------------------------------------------


def database_url() -> str:
    """A URL for the database the tests are using right now (the test database, not the configured one)."""
    from django.db import connection

    conf = connection.settings_dict
    auth = conf["USER"] or ""
    if conf.get("PASSWORD"):
        auth += f":{conf['PASSWORD']}"
    host = conf["HOST"] or "127.0.0.1"
    port = f":{conf['PORT']}" if conf.get("PORT") else ""
    return f"postgres://{auth}@{host}{port}/{conf['NAME']}"


class WorkerPool:
    """Starts and stops ``celery worker`` subprocesses for one test, each in its own process group."""

    def __init__(self, *, queue: str, env: dict[str, str], log_dir: Path) -> None:
        self.queue = queue
        self.env = env
        self.log_dir = log_dir
        self.processes: list[subprocess.Popen] = []

    def start(self, *, concurrency: int = 1, name: str | None = None, args: tuple[str, ...] = (),
              queues: str | None = None, pool: str = "prefork") -> subprocess.Popen:
        """Start a match worker with ``concurrency`` pool processes, on the upload checks', the matches' and
        the ladder's queues (as production's match workers: never the webhooks'); ``args`` are more
        ``celery worker`` options."""
        name = name or f"w{len(self.processes)}-{uuid.uuid4().hex[:6]}"
        queues = queues or f"{self.queue}.validation,{self.queue},{self.queue}.ladder"
        with open(self.log_dir / f"{name}.log", "wb") as log:
            process = subprocess.Popen(
                [sys.executable, "-m", "celery", "-A", "workers", "worker", "-Q", queues, "-c", str(concurrency),
                 "-P", pool, "-n", f"{name}@%h", "--without-gossip", "--without-mingle", "--without-heartbeat",
                 "-l", "INFO", *args],
                cwd=REPO, env=self.env, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
            )
        self.processes.append(process)
        return process

    def start_webhooks(self, *, concurrency: int = 4, name: str | None = None) -> subprocess.Popen:
        """Start a webhook worker, as production runs one: the webhooks' queue alone, on ``concurrency``
        threads (deliveries wait on other people's servers, not on a CPU)."""
        return self.start(concurrency=concurrency, name=name or f"hooks{len(self.processes)}-{uuid.uuid4().hex[:6]}",
                          queues=f"{self.queue}.webhooks", pool="threads", args=("--prefetch-multiplier", "8"))

    def kill(self, process: subprocess.Popen) -> None:
        """SIGKILL the worker and everything it started, as if its machine died."""
        _signal_group(process, signal.SIGKILL)
        process.wait(timeout=10)

    def stop_all(self) -> None:
        for process in self.processes:
            if process.poll() is None:
                _signal_group(process, signal.SIGTERM)
        # A worker's warm shutdown waits for its match; tests need no grace, only a clean slate.
        deadline = time.monotonic() + 3
        for process in self.processes:
            try:
                process.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                pass
            # Whatever is left of the group (pool children, bot processes) goes too.
            _signal_group(process, signal.SIGKILL)
            if process.poll() is None:
                process.wait(timeout=5)
        self.processes.clear()

    def logs(self) -> str:
        return "\n".join(f"--- {p.name}\n{p.read_text(errors='replace')[-4000:]}" for p in self.log_dir.glob("*.log"))

    def purge(self) -> None:
        """Drop every message left on the pool's queues. Left, they would stay in the filesystem broker's one
        folder, which every worker of the machine lists each time it polls (every 10 ms, per queue)."""
        for suffix in ("", ".validation", ".ladder", ".webhooks"):
            broker_queue_purge(self.queue + suffix)


def _signal_group(process: subprocess.Popen, sig: int) -> None:
    try:
        os.killpg(process.pid, sig)
    except ProcessLookupError:
        pass


def wait_until(predicate, *, timeout: float, interval: float = 0.2, message: str = "condition"):
    """Poll ``predicate`` until it returns something truthy; fail the test after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"timed out after {timeout}s waiting for {message}")
        time.sleep(interval)


def wait_until_checked(client, bot_ids, *, timeout: float = 120) -> dict[int, str]:
    """Wait until a worker has decided the newest version of each bot; {bot id: its status}."""

    def decided():
        statuses = {bot_id: client.get(f"/api/bots/{bot_id}/").json()["versions"][-1]["validation_status"]
                    for bot_id in bot_ids}
        return statuses if "pending" not in statuses.values() else None

    return wait_until(decided, timeout=timeout, interval=0.3, message="the workers to check the uploads")


def broker_queue_purge(queue: str) -> int:
    """Drop every message waiting in ``queue`` on the configured broker, as a flushed Redis would."""
    from ladder.messaging.enqueue import broker_queue_purge as purge

    return purge(queue)


@pytest.fixture
def private_queue(settings):
    """A queue of the configured broker that only this test uses (``settings.MATCH_QUEUE``), purged after."""
    queue = f"test-{uuid.uuid4().hex[:10]}"
    settings.MATCH_QUEUE = queue
    settings.LADDER_QUEUE = f"{queue}.ladder"
    yield queue
    broker_queue_purge(queue)
    broker_queue_purge(settings.LADDER_QUEUE)


def _worker_env(queue: str, *, bots_allow_unsafe: bool) -> dict[str, str]:
    """The environment of a worker process on ``queue`` (and its ``.validation``, ``.ladder`` and
    ``.webhooks`` queues) and the test database."""
    from django.conf import settings

    env = {
        **os.environ,
        "DJANGO_SETTINGS_MODULE": "ladder.settings_test",
        "DATABASE_URL": database_url(),
        "MATCH_QUEUE": queue,
        "VALIDATION_QUEUE": f"{queue}.validation",
        "LADDER_QUEUE": f"{queue}.ladder",
        "WEBHOOKS_QUEUE": f"{queue}.webhooks",
        "CELERY_TASK_DEFAULT_QUEUE": queue,
        "BOTS_ALLOW_UNSAFE": "1" if bots_allow_unsafe else "0",
        "VAR_DIR": str(settings.VAR_DIR),
        "PYTHONUNBUFFERED": "1",
    }
    if settings.CELERY_BROKER_URL:
        env["CELERY_BROKER_URL"] = settings.CELERY_BROKER_URL
    return env


def _use_queues(settings, queue: str) -> None:
    """Send what the test enqueues to ``queue`` and its sibling queues (see :func:`_worker_env`)."""
    settings.MATCH_QUEUE = queue
    settings.VALIDATION_QUEUE = f"{queue}.validation"
    settings.LADDER_QUEUE = f"{queue}.ladder"
    settings.WEBHOOKS_QUEUE = f"{queue}.webhooks"


#: The session's shared worker (:func:`workers`), once started.
_SHARED_POOLS: list[WorkerPool] = []


@pytest.fixture
def worker_pool(transactional_db, settings, tmp_path, bots_allow_unsafe):
    """Real worker processes of this test alone, on a private queue of the configured broker, against the
    test database: for the tests that configure their workers (``env``), kill them, or start them at a
    chosen moment. The others share :func:`workers`.

    Matches enqueued by the test go to that queue (``settings.MATCH_QUEUE``); ``start`` starts a match
    worker, ``start_webhooks`` a webhook worker (``settings.WEBHOOKS_QUEUE``). Every process is stopped
    (its whole process group) when the test ends, pass or fail, and the queues are emptied.
    """
    # Alone on the test database, as before there was a shared worker: some of these tests count the
    # database's connections or time their workers.
    for shared in _SHARED_POOLS:
        shared.stop_all()
    queue = f"test-{uuid.uuid4().hex[:10]}"
    _use_queues(settings, queue)
    pool = WorkerPool(queue=queue, env=_worker_env(queue, bots_allow_unsafe=bots_allow_unsafe), log_dir=tmp_path)
    yield pool
    pool.stop_all()
    pool.purge()


#: Pool processes of the shared match worker: two, so that what runs side by side does.
SHARED_CONCURRENCY = 2
#: How long a test's leftovers (a match that was running when it ended) may take to finish before the
#: shared worker is replaced instead.
SHARED_DRAIN_S = 30


@pytest.fixture(scope="session")
def _shared_worker_pool(django_db_setup, django_db_blocker, tmp_path_factory, bots_allow_unsafe):
    """The session's one match worker (``SHARED_CONCURRENCY`` processes) on queues of its own, started when
    a test asks for it; stopped by a test that needs the database's workers all its own (``worker_pool``)
    and by one that leaves it unclean (see :func:`workers`)."""
    queue = f"test-shared-{uuid.uuid4().hex[:8]}"
    with django_db_blocker.unblock():
        env = _worker_env(queue, bots_allow_unsafe=bots_allow_unsafe)
    pool = WorkerPool(queue=queue, env=env, log_dir=tmp_path_factory.mktemp("shared-workers"))
    _SHARED_POOLS.append(pool)
    yield pool
    _SHARED_POOLS.remove(pool)
    pool.stop_all()
    pool.purge()


def _drained(*, timeout: float) -> bool:
    """Whether nothing of the test is left on a worker: no match running, no upload waiting for its check."""
    from ladder.models import BotVersion, Match

    deadline = time.monotonic() + timeout
    while Match.objects.filter(status="running").exists() or BotVersion.objects.filter(validation_status="pending").exists():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.2)
    return True


def _last_user_of(items, fixture: str):
    """The last of ``items`` (the tests this session runs, in order) that uses ``fixture``."""
    return next((item for item in reversed(items) if fixture in getattr(item, "fixturenames", ())), None)


@pytest.fixture
def workers(request, transactional_db, settings, _shared_worker_pool):
    """The session's shared worker, running, with this test's matches and checks sent to its queues: for
    the tests that only play through workers (they neither configure, kill nor time their start).

    After the test its queues are emptied and what it left running is awaited; a worker that does not
    drain within ``SHARED_DRAIN_S`` (a failed test's backlog) is stopped, and the next test starts a new
    one; after the session's last test that uses it, it is stopped too. The test database is emptied after
    that, as after every test with real workers.
    """
    pool = _shared_worker_pool
    _use_queues(settings, pool.queue)
    if not any(process.poll() is None for process in pool.processes):
        pool.stop_all()
        pool.start(concurrency=SHARED_CONCURRENCY, name="shared")
    yield pool
    pool.purge()
    if not _drained(timeout=SHARED_DRAIN_S) or request.node is _last_user_of(request.session.items, "workers"):
        # Not drained; or no test after this one needs it, and an idle worker still polls its queues.
        pool.stop_all()
