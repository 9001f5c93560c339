"""Matches store the ``rules_version`` of their game's engine, so a replay knows which rules its actions
belong to. Added nullable (the code still deployed while this runs does not write it) and backfilled with
each installed game's current version: every match stored so far was played under the only rules there
were. A game no longer installed keeps NULL."""

from django.db import migrations, models

import engines


def rules_versions_backfilled(apps, schema_editor):
    Game = apps.get_model("ladder", "Game")
    Match = apps.get_model("ladder", "Match")
    for game in Game.objects.all():
        try:
            version = engines.get(game.slug).rules_version
        except KeyError:
            continue
        Match.objects.filter(game=game, rules_version=None).update(rules_version=version)


class Migration(migrations.Migration):

    dependencies = [
        ("ladder", "0004_botversion_validation_log"),
    ]

    operations = [
        migrations.AddField(
            model_name="match",
            name="rules_version",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(rules_versions_backfilled, migrations.RunPython.noop, elidable=True),
    ]
