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


def test_a_database_url_that_is_not_postgresql_is_refused_with_what_to_do():
    for url in ("sqlite:///var/ladder.sqlite3", "mysql://ladder@127.0.0.1/ladder"):
        refused = settings_of(DATABASE_URL=url)
        assert refused.returncode != 0
        assert ("DATABASE_URL must be a PostgreSQL URL (postgres://...); without it, `make demo` and `make test` "
                "start a private PostgreSQL") in refused.stderr
    assert settings_of(DATABASE_URL="postgres://ladder:pw@db.example.org:6432/ladder").returncode == 0


def test_proxy_settings_that_cannot_be_read_are_refused_naming_the_setting():
    refused = settings_of(TRUSTED_PROXIES="10.0.0.0/8,proxy.example.org")
    assert refused.returncode != 0 and "TRUSTED_PROXIES: 'proxy.example.org' is no IP address" in refused.stderr
    refused = settings_of(NUM_PROXIES="-1")
    assert refused.returncode != 0 and "NUM_PROXIES must be 0 or more" in refused.stderr
    assert settings_of(NUM_PROXIES="1", TRUSTED_PROXIES="10.0.0.0/8, 2001:db8::/32").returncode == 0


def test_per_game_limits_that_are_not_json_are_refused_naming_the_setting():
    refused = settings_of(BOTS_LIMITS_BY_GAME='{"kingdomino": {move_ms: 500}}')
    assert refused.returncode != 0
    assert "BOTS_LIMITS_BY_GAME must be JSON such as" in refused.stderr


def manage_py_check(**environ: str) -> subprocess.CompletedProcess:
    env = {key: value for key, value in os.environ.items() if key not in ("CACHE_URL", "DEBUG")}
    env.update(DJANGO_SETTINGS_MODULE="ladder.settings", SECRET_KEY="settings-test", **environ)
    return subprocess.run([sys.executable, "manage.py", "check"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)


def test_manage_py_check_refuses_limits_for_a_game_that_is_not_installed():
    checked = manage_py_check(BOTS_LIMITS_BY_GAME='{"chess": {"move_ms": 500}, "kingdomino": {"move_ms": 500}}')
    assert checked.returncode != 0
    assert "(ladder.E001) BOTS_LIMITS_BY_GAME['chess']: no game 'chess' is installed" in checked.stderr
    # The valid entry beside it is not reported.
    assert checked.stderr.count("(ladder.E") == 1


def test_manage_py_check_refuses_a_match_time_cap_that_does_not_fit_the_time_limit():
    # 5 x (5 s + 30 s) + 10 s = 185 s against a 160 s soft limit.
    checked = manage_py_check(MATCH_SOFT_TIME_LIMIT_S="160", BOTS_MATCH_MS="20000", BOTS_MAX_MATCH_MS="30000")
    assert checked.returncode != 0
    assert "(ladder.E004) a 5-player" in checked.stderr and "may last 185 s" in checked.stderr
    assert "HINT: lower BOTS_MAX_MATCH_MS" in checked.stderr
    assert manage_py_check(MATCH_SOFT_TIME_LIMIT_S="160", BOTS_MATCH_MS="20000",
                           BOTS_MAX_MATCH_MS="20000").returncode == 0


def test_manage_py_check_refuses_a_heartbeat_the_lease_would_not_outlast():
    checked = manage_py_check(MATCH_LEASE_S="12", MATCH_HEARTBEAT_S="5")
    assert checked.returncode != 0
    assert "(ladder.E006) MATCH_HEARTBEAT_S (5) must be above 0 and at most a third of MATCH_LEASE_S (12)" in (
        checked.stderr)
