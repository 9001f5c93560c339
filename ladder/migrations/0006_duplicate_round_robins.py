"""Duplicate round robins: a tournament says whether it plays every deal in every seat rotation, and
each of its matches names the deal it is a rotation of. Both additions are safe for code still deployed
that does not know them: ``duplicate`` has a database default (false), ``deal`` is nullable."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("ladder", "0005_match_rules_version"),
    ]

    operations = [
        migrations.AddField(
            model_name="tournament",
            name="duplicate",
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AddField(
            model_name="match",
            name="deal",
            field=models.PositiveIntegerField(blank=True, null=True),
        ),
    ]
