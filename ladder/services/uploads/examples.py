"""Loading the reference bots shipped in ``bots/examples/<game>/`` as ordinary uploaded bots."""

from __future__ import annotations

from django.contrib.auth import get_user_model

from bots.examples import EXAMPLES_DIR
from ladder.core.errors import ServiceError
from ladder.core.house import EXAMPLES_OWNER
from ladder.models import Bot, Game
from ladder.services.uploads.bots import bot_create


def examples_owner():
    """The house account (``ladder.core.house``), which owns the example bots: no password, so it
    cannot log in."""
    user, created = get_user_model().objects.get_or_create(username=EXAMPLES_OWNER)
    if created:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    return user


def examples_seed() -> dict[str, list[str]]:
    """Upload every ``bots/examples/<game>/*_bot.py`` of every available game that has one, as a user's
    upload: stored pending, checked by a worker. Idempotent: a bot that already exists is left alone.

    Returns, per game, the names of the example bots present afterwards.
    """
    owner = examples_owner()
    seeded: dict[str, list[str]] = {}
    for game in Game.objects.filter(available=True):
        folder = EXAMPLES_DIR / game.slug
        for path in sorted(folder.glob("*_bot.py")) if folder.is_dir() else []:
            name = path.stem
            if not Bot.objects.filter(game=game, name__iexact=name).exists():
                try:
                    bot_create(owner=owner, game_slug=game.slug, name=name, data=path.read_bytes(),
                               filename=path.name)
                except ServiceError as exc:
                    # One broken example must not keep the others (or the demo) from starting.
                    seeded.setdefault(f"{game.slug} (refused)", []).append(f"{name}: {exc.message}")
                    continue
            seeded.setdefault(game.slug, []).append(name)
    return seeded
