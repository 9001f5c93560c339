"""Settings read from the environment: checked in a fresh interpreter, as a deployment would start."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
SHOW_CACHE = (
    "import django; django.setup(); from django.conf import settings; "
    "print(settings.CACHES['default']['BACKEND'], settings.CACHES['default'].get('LOCATION', ''))"
)


def settings_of(**environ: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("CACHE_URL", "DEBUG")}
    env.update(DJANGO_SETTINGS_MODULE="ladder.settings", SECRET_KEY="settings-test", **environ)
    return subprocess.run([sys.executable, "-c", SHOW_CACHE], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=60)


def test_cache_is_per_process_unless_a_redis_url_is_given():
    assert settings_of().stdout.split()[0] == "django.core.cache.backends.locmem.LocMemCache"
    shared = settings_of(CACHE_URL="redis://127.0.0.1:6379/3")
    assert shared.stdout.split() == ["django.core.cache.backends.redis.RedisCache", "redis://127.0.0.1:6379/3"]


def test_a_cache_url_that_is_not_redis_is_refused_with_what_to_set():
    refused = settings_of(CACHE_URL="memcached://127.0.0.1:11211")
    assert refused.returncode != 0
    assert "CACHE_URL must be a Redis URL" in refused.stderr
