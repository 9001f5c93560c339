"""``ladder.services.uploads.examples``: the house account that owns the example bots (no usable password),
and ``examples_seed``, which uploads every shipped ``*_bot.py`` of every available game as a pending version,
once (idempotent), leaving a bot of the same name alone and reporting an example the checks refuse
without stopping at it."""

from __future__ import annotations

import pytest

from bots.examples import EXAMPLES_DIR
from ladder.core.house import EXAMPLES_OWNER, is_house
from ladder.models import Bot, BotVersion, Game
from ladder.services.uploads import examples
from ladder.services.uploads.examples import examples_owner, examples_seed
from tests.factories import BotFactory

pytestmark = pytest.mark.django_db


def shipped() -> dict[str, list[str]]:
    return {game.slug: sorted(path.stem for path in (EXAMPLES_DIR / game.slug).glob("*_bot.py"))
            for game in Game.objects.filter(available=True) if (EXAMPLES_DIR / game.slug).is_dir()}


def test_the_owner_is_the_house_account_made_once_and_nobody_can_log_in_as_it():
    owner = examples_owner()
    assert owner.username == EXAMPLES_OWNER and not owner.has_usable_password() and is_house(owner)
    assert examples_owner().pk == owner.pk


def test_seeding_uploads_every_shipped_example_as_a_pending_version_of_the_house():
    expected = shipped()
    assert expected, "the examples ship bots"
    seeded = examples_seed()
    assert {game: sorted(names) for game, names in seeded.items()} == expected
    for game, names in expected.items():
        for name in names:
            bot = Bot.objects.get(game__slug=game, name=name)
            version = bot.versions.get()
            assert is_house(bot.owner)
            assert version.validation_status == BotVersion.Validation.PENDING
            assert bytes(version.code) == (EXAMPLES_DIR / game / f"{name}.py").read_bytes()


def test_seeding_again_uploads_nothing_more_and_reports_the_same_bots():
    first = examples_seed()
    versions = BotVersion.objects.count()
    assert examples_seed() == first
    assert BotVersion.objects.count() == versions


def test_a_bot_of_the_same_name_in_any_case_is_left_alone():
    game, names = next(iter(shipped().items()))
    theirs = BotFactory(game=Game.objects.get(slug=game), name=names[0].upper())
    seeded = examples_seed()
    assert names[0] in seeded[game]
    assert not Bot.objects.filter(game__slug=game, name=names[0]).exclude(pk=theirs.pk).exists()
    assert theirs.versions.count() == 1


def test_an_example_the_checks_refuse_is_reported_and_the_others_are_seeded(tmp_path, monkeypatch):
    game = next(iter(shipped()))
    folder = tmp_path / game
    folder.mkdir()
    (folder / "empty_bot.py").write_bytes(b"")
    (folder / "good_bot.py").write_bytes((EXAMPLES_DIR / game / f"{shipped()[game][0]}.py").read_bytes())
    (folder / "helper.py").write_bytes(b"x = 1\n")  # not an example: not named *_bot.py
    monkeypatch.setattr(examples, "EXAMPLES_DIR", tmp_path)
    seeded = examples_seed()
    assert seeded[game] == ["good_bot"]
    [refusal] = seeded[f"{game} (refused)"]
    assert refusal.startswith("empty_bot: ") and "empty" in refusal
    assert not Bot.objects.filter(name__in=["empty_bot", "helper"]).exists()
