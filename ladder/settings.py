"""Django settings for the bot ladder, read from the environment in this one place.

Every setting has a typed default and a comment. Production differs from the embedded default only
through environment variables (every one is listed in docs/settings.md):

* embedded default (``make demo``, ``make test``): a private PostgreSQL server that ``python -m
  ladder.private_postgres`` starts for the command (its data under ``var/``) and names in ``DATABASE_URL``,
  and Kombu's filesystem broker under ``var/``;
* production (docker compose): ``DATABASE_URL`` points at PostgreSQL, ``CELERY_BROKER_URL`` at Redis.

Secrets are never written here: ``SECRET_KEY`` must come from the environment unless ``DEBUG`` is on.
"""

from __future__ import annotations

import ipaddress
from pathlib import Path

import environ
from django.core.exceptions import ImproperlyConfigured
from kombu import Queue

BASE_DIR = Path(__file__).resolve().parent.parent

env = environ.Env()

# Where the embedded default keeps its PostgreSQL data folder (ladder.private_postgres), broker folders and
# bot code cache.
VAR_DIR: Path = Path(env.str("VAR_DIR", default=str(BASE_DIR / "var"))).resolve()
VAR_DIR.mkdir(parents=True, exist_ok=True)

# --- Core -------------------------------------------------------------------------------------------

# Development mode: detailed error pages and a throwaway SECRET_KEY. Never on in production.
DEBUG: bool = env.bool("DEBUG", default=False)

# Signs sessions and tokens. Required from the environment unless DEBUG is on.
SECRET_KEY: str = env.str("SECRET_KEY", default="")
if not SECRET_KEY:
    if not DEBUG:
        raise ImproperlyConfigured("SECRET_KEY must be set in the environment when DEBUG is off")
    SECRET_KEY = "development-only-secret-key-not-for-production"

# Host names this site answers to; the loopback names are enough for the embedded default.
ALLOWED_HOSTS: list[str] = env.list("ALLOWED_HOSTS", default=["127.0.0.1", "localhost", "[::1]"])

# Origins trusted for form posts behind a TLS proxy (e.g. https://ladder.example.org).
CSRF_TRUSTED_ORIGINS: list[str] = env.list("CSRF_TRUSTED_ORIGINS", default=[])

# The proxies in front of the site, for the client address every per-address limit counts by
# (ladder.core.client_address): how many proxies always append to X-Forwarded-For ...
NUM_PROXIES: int = env.int("NUM_PROXIES", default=0)
# ... and/or their addresses or networks (e.g. 10.0.0.0/8). Neither set: the header is never believed and
# the client is the socket's peer (REMOTE_ADDR).
TRUSTED_PROXIES: list[str] = env.list("TRUSTED_PROXIES", default=[])
for _proxy in TRUSTED_PROXIES:
    try:
        ipaddress.ip_network(_proxy.strip(), strict=False)
    except ValueError:
        raise ImproperlyConfigured(f"TRUSTED_PROXIES: {_proxy!r} is no IP address or network (10.0.0.0/8)") from None
if NUM_PROXIES < 0:
    raise ImproperlyConfigured(f"NUM_PROXIES must be 0 or more, got {NUM_PROXIES}")

INSTALLED_APPS = [
    "django.contrib.admin",
    "django.contrib.auth",
    "django.contrib.contenttypes",
    "django.contrib.sessions",
    "django.contrib.messages",
    "whitenoise.runserver_nostatic",
    "django.contrib.staticfiles",
    "rest_framework",
    "django_filters",
    "drf_spectacular",
    "drf_spectacular_sidecar",
    "ladder",
]

MIDDLEWARE = [
    "django.middleware.security.SecurityMiddleware",
    "whitenoise.middleware.WhiteNoiseMiddleware",
    "django.contrib.sessions.middleware.SessionMiddleware",
    "django.middleware.common.CommonMiddleware",
    "django.middleware.csrf.CsrfViewMiddleware",
    "django.contrib.auth.middleware.AuthenticationMiddleware",
    "django.contrib.messages.middleware.MessageMiddleware",
    "django.middleware.clickjacking.XFrameOptionsMiddleware",
]

ROOT_URLCONF = "ladder.urls"
WSGI_APPLICATION = "ladder.wsgi.application"
ASGI_APPLICATION = "ladder.asgi.application"

TEMPLATES = [
    {
        "BACKEND": "django.template.backends.django.DjangoTemplates",
        "DIRS": [BASE_DIR / "ladder" / "web" / "templates"],
        "APP_DIRS": True,
        "OPTIONS": {
            "context_processors": [
                "django.template.context_processors.request",
                "django.contrib.auth.context_processors.auth",
                "django.contrib.messages.context_processors.messages",
            ],
        },
    },
]

# --- Database ---------------------------------------------------------------------------------------

# The database URL: postgres://user:pw@host:port/db (PostgreSQL only). ``make demo`` and ``make test`` set it
# to a private server of their own (ladder.private_postgres); unset, a PostgreSQL on this machine's standard
# port.
DATABASES = {"default": env.db_url("DATABASE_URL", default="postgres://postgres@127.0.0.1:5432/ladder")}
if DATABASES["default"]["ENGINE"] != "django.db.backends.postgresql":
    raise ImproperlyConfigured("DATABASE_URL must be a PostgreSQL URL (postgres://...); without it, `make demo` "
                               "and `make test` start a private PostgreSQL")
# Reuse connections between requests and tasks (seconds); 0 closes them after each one.
DATABASES["default"]["CONN_MAX_AGE"] = env.int("DATABASE_CONN_MAX_AGE", default=60)
# What sits between the project and PostgreSQL: "" (nothing, or a pooler in session mode) or "transaction"
# (PgBouncer's transaction pooling, where consecutive transactions of one connection may run on different
# server connections). The project keeps no session state (``synchronous_commit`` is set per transaction,
# workers/app.py); behind transaction pooling it also opens no server-side cursor and prepares no statement,
# both of which live in one server connection.
DATABASE_POOLER: str = env.str("DATABASE_POOLER", default="")
if DATABASE_POOLER not in ("", "transaction"):
    raise ImproperlyConfigured(f"DATABASE_POOLER must be empty or 'transaction', not {DATABASE_POOLER!r}")
# The hot statements of claiming and recording matches (ladder.core.database.statement_cursor) are prepared
# the second time a connection sends them; Django's own queries, bound on the client, never are.
DATABASES["default"].setdefault("OPTIONS", {})["prepare_threshold"] = 2
if DATABASE_POOLER == "transaction":
    DATABASES["default"]["DISABLE_SERVER_SIDE_CURSORS"] = True
    DATABASES["default"]["OPTIONS"]["prepare_threshold"] = None

DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"

AUTH_PASSWORD_VALIDATORS = [
    {"NAME": "django.contrib.auth.password_validation.UserAttributeSimilarityValidator"},
    {"NAME": "django.contrib.auth.password_validation.MinimumLengthValidator"},
    {"NAME": "django.contrib.auth.password_validation.CommonPasswordValidator"},
    {"NAME": "django.contrib.auth.password_validation.NumericPasswordValidator"},
]

# Shared cache, used for the rate limits' counters (ladder.core.quotas, ladder.api.throttles): with
# several gunicorn processes or web machines the limits hold only if they count in one place. Empty: a
# per-process memory cache (one process).
CACHE_URL: str = env.str("CACHE_URL", default="")
if CACHE_URL:
    if not CACHE_URL.startswith(("redis://", "rediss://", "unix://")):
        raise ImproperlyConfigured(f"CACHE_URL must be a Redis URL (redis://host:6379/1), got {CACHE_URL!r}")
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.redis.RedisCache", "LOCATION": CACHE_URL}}
else:
    CACHES = {"default": {"BACKEND": "django.core.cache.backends.locmem.LocMemCache"}}

LANGUAGE_CODE = "en-us"
TIME_ZONE = "UTC"
USE_I18N = True
USE_TZ = True

# --- Static files -----------------------------------------------------------------------------------

STATIC_URL = "/static/"
STATIC_ROOT = VAR_DIR / "static"
STATICFILES_DIRS = [BASE_DIR / "ladder" / "web" / "static"]
# In development whitenoise serves straight from the app folders, so no collectstatic is needed.
WHITENOISE_USE_FINDERS: bool = env.bool("WHITENOISE_USE_FINDERS", default=DEBUG)
STORAGES = {
    "default": {"BACKEND": "django.core.files.storage.FileSystemStorage"},
    "staticfiles": {
        "BACKEND": (
            "django.contrib.staticfiles.storage.StaticFilesStorage"
            if DEBUG
            else "whitenoise.storage.CompressedManifestStaticFilesStorage"
        )
    },
}

# --- REST API ---------------------------------------------------------------------------------------

# API tokens an account may hold at once (one per script or machine); past it, one must be revoked first.
API_TOKENS_PER_USER: int = env.int("API_TOKENS_PER_USER", default=50)

REST_FRAMEWORK = {
    "DEFAULT_AUTHENTICATION_CLASSES": [
        # Scripts: "Authorization: Token <key>" (ladder.models.ApiToken). Listed first so that a missing
        # login answers 401.
        "ladder.api.authentication.ApiTokenAuthentication",
        # The site's pages: the session cookie, with CSRF enforced on every unsafe request.
        "rest_framework.authentication.SessionAuthentication",
    ],
    "DEFAULT_PERMISSION_CLASSES": ["rest_framework.permissions.IsAuthenticatedOrReadOnly"],
    # Bounded parsers (size, and depth for JSON): no body, however deep or large, answers but a 400.
    "DEFAULT_PARSER_CLASSES": [
        "ladder.api.parsers.JSONParser",
        "ladder.api.parsers.FormParser",
        "ladder.api.parsers.MultiPartParser",
    ],
    "DEFAULT_PAGINATION_CLASS": "ladder.api.pagination.LadderPagination",
    "PAGE_SIZE": env.int("API_PAGE_SIZE", default=50),
    "DEFAULT_FILTER_BACKENDS": ["django_filters.rest_framework.DjangoFilterBackend"],
    "DEFAULT_SCHEMA_CLASS": "drf_spectacular.openapi.AutoSchema",
    "EXCEPTION_HANDLER": "ladder.api.errors.exception_handler",
    # Rates per scope, e.g. "30/hour": uploads, tournaments (comparisons too), webhooks created or deleted,
    # and bots deactivated or reactivated (each of which may tell every webhook of the owner) per user,
    # counted by the services (ladder.core.quotas.write_rate_check); registrations and logins per
    # client address, by the API views that name them (ladder/api/throttles.py).
    "DEFAULT_THROTTLE_CLASSES": [],
    "DEFAULT_THROTTLE_RATES": {
        "uploads": env.str("API_THROTTLE_UPLOADS", default="60/hour"),
        "registrations": env.str("API_THROTTLE_REGISTRATIONS", default="20/hour"),
        "tournaments": env.str("API_THROTTLE_TOURNAMENTS", default="30/hour"),
        "logins": env.str("API_THROTTLE_LOGINS", default="100/hour"),
        "exports": env.str("API_THROTTLE_EXPORTS", default="60/hour"),
        "webhooks": env.str("API_THROTTLE_WEBHOOKS", default="30/hour"),
        "activations": env.str("API_THROTTLE_ACTIVATIONS", default="30/hour"),
    },
}

SPECTACULAR_SETTINGS = {
    "TITLE": "Bot ladder API",
    "DESCRIPTION": (
        "Upload bots, run tournaments, read leaderboards and replays. Scripts authenticate with "
        "`Authorization: Token <key>` (POST /api/auth/token/); reads are public except bot code and bot logs. "
        "Every error has the shape `{detail, code, fields}`: `detail` says what to fix."
    ),
    "VERSION": "1",
    # Swagger UI and Redoc assets come from drf-spectacular-sidecar: nothing is fetched from a CDN.
    "SWAGGER_UI_DIST": "SIDECAR",
    "SWAGGER_UI_FAVICON_HREF": "SIDECAR",
    "REDOC_DIST": "SIDECAR",
    "SERVE_INCLUDE_SCHEMA": False,
    "COMPONENT_SPLIT_REQUEST": True,
    "ENUM_NAME_OVERRIDES": {
        "MatchStatusEnum": "ladder.models.Match.Status",
        "TournamentStatusEnum": "ladder.models.Tournament.Status",
        "TournamentKindEnum": "ladder.models.Tournament.Kind",
        "BotVersionKindEnum": "ladder.models.BotVersion.Kind",
    },
}

# Largest upload accepted by the API (bytes); the bot validator applies its own, finer caps.
DATA_UPLOAD_MAX_MEMORY_SIZE: int = env.int("DATA_UPLOAD_MAX_MEMORY_SIZE", default=4 * 1024 * 1024)
FILE_UPLOAD_MAX_MEMORY_SIZE: int = DATA_UPLOAD_MAX_MEMORY_SIZE
# Largest JSON request body the API reads (bytes); a tournament naming a hundred bots takes a few KiB.
API_JSON_MAX_BYTES: int = env.int("API_JSON_MAX_BYTES", default=1024 * 1024)

# --- Celery (read by workers/app.py with the CELERY_ namespace) ------------------------------------

# The broker only rings the bell: the database is the source of truth for every match. The default is
# Kombu's filesystem transport, a real broker that needs no server.
CELERY_BROKER_URL: str = env.str("CELERY_BROKER_URL", default="filesystem://")
BROKER_DIR: Path = VAR_DIR / "broker"
if CELERY_BROKER_URL.startswith("filesystem://"):
    # The transport ignores the host, but Kombu warns of a URL without one at every connection.
    CELERY_BROKER_URL = "filesystem://localhost/"
    for _folder in ("queue", "processed", "control"):
        (BROKER_DIR / _folder).mkdir(parents=True, exist_ok=True)
    CELERY_BROKER_TRANSPORT_OPTIONS: dict = {
        "data_folder_in": str(BROKER_DIR / "queue"),
        "data_folder_out": str(BROKER_DIR / "queue"),
        "processed_folder": str(BROKER_DIR / "processed"),
        "control_folder": str(BROKER_DIR / "control"),
        "store_processed": False,
        # Seconds between scans of an empty queue folder; the 1 s default would dominate a match's
        # round trip, 10 ms keeps a no-op task in the low milliseconds at negligible CPU.
        "polling_interval": env.float("CELERY_BROKER_POLLING_INTERVAL", default=0.01),
    }
    # The same transport, with waits that end after one polling interval (see ladder/brokers/filesystem.py).
    CELERY_BROKER_TRANSPORT = "ladder.brokers.filesystem:Transport"
else:
    CELERY_BROKER_TRANSPORT_OPTIONS = {
        # Seconds before Redis hands an unacknowledged message to another worker; longer than any
        # match so a slow match is not played twice (the reconciler covers workers that died).
        "visibility_timeout": env.int("CELERY_VISIBILITY_TIMEOUT", default=3600),
        # A worker listening to several queues always takes from the first that has a message (the
        # upload checks' queue, then the matches'), instead of taking turns.
        "queue_order_strategy": "priority",
    }
# Results live in the database, never in a result backend.
CELERY_TASK_IGNORE_RESULT = True
CELERY_TASK_SERIALIZER = "json"
CELERY_ACCEPT_CONTENT = ["json"]
# A task is acknowledged after it ran, and requeued if its worker process dies: safe because
# run_match and run_matches are idempotent (claim with a lease and an attempt token).
CELERY_TASK_ACKS_LATE = True
CELERY_TASK_REJECT_ON_WORKER_LOST = True
# One message at a time per worker process, so a long match never holds back queued ones.
CELERY_WORKER_PREFETCH_MULTIPLIER = 1
CELERY_BROKER_CONNECTION_RETRY_ON_STARTUP = True
CELERY_WORKER_HIJACK_ROOT_LOGGER = False
CELERY_WORKER_SEND_TASK_EVENTS = False
CELERY_TASK_DEFAULT_QUEUE: str = env.str("CELERY_TASK_DEFAULT_QUEUE", default="ladder")
# Queue that match tasks go to; workers consume it (tests use a private name per run).
MATCH_QUEUE: str = env.str("MATCH_QUEUE", default=CELERY_TASK_DEFAULT_QUEUE)
# Queue that upload checks (compile + smoke match of a pending bot version) go to, ahead of matches: a
# worker started without -Q consumes both, this one first.
VALIDATION_QUEUE: str = env.str("VALIDATION_QUEUE", default=f"{MATCH_QUEUE}.validation")
# Queue of the ladder's matches, taken only when the other two are empty: the ladder keeps seconds of work
# queued so that no worker idles, and a tournament scheduled meanwhile must not wait behind it.
LADDER_QUEUE: str = env.str("LADDER_QUEUE", default=f"{MATCH_QUEUE}.ladder")
# Queue of webhook deliveries (ladder/services/webhooks/deliveries.py): HTTP posts that mostly wait on
# somebody else's server, consumed only by the webhook workers (celery worker -Q <this> -P threads,
# docs/operations.md). It is not among the match workers' queues (CELERY_TASK_QUEUES): a delivery never takes
# a match worker's time.
WEBHOOKS_QUEUE: str = env.str("WEBHOOKS_QUEUE", default=f"{MATCH_QUEUE}.webhooks")
# What a worker started without -Q consumes: the match workers' queues, in the order they are taken.
CELERY_TASK_QUEUES = (Queue(VALIDATION_QUEUE), Queue(MATCH_QUEUE), Queue(LADDER_QUEUE))
if CELERY_BROKER_URL.startswith("redis://"):
    # Kombu orders the queues of its "priority" strategy by a set, so by each process's hash seed: this
    # transport keeps them in this order (ladder/brokers/redis_queues.py).
    CELERY_BROKER_TRANSPORT = "ladder.brokers.redis_queues:Transport"
    CELERY_BROKER_TRANSPORT_OPTIONS["queue_order"] = [VALIDATION_QUEUE, MATCH_QUEUE, LADDER_QUEUE]
# Seconds a version may stay pending before the reconciler sends its check again (a lost message).
VALIDATION_REQUEUE_AFTER_S: int = env.int("VALIDATION_REQUEUE_AFTER_S", default=120)
# The most of a worker process's time that upload checks may take while matches wait (workers/time_share.py):
# past it, a check the process takes plays a waiting match instead and goes back to its queue. 1 turns
# the bound off (checks always first).
VALIDATION_MAX_SHARE: float = env.float("VALIDATION_MAX_SHARE", default=0.25)
if not 0 < VALIDATION_MAX_SHARE <= 1:
    raise ImproperlyConfigured(f"VALIDATION_MAX_SHARE must be above 0 and at most 1, not {VALIDATION_MAX_SHARE}")

# --- Sandbox limits (passed to bots.limits.Limits) --------------------------------------------------
# A match is played under: these defaults <- BOTS_LIMITS_BY_GAME[game] <- its tournament's overrides,
# resolved when it is scheduled and stored on the match (ladder/core/limits.py). The system check
# (ladder/checks.py, run by manage.py check/migrate/runserver) refuses values that do not fit.

BOTS_MOVE_MS: int = env.int("BOTS_MOVE_MS", default=1000)  # wall-clock limit per decision
BOTS_BANK_MS: int = env.int("BOTS_BANK_MS", default=20000)  # time bank per bot per match
BOTS_MATCH_MS: int = env.int("BOTS_MATCH_MS", default=30000)  # all of a bot's decisions in one match
BOTS_MEMORY_MB: int = env.int("BOTS_MEMORY_MB", default=256)  # memory cap per bot process
BOTS_LOG_BYTES: int = env.int("BOTS_LOG_BYTES", default=65536)  # bot log kept per seat
# Per-game overrides of any field of bots.limits.Limits, as JSON: {"carcassonne_dice": {"move_ms": 500}}.
try:
    BOTS_LIMITS_BY_GAME: dict = env.json("BOTS_LIMITS_BY_GAME", default={})
except ValueError as _error:
    raise ImproperlyConfigured(
        f'BOTS_LIMITS_BY_GAME must be JSON such as {{"carcassonne_dice": {{"move_ms": 500}}}}: {_error}'
    ) from None
# Caps on what a tournament (and the settings above) may choose. They bound every match, so the system
# check holds BOTS_MAX_MATCH_MS against MATCH_SOFT_TIME_LIMIT_S: a full table whose bots all spend their
# whole start time and match time, one after the other, must fit in it with room for the engine.
BOTS_MAX_MOVE_MS: int = env.int("BOTS_MAX_MOVE_MS", default=5000)
BOTS_MAX_BANK_MS: int = env.int("BOTS_MAX_BANK_MS", default=30000)
# 5 players x (5 s start + 40 s) + 10 s engine margin = 235 s, inside the default soft limit of 240 s.
BOTS_MAX_MATCH_MS: int = env.int("BOTS_MAX_MATCH_MS", default=40000)
BOTS_MAX_MEMORY_MB: int = env.int("BOTS_MAX_MEMORY_MB", default=1024)
BOTS_MAX_LOG_BYTES: int = env.int("BOTS_MAX_LOG_BYTES", default=1024 * 1024)
# Run bots without isolation when the sandbox cannot be set up here. Local development only.
BOTS_ALLOW_UNSAFE: bool = env.bool("BOTS_ALLOW_UNSAFE", default=False)
# Largest accepted upload in bytes, before any unpacking.
BOTS_MAX_UPLOAD_BYTES: int = env.int("BOTS_MAX_UPLOAD_BYTES", default=1024 * 1024)

# --- Matches and the pipeline -----------------------------------------------------------------------

# Seconds a claimed match's lease lasts. The worker playing it renews it every MATCH_HEARTBEAT_S, so the
# lease bounds how long the match of a worker that died waits for the reconciler, not how long a match
# may be played (the time limits below do that).
MATCH_LEASE_S: int = env.int("MATCH_LEASE_S", default=30)
# Seconds between two renewals of a running match's lease by its worker. The system check wants it at
# most a third of the lease, so that a renewal or two delayed by a busy machine do not let it lapse.
MATCH_HEARTBEAT_S: float = env.float("MATCH_HEARTBEAT_S", default=5.0)
# Group commit of results (ladder/services/play/result_group.py): a worker hands its played match to its
# game's group in the broker (Redis only) and one waiting worker records every result waiting there in one
# transaction.
RESULTS_GROUP_COMMIT: bool = env.bool("RESULTS_GROUP_COMMIT", default=True)
# The most results one transaction of the group records.
RESULTS_GROUP_BATCH: int = env.int("RESULTS_GROUP_BATCH", default=200)
# Seconds a worker waits for its result's answer before it records the result itself; well inside the lease,
# which nobody renews once the match is played.
RESULTS_GROUP_WAIT_S: float = env.float("RESULTS_GROUP_WAIT_S", default=10.0)
if RESULTS_GROUP_BATCH < 1 or RESULTS_GROUP_WAIT_S <= 0:
    raise ImproperlyConfigured("RESULTS_GROUP_BATCH must be at least 1 and RESULTS_GROUP_WAIT_S above 0")
# Matches sent together go out several to a message (run_matches), claimed in one transaction and recorded
# together by the worker that takes it (ladder/messaging/enqueue.py, match_message_sizes): at most
# MATCHES_PER_MESSAGE to a message, over at least MATCH_MESSAGES_MIN messages for a send that has that many
# matches, so that as many worker processes share it, and over more where the game's recent matches
# (ladder/messaging/match_durations.py) say each message would carry more than MATCH_MESSAGE_WORK_S seconds
# of play: long matches go out one a message to every free process. Only where the broker can list its
# messages (Redis), which the reconciler needs to tell which matches a message carries; elsewhere one
# match a message. A message's fixed costs (Celery's hand-over, the claim, the recording's round trips)
# are shared by its matches (docs/benchmarks.md).
MATCHES_PER_MESSAGE: int = env.int("MATCHES_PER_MESSAGE", default=16)
MATCH_MESSAGES_MIN: int = env.int("MATCH_MESSAGES_MIN", default=8)
MATCH_MESSAGE_WORK_S: float = env.float("MATCH_MESSAGE_WORK_S", default=0.5)
# Seconds a worker holds the results of a message's matches to record them together, at most: past it, the
# results played so far are recorded before the next match begins (their leases renewed meanwhile).
RESULTS_HOLD_S: float = env.float("RESULTS_HOLD_S", default=1.0)
if MATCHES_PER_MESSAGE < 1 or MATCH_MESSAGES_MIN < 1 or RESULTS_HOLD_S < 0 or MATCH_MESSAGE_WORK_S <= 0:
    raise ImproperlyConfigured("MATCHES_PER_MESSAGE and MATCH_MESSAGES_MIN must be at least 1, RESULTS_HOLD_S "
                               "at least 0, MATCH_MESSAGE_WORK_S above 0")
# Celery's soft and hard time limits for run_match, per match (run_matches has them times the matches it
# may carry): they bound the longest match, and the system check holds BOTS_MAX_MATCH_MS against the soft
# one. A soft timeout releases the match for a retry.
MATCH_SOFT_TIME_LIMIT_S: int = env.int("MATCH_SOFT_TIME_LIMIT_S", default=240)
MATCH_TIME_LIMIT_S: int = env.int("MATCH_TIME_LIMIT_S", default=MATCH_SOFT_TIME_LIMIT_S + 30)
# Times a match is attempted after sandbox faults before it is marked failed.
MATCH_MAX_ATTEMPTS: int = env.int("MATCH_MAX_ATTEMPTS", default=3)
# How often the reconciler runs (seconds): it hands the matches of dead workers (expired leases) to others
# and sends again the messages a broker lost (queued matches it holds no message for, waiting or taken by a
# worker). One read of the queued matches and of the messages in flight per run; the backlog is read only
# when the counts fall short.
RECONCILE_INTERVAL_S: float = env.float("RECONCILE_INTERVAL_S", default=5.0)
# Seconds a queued match may sit unclaimed before the reconciler sends its message again whatever the
# broker says (a broker that cannot count its queue); a duplicate message is harmless, the claim skips it.
MATCH_REQUEUE_AFTER_S: int = env.int("MATCH_REQUEUE_AFTER_S", default=600)
# Whether workers wait for PostgreSQL to flush each commit (claims and results). Off by default: a
# result lost in a crash of the database server is played again by the reconciler
# (ladder.services.play.matches.matches_reconcile; workers/app.py sets the commit mode).
MATCH_SYNCHRONOUS_COMMIT: bool = env.bool("MATCH_SYNCHRONOUS_COMMIT", default=False)
# Largest number of matches one tournament may schedule.
TOURNAMENT_MAX_MATCHES: int = env.int("TOURNAMENT_MAX_MATCHES", default=5000)
# Matches one user may schedule in unrated tournaments in any 24 hours (ladder/core/quotas.py).
UNRATED_MATCHES_PER_DAY: int = env.int("UNRATED_MATCHES_PER_DAY", default=5000)
# Worker seconds one user may spend on unrated tournaments and comparisons in any 24 hours
# (ladder/core/worker_time.py): each match reserves its worst case when scheduled (80 s for a
# two-player match at the default limits) and settles at what it took. Two worker processes for a day:
# room for a comparison of the default 2,000 games at that worst case; staff are exempt.
WORKER_SECONDS_PER_DAY: int = env.int("WORKER_SECONDS_PER_DAY", default=2 * 86400)
# Version comparisons (ladder/services/tournaments/comparisons.py): the games one may play when max_games is
# not given, the most it may ask for, and how many pairs are queued or playing at once (enough to keep a few
# workers busy, few enough that little is played past the SPRT's decision).
COMPARISON_DEFAULT_MAX_GAMES: int = env.int("COMPARISON_DEFAULT_MAX_GAMES", default=2000)
COMPARISON_MAX_GAMES: int = env.int("COMPARISON_MAX_GAMES", default=5000)
COMPARISON_PAIRS_IN_FLIGHT: int = env.int("COMPARISON_PAIRS_IN_FLIGHT", default=6)
# The most matches one response of the bulk export streams (ladder/api/exports.py): a client asks again
# with ?after= for the next ones. Small enough that a response ends well inside gunicorn's WEB_TIMEOUT_S,
# which stops a sync worker whose request lasts longer (docs/benchmarks.md has the rate measured).
EXPORT_MATCHES_PER_RESPONSE: int = env.int("EXPORT_MATCHES_PER_RESPONSE", default=5000)

# The continuous ladder (ladder/services/tournaments/ladder.py): every LADDER_INTERVAL_S the beat task tops
# the ladder's queue up to what the workers finish in LADDER_LEAD_S at the pace of the last
# LADDER_RATE_WINDOW_S, while some active bot's 95% rating interval is wider than +-LADDER_TARGET_HALF_WIDTH
# Elo (or is new) and no tournament, comparison or upload check waits; once every interval is that narrow it
# plays LADDER_MAINTENANCE_PER_HOUR matches an hour per game. A bot waits at most about LADDER_MAX_WAIT_S for
# a game while its ladder plays, and plays its first LADDER_PROVISIONAL_GAMES games (per version) before the
# others.
LADDER_ENABLED: bool = env.bool("LADDER_ENABLED", default=True)
LADDER_INTERVAL_S: float = env.float("LADDER_INTERVAL_S", default=5.0)
LADDER_LEAD_S: float = env.float("LADDER_LEAD_S", default=15.0)
LADDER_RATE_WINDOW_S: float = env.float("LADDER_RATE_WINDOW_S", default=10.0)
# Matches the ladder keeps queued at least while it learns: the first tick's batch, before any pace is known.
LADDER_MIN_BACKLOG: int = env.int("LADDER_MIN_BACKLOG", default=8)
# Never more than this many ladder matches queued, whatever the pace (a bound on the rows a tick writes).
LADDER_MAX_BACKLOG: int = env.int("LADDER_MAX_BACKLOG", default=5000)
LADDER_TARGET_HALF_WIDTH: float = env.float("LADDER_TARGET_HALF_WIDTH", default=30.0)
LADDER_MAINTENANCE_PER_HOUR: float = env.float("LADDER_MAINTENANCE_PER_HOUR", default=60.0)
LADDER_MAX_WAIT_S: float = env.float("LADDER_MAX_WAIT_S", default=300.0)
# 50: the games the online Elo (K = 32) needs to wear a start error of the prior's spread down to its wander.
LADDER_PROVISIONAL_GAMES: int = env.int("LADDER_PROVISIONAL_GAMES", default=50)
# The share of a bot's ladder games one opponent may take while others can take the place (at least 8 games
# a pair): games spread over many opponents, so that two accounts cannot trade many games unseen. 1 turns
# the bound off.
LADDER_PAIR_SHARE: float = env.float("LADDER_PAIR_SHARE", default=0.25)
if not 0 < LADDER_PAIR_SHARE <= 1:
    raise ImproperlyConfigured(f"LADDER_PAIR_SHARE must be above 0 and at most 1, not {LADDER_PAIR_SHARE}")
# The screen for arranged games (ladder/services/ratings/collusion.py): every COLLUSION_SCREEN_INTERVAL_S,
# each pair of bots with at least COLLUSION_SCREEN_MIN_GAMES rated games together whose results are less
# likely than COLLUSION_SCREEN_P under the fit of every other result is flagged, and its games held out of the
# ratings until staff review it. 0 as the interval turns the screen off.
COLLUSION_SCREEN_INTERVAL_S: float = env.float("COLLUSION_SCREEN_INTERVAL_S", default=30.0)
COLLUSION_SCREEN_MIN_GAMES: float = env.float("COLLUSION_SCREEN_MIN_GAMES", default=4.0)
COLLUSION_SCREEN_P: float = env.float("COLLUSION_SCREEN_P", default=1e-5)
if not 0 < COLLUSION_SCREEN_P < 1 or COLLUSION_SCREEN_MIN_GAMES < 1 or COLLUSION_SCREEN_INTERVAL_S < 0:
    raise ImproperlyConfigured("COLLUSION_SCREEN_P must lie between 0 and 1, COLLUSION_SCREEN_MIN_GAMES be at least "
                               "1 and COLLUSION_SCREEN_INTERVAL_S at least 0")
for _name in ("LADDER_INTERVAL_S", "LADDER_LEAD_S", "LADDER_RATE_WINDOW_S", "LADDER_TARGET_HALF_WIDTH",
              "LADDER_MAX_WAIT_S"):
    if not globals()[_name] > 0:
        raise ImproperlyConfigured(f"{_name} must be above 0, not {globals()[_name]}")
if LADDER_MIN_BACKLOG < 1 or LADDER_MAX_BACKLOG < LADDER_MIN_BACKLOG:
    raise ImproperlyConfigured(f"LADDER_MIN_BACKLOG ({LADDER_MIN_BACKLOG}) must be at least 1 and at most "
                               f"LADDER_MAX_BACKLOG ({LADDER_MAX_BACKLOG})")

# Webhooks (ladder/services/webhooks/, docs/webhooks.md). Targets that resolve to a private, loopback,
# link-local or other non-global address are refused, at creation and again at each delivery, unless
# WEBHOOKS_ALLOW_PRIVATE is on (a closed network whose receivers are all trusted; the tests).
WEBHOOKS_ALLOW_PRIVATE: bool = env.bool("WEBHOOKS_ALLOW_PRIVATE", default=False)
# Webhooks one user may hold.
WEBHOOKS_PER_USER: int = env.int("WEBHOOKS_PER_USER", default=10)
# Seconds one delivery attempt may take in all: the lookup of its host, the connection, TLS, the request and
# the answer share this one deadline (however the receiver dribbles its answer); no redirect is followed.
WEBHOOKS_TIMEOUT_S: float = env.float("WEBHOOKS_TIMEOUT_S", default=5.0)
# Attempts at one user's deliveries that may run at once, and that may start in any hour: past either, a
# delivery waits (pending, held) until there is room, and is then sent; it is never dropped for it.
WEBHOOKS_IN_FLIGHT_PER_USER: int = env.int("WEBHOOKS_IN_FLIGHT_PER_USER", default=2)
WEBHOOKS_ATTEMPTS_PER_HOUR: int = env.int("WEBHOOKS_ATTEMPTS_PER_HOUR", default=300)
if WEBHOOKS_IN_FLIGHT_PER_USER < 1 or WEBHOOKS_ATTEMPTS_PER_HOUR < 1:
    raise ImproperlyConfigured("WEBHOOKS_IN_FLIGHT_PER_USER and WEBHOOKS_ATTEMPTS_PER_HOUR must be at least 1")
# Attempts of one delivery before it is given up, and the wait before the first retry (seconds): each
# retry waits four times longer than the one before (10 s, 40 s, 160 s, 640 s, 2560 s at the defaults).
WEBHOOKS_MAX_ATTEMPTS: int = env.int("WEBHOOKS_MAX_ATTEMPTS", default=6)
WEBHOOKS_RETRY_BASE_S: float = env.float("WEBHOOKS_RETRY_BASE_S", default=10.0)
if WEBHOOKS_MAX_ATTEMPTS < 1 or WEBHOOKS_PER_USER < 0 or not WEBHOOKS_TIMEOUT_S > 0 or WEBHOOKS_RETRY_BASE_S < 0:
    raise ImproperlyConfigured("WEBHOOKS_MAX_ATTEMPTS must be at least 1, WEBHOOKS_PER_USER and "
                               "WEBHOOKS_RETRY_BASE_S at least 0, WEBHOOKS_TIMEOUT_S above 0")

CELERY_BEAT_SCHEDULE = {
    "reconcile-matches": {"task": "ladder.reconcile", "schedule": RECONCILE_INTERVAL_S},
    "ladder-tick": {"task": "ladder.ladder_tick", "schedule": LADDER_INTERVAL_S},
}
if COLLUSION_SCREEN_INTERVAL_S > 0:
    CELERY_BEAT_SCHEDULE["collusion-screen"] = {"task": "ladder.collusion_screen",
                                                "schedule": COLLUSION_SCREEN_INTERVAL_S}
CELERY_BEAT_SCHEDULE_FILENAME: str = str(VAR_DIR / "celerybeat-schedule")

# --- Ratings (the Elo step of ladder.ratings.elo, applied by ladder.services.ratings.rating_applier) -------

RATING_K: float = env.float("RATING_K", default=32.0)  # Elo K once a bot is established
RATING_PROVISIONAL_K: float = env.float("RATING_PROVISIONAL_K", default=48.0)  # K for a new bot
RATING_PROVISIONAL_GAMES: int = env.int("RATING_PROVISIONAL_GAMES", default=10)  # games at that K
# Most pending rated matches the game's applier applies in one transaction
# (ladder.services.ratings.rating_applier).
RATING_APPLY_BATCH: int = env.int("RATING_APPLY_BATCH", default=500)
if RATING_APPLY_BATCH < 1:
    raise ImproperlyConfigured(f"RATING_APPLY_BATCH ({RATING_APPLY_BATCH}) must be at least 1")

LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "formatters": {"plain": {"format": "%(asctime)s %(levelname)s %(name)s: %(message)s"}},
    "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain"}},
    "root": {"handlers": ["console"], "level": env.str("LOG_LEVEL", default="INFO")},
}
