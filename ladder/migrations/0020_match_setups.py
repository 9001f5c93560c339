"""A match's options and limits are stored once per setup, not once per match.

Each match row carried its own copies of the game options and of the dozen sandbox limits it is played
under (108 and 322 bytes of a finished 2-player Kingdomino match's 763, written again with each of the
row's versions), though a tournament's matches, a game's ladder matches between two changes of its
settings and a comparison's games all share them. Each distinct pair moves to its own table
(``MatchSetup``, one row per pair, found again by the SHA-256 of its canonical JSON) and the match keeps
the setup's key; a match with neither ({} each) keeps none (null). Reversible: going back copies each
setup into its matches again."""

import hashlib
import json

import django.db.models.deletion
from django.db import migrations, models


def _digest(*, options: dict, limits: dict) -> str:
    # As ``MatchSetup.digest_of`` computes it (a migration keeps its own copy of what it runs).
    canonical = json.dumps({"limits": limits, "options": options}, sort_keys=True, separators=(",", ":"),
                           ensure_ascii=True)
    return hashlib.sha256(canonical.encode()).hexdigest()


def setups_from_matches(apps, schema_editor):
    Match = apps.get_model("ladder", "Match")
    MatchSetup = apps.get_model("ladder", "MatchSetup")
    pairs = Match.objects.exclude(options={}, limits={}).values_list("options", "limits").distinct()
    for options, limits in pairs.iterator():
        MatchSetup.objects.get_or_create(digest=_digest(options=options, limits=limits),
                                         defaults={"options": options, "limits": limits})
    # One pass over the matches, whatever the number of setups (a loop over the setups would scan them once
    # per setup: hours for millions of matches and a few hundred setups).
    schema_editor.execute(
        "UPDATE ladder_match m SET setup_id = s.id FROM ladder_matchsetup s "
        "WHERE m.setup_id IS NULL AND m.options = s.options AND m.limits = s.limits")


def matches_from_setups(apps, schema_editor):
    schema_editor.execute("UPDATE ladder_match m SET options = s.options, limits = s.limits "
                          "FROM ladder_matchsetup s WHERE m.setup_id = s.id")


class Migration(migrations.Migration):

    dependencies = [
        ("ladder", "0019_seat_fillfactor"),
    ]

    operations = [
        migrations.CreateModel(
            name="MatchSetup",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("digest", models.CharField(max_length=64, unique=True)),
                ("options", models.JSONField(default=dict)),
                ("limits", models.JSONField(default=dict)),
            ],
        ),
        migrations.AddField(
            model_name="match",
            name="setup",
            field=models.ForeignKey(blank=True, db_index=False, null=True,
                                    on_delete=django.db.models.deletion.PROTECT, related_name="+",
                                    to="ladder.matchsetup"),
        ),
        migrations.RunPython(setups_from_matches, matches_from_setups, elidable=False),
        migrations.RemoveField(
            model_name="match",
            name="options",
        ),
        migrations.RemoveField(
            model_name="match",
            name="limits",
        ),
    ]
