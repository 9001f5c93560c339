"""Versions whose check used to raise on the worker, through a real ``celery worker`` on the configured broker
and database: each ends ``rejected`` with a message within seconds of its check being sent, instead of
staying pending with its check re-sent by the reconciler every ``VALIDATION_REQUEUE_AFTER_S``.

The versions are inserted as an older release stored them, past upload checks that let such zips through.
"""

import json
import time

import pytest

from ladder.messaging.enqueue import versions_validate_now
from ladder.models import BotVersion, Game
from ladder.services.uploads.validation import CHECK_FAILED
from tests.conftest import wait_until
from tests.factories import FIRST_LEGAL_BOT, BotFactory, BotVersionFactory, zip_with_members

pytestmark = [pytest.mark.slow, pytest.mark.timeout(240)]

#: How long a check may take once the worker is up: a fraction of the reconciler's interval (120 s).
DECIDED_WITHIN_S = 20




def decided(version_ids):
    rows = dict(BotVersion.objects.filter(id__in=version_ids).values_list("id", "validation_status"))
    return rows if "pending" not in rows.values() else None


def test_versions_whose_check_raised_end_rejected_within_seconds_on_a_real_worker(worker_pool):
    # Draftosaurus alone gets a limit the check cannot use: a fault of the server's, not of the upload.
    worker_pool.env["BOTS_LIMITS_BY_GAME"] = json.dumps({"draftosaurus": {"move_ms": "fast"}})
    worker_pool.start(concurrency=1)
    try:
        # A good version first, so that what is timed below is the checks, not the worker's start.
        warm = BotVersionFactory(validation_status="pending", code=FIRST_LEGAL_BOT + b"# warm\n")
        versions_validate_now([warm.id])
        assert wait_until(lambda: decided([warm.id]), timeout=120, message="the first check") == {warm.id: "accepted"}

        dot = BotVersionFactory(code=zip_with_members("."), kind="zip", validation_status="pending")
        tree = BotVersionFactory(code=zip_with_members("x", "x/y.py"), kind="zip", validation_status="pending")
        broken = BotVersionFactory(bot=BotFactory(game=Game.objects.get(slug="draftosaurus")),
                                   validation_status="pending")
        ids = [dot.id, tree.id, broken.id]
        sent = time.monotonic()
        versions_validate_now(ids)
        statuses = wait_until(lambda: decided(ids), timeout=DECIDED_WITHIN_S, message="the poison versions' checks")
        print(f"decided {time.monotonic() - sent:.1f} s after their checks were sent")
    except BaseException:
        print(worker_pool.logs())
        raise
    assert statuses == {dot.id: "rejected", tree.id: "rejected", broken.id: "rejected"}
    messages = dict(BotVersion.objects.filter(id__in=ids).values_list("id", "validation_message"))
    assert "'.': '.' is not allowed in zip paths" in messages[dot.id]
    assert "'x' is a file and also a folder (of 'x/y.py'): rename one" in messages[tree.id]
    assert messages[broken.id] == CHECK_FAILED
    # The operators have what the owner is not shown: the version and the traceback.
    logs = worker_pool.logs()
    assert f"the check of bot version {broken.id} failed; rejecting it" in logs
    assert "Traceback" in logs and "BOTS_LIMITS_BY_GAME" in logs
