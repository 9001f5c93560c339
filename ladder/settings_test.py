"""Settings for the test suite: the environment's settings plus a throwaway secret and fast hashing.

Tests run against whatever ``DATABASE_URL`` and ``CELERY_BROKER_URL`` say (CI: PostgreSQL and Redis);
``make test`` without them runs on a private PostgreSQL (ladder.private_postgres) and the filesystem broker.
Worker processes started by tests use this module too.
"""

import os

# Only a test run gets a fixed secret without DEBUG; ladder.settings refuses that everywhere else.
os.environ.setdefault("SECRET_KEY", "test-suite-secret-not-for-production")

from ladder.settings import *

# Password hashing is deliberately slow; tests create many users.
PASSWORD_HASHERS = ["django.contrib.auth.hashers.MD5PasswordHasher"]

# Tests render pages without running collectstatic first.
STORAGES = {**STORAGES, "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"}}
WHITENOISE_USE_FINDERS = True

# Whitenoise warns on every request when the collected-static folder does not exist yet.
STATIC_ROOT.mkdir(parents=True, exist_ok=True)  # noqa: F405
