"""``ladder.services.uploads.bots``: an upload becomes a bot with a pending version 1 and its rating row, a
later upload a numbered pending version; the checks that run no code (size, kind, name, a name taken in any
case) refuse with the field at fault and store nothing; deactivating tells the owner once; code is found
by checksum. The checks' messages go to the workers on commit, which these tests never reach."""

from __future__ import annotations

import hashlib

import pytest

from ladder.core.errors import ServiceError
from ladder.core.quotas import QuotaExceeded
from ladder.models import Bot, BotVersion, Game, Rating, WebhookDelivery
from ladder.services.uploads.bots import (
    bot_code_by_sha256,
    bot_code_check,
    bot_create,
    bot_set_active,
    bot_version_create,
)
from ladder.services.webhooks.subscriptions import webhook_create
from tests.factories import FIRST_LEGAL_BOT, LAST_LEGAL_BOT, BotFactory, UserFactory, make_zip

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("fresh_cache")]


def upload(owner=None, *, name="mybot", data=FIRST_LEGAL_BOT, filename="bot.py", game_slug="kingdomino") -> Bot:
    return bot_create(owner=owner or UserFactory(), game_slug=game_slug, name=name, data=data, filename=filename)


def test_an_upload_is_a_bot_with_a_pending_version_one_and_a_rating_row():
    owner = UserFactory()
    bot = upload(owner, name="My.Bot-1")
    assert (bot.owner, bot.game.slug, bot.name, bot.active) == (owner, "kingdomino", "My.Bot-1", True)
    version = bot.versions.get()
    assert (version.number, version.kind, version.validation_status) == (1, "py", BotVersion.Validation.PENDING)
    assert bytes(version.code) == FIRST_LEGAL_BOT and version.size == len(FIRST_LEGAL_BOT)
    assert version.sha256 == hashlib.sha256(FIRST_LEGAL_BOT).hexdigest()
    assert Rating.objects.filter(bot=bot, game=bot.game).count() == 1


def test_a_zip_upload_is_of_kind_zip():
    bot = upload(data=make_zip({"bot.py": FIRST_LEGAL_BOT, "helpers.py": b"X = 1\n"}), filename="bot.zip")
    assert bot.versions.get().kind == "zip"


def refused(**fields) -> ServiceError:
    before = (Bot.objects.count(), BotVersion.objects.count())
    with pytest.raises(ServiceError) as caught:
        upload(**fields)
    assert (Bot.objects.count(), BotVersion.objects.count()) == before
    return caught.value


@pytest.mark.parametrize("name", ["", "-starts-with-dash", "has space", "x" * 65, "slash/name", "ünïcode"])
def test_a_bad_name_is_refused(name):
    assert refused(name=name).field == "name"


def test_a_name_taken_in_the_same_game_in_any_case_is_refused_but_free_in_another_game():
    taken = BotFactory(name="Taken")
    assert "already exists" in refused(name="tAKEN").message
    other = Game.objects.exclude(pk=taken.game_id).first()
    assert upload(name="taken", game_slug=other.slug).game == other


@pytest.mark.parametrize(("data", "filename", "words"), [
    (b"", "bot.py", "empty"),
    (FIRST_LEGAL_BOT, "bot.txt", "neither a .py file nor a .zip"),
    (b"x = \"\xff\"\n", "bot.py", "UTF-8"),
])
def test_an_upload_that_fails_the_static_checks_is_refused_on_the_code_field(data, filename, words):
    error = refused(data=data, filename=filename)
    assert error.field == "code" and words in error.message


def test_an_upload_over_the_size_limit_is_refused_before_its_other_checks(settings):
    settings.BOTS_MAX_UPLOAD_BYTES = 10
    error = refused(data=b"x" * 11, filename="notes.txt")
    assert error.field == "code" and "11 bytes; the limit is 10" in error.message
    assert bot_code_check(data=b"a = 1\n"[:10], filename="bot.py") == "py"


def test_an_unknown_game_is_refused():
    assert refused(game_slug="no-such-game").field == "game"


def test_uploads_past_the_owners_rate_are_refused_with_a_429(throttle_rates):
    throttle_rates(uploads="2/hour")
    owner = UserFactory()
    upload(owner, name="one")
    bot_version_create(bot=Bot.objects.get(name="one"), data=LAST_LEGAL_BOT, filename="bot.py")
    with pytest.raises(QuotaExceeded) as caught:
        upload(owner, name="three")
    assert caught.value.status == 429 and caught.value.retry_after_s > 0
    assert not Bot.objects.filter(name="three").exists()


def test_a_new_version_is_numbered_after_the_newest_and_keeps_the_bots_rating():
    bot = BotFactory()
    rating = Rating.objects.get(bot=bot)
    second = bot_version_create(bot=bot, data=LAST_LEGAL_BOT, filename="bot.py")
    third = bot_version_create(bot=bot, data=FIRST_LEGAL_BOT + b"# 3\n", filename="bot.py")
    assert (second.number, third.number) == (2, 3)
    assert {second.validation_status, third.validation_status} == {BotVersion.Validation.PENDING}
    assert Rating.objects.get(bot=bot) == rating


def test_a_new_version_that_fails_the_checks_stores_nothing():
    bot = BotFactory()
    with pytest.raises(ServiceError):
        bot_version_create(bot=bot, data=b"", filename="bot.py")
    assert bot.versions.count() == 1


def test_deactivating_tells_the_owner_once_and_reactivating_tells_nothing(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    bot = BotFactory()
    webhook_create(owner=bot.owner, url="http://127.0.0.1:9/", events=["bot.deactivated"])
    assert bot_set_active(bot=bot, active=False).active is False
    bot_set_active(bot=bot, active=False)
    assert not Bot.objects.get(pk=bot.pk).active
    bot_set_active(bot=bot, active=True)
    assert Bot.objects.get(pk=bot.pk).active
    assert WebhookDelivery.objects.filter(event="bot.deactivated").count() == 1


def test_code_is_found_by_checksum_for_what_is_stored():
    bot = BotFactory(code=LAST_LEGAL_BOT)
    stored = hashlib.sha256(LAST_LEGAL_BOT).hexdigest()
    assert bot_code_by_sha256(sha256s=[stored, stored, "0" * 64]) == {stored: LAST_LEGAL_BOT}
    assert bot_code_by_sha256(sha256s=[]) == {}
    assert bot.versions.get().sha256 == stored
