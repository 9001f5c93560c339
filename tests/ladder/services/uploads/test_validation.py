"""The workers' side of uploads: a pending version is decided once, whatever its check meets, and a lost
check is sent again."""

import logging
import time
from datetime import timedelta

import pytest
from django.utils import timezone

from ladder.checks import sandbox_limits_check
from ladder.core.limits import limits_resolve, match_worst_case_s
from ladder.models import BotVersion, Tournament
from ladder.services.tournaments.ladder import LadderMatchSetup, ladder_match_setup, ladder_tournament_get
from ladder.services.uploads.validation import CHECK_FAILED, bot_version_validate, versions_reconcile
from tests.factories import BotFactory, BotVersionFactory, zip_with_members

pytestmark = pytest.mark.django_db


def test_a_decided_version_is_left_alone_and_a_missing_one_is_done():
    version = BotFactory().versions.get()
    assert bot_version_validate(version_id=version.id) == "accepted"
    BotVersion.objects.filter(pk=version.pk).update(validation_status="rejected", validation_message="kept")
    assert bot_version_validate(version_id=version.id) == "rejected"
    assert BotVersion.objects.get(pk=version.pk).validation_message == "kept"
    assert bot_version_validate(version_id=10**9) == "missing"


def test_a_pending_check_is_sent_again_once_per_interval(settings, django_capture_on_commit_callbacks):
    settings.VALIDATION_REQUEUE_AFTER_S = 60
    now = timezone.now()
    long_ago = now - timedelta(minutes=5)
    pending = BotVersionFactory(validation_status="pending")
    fresh = BotVersionFactory(validation_status="pending")
    BotVersion.objects.filter(pk=pending.pk).update(created_at=long_ago, validation_sent_at=long_ago)
    BotVersion.objects.filter(pk=fresh.pk).update(created_at=now, validation_sent_at=now)

    with django_capture_on_commit_callbacks() as sent:
        assert versions_reconcile(now=now) == 1
    assert len(sent) == 1
    # Marked as sent: the next runs leave it alone until the interval has passed again.
    assert versions_reconcile(now=now + timedelta(seconds=5)) == 0
    assert versions_reconcile(now=now + timedelta(seconds=61)) == 2




@pytest.mark.parametrize(("names", "message"), [
    pytest.param((".",), "'.': '.' is not allowed in zip paths", id="dot"),
    pytest.param(("x", "x/y.py"), "'x' is a file and also a folder (of 'x/y.py')", id="file-and-folder"),
])
def test_a_version_stored_without_todays_path_checks_is_rejected_with_what_to_fix(names, message):
    # Stored as an older release stored it, past checks that let it through; its check raised
    # IsADirectoryError or FileExistsError out of the unpacking, and it stayed pending.
    version = BotVersionFactory(code=zip_with_members(*names), kind="zip", validation_status="pending")
    assert bot_version_validate(version_id=version.id) == "rejected"
    version.refresh_from_db()
    assert message in version.validation_message and version.validated_at is not None


def test_a_check_that_fails_on_the_server_rejects_the_version_with_a_generic_message(settings, caplog):
    # A limit setting the check cannot use: what any error of the check's own looks like to the version.
    settings.BOTS_LIMITS_BY_GAME = {"kingdomino": {"move_ms": "fast"}}
    version = BotVersionFactory(validation_status="pending")
    with caplog.at_level(logging.ERROR, logger="ladder.services.uploads.validation"):
        assert bot_version_validate(version_id=version.id) == "rejected"
    version.refresh_from_db()
    assert version.validation_message == CHECK_FAILED
    assert (version.validation_log, version.validated_at is not None) == ("", True)
    # The operators get what the owner does not: which version, and the traceback.
    [record] = [r for r in caplog.records if r.name == "ladder.services.uploads.validation"]
    assert record.getMessage() == f"the check of bot version {version.id} failed; rejecting it"
    assert record.exc_info is not None and "BOTS_LIMITS_BY_GAME" in str(record.exc_info[1])


SLOW_BOT = (b"import time\n"
            b"def act(observation, legal_actions):\n"
            b"    time.sleep(0.4)\n"
            b"    return legal_actions[0]\n")
SLOW_TO_START = b"import time\ntime.sleep(3)\ndef act(observation, legal_actions):\n    return legal_actions[0]\n"


@pytest.fixture
def smoke_settings(settings):
    settings.BOTS_MOVE_MS, settings.BOTS_BANK_MS, settings.BOTS_MATCH_MS = 1000, 20000, 30000
    settings.BOTS_LIMITS_BY_GAME = {"kingdomino": {"start_ms": 2000, "match_ms": 1500}}
    return settings


def test_the_smoke_match_stops_a_slow_bot_at_its_games_match_time_and_passes_it(smoke_settings):
    version = BotVersionFactory(validation_status="pending", code=SLOW_BOT)
    started = time.monotonic()
    assert bot_version_validate(version_id=version.id) == "accepted"
    # A game's worth of 0.4 s decisions would take about ten seconds; the game's match_ms stops it at 1.5 s.
    assert time.monotonic() - started < 6
    version.refresh_from_db()
    assert "answered legally until the match's 1500 ms of thinking were spent" in version.validation_message


def test_the_smoke_match_gives_a_bot_its_games_start_time(smoke_settings):
    version = BotVersionFactory(validation_status="pending", code=SLOW_TO_START)
    assert bot_version_validate(version_id=version.id) == "rejected"
    version.refresh_from_db()
    assert "timeout: no answer to start within 2000 ms" in version.validation_message


def test_the_smoke_match_is_set_up_as_the_games_ladder_matches_are(smoke_settings, bot_factory):
    game = bot_factory().game
    before = ladder_match_setup(game=game)
    assert before == LadderMatchSetup(players=2, options=game.default_options,
                                      limits=limits_resolve(game_slug="kingdomino"))
    # Once the ladder exists, its own setup is what the check copies, limits overrides included.
    ladder = ladder_tournament_get(game=game)
    Tournament.objects.filter(pk=ladder.pk).update(limits={"move_ms": 700})
    assert ladder_match_setup(game=game).limits == {**before.limits, "move_ms": 700}
    # The check's task has a match's time limits, and the check is one match of the game under them.
    assert match_worst_case_s(players=before.players, limits=before.limits) < smoke_settings.MATCH_SOFT_TIME_LIMIT_S
    assert sandbox_limits_check() == []
