"""Rated and unrated play (ladder.core.rated_play): tournaments get ``rated``; the ladder is rated and
loses its public seed, and its matches still waiting in the queue get secret seeds of their own (theirs
derived from that public seed)."""

import secrets

from django.conf import settings
from django.db import migrations, models


def ladders_rated(apps, schema_editor):
    Tournament = apps.get_model("ladder", "Tournament")
    Match = apps.get_model("ladder", "Match")
    Tournament.objects.filter(kind="ladder").update(rated=True, seed=None)
    # Only queued matches: a running or finished match is played (or being played) with its seed.
    queued = Match.objects.filter(tournament__rated=True, status="queued")
    for match in queued.only("id").iterator():
        Match.objects.filter(pk=match.pk, status="queued").update(seed=secrets.randbits(62))


def ladders_seeded(apps, schema_editor):
    Tournament = apps.get_model("ladder", "Tournament")
    for tournament in Tournament.objects.filter(seed=None):
        tournament.seed = secrets.randbits(62)
        tournament.save(update_fields=["seed"])


class Migration(migrations.Migration):

    dependencies = [
        ('ladder', '0002_match_tournament_limits'),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.AddField(
            model_name='tournament',
            name='rated',
            field=models.BooleanField(db_default=False, default=False),
        ),
        migrations.AlterField(
            model_name='tournament',
            name='seed',
            field=models.BigIntegerField(blank=True, null=True),
        ),
        migrations.RunPython(ladders_rated, ladders_seeded),
        migrations.AddConstraint(
            model_name='tournament',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('kind', 'ladder'), _negated=True), ('rated', True), _connector='OR'), name='tournament_ladder_is_rated'),
        ),
        migrations.AddConstraint(
            model_name='tournament',
            constraint=models.CheckConstraint(condition=models.Q(models.Q(('rated', True), ('seed__isnull', True)), models.Q(('rated', False), ('seed__isnull', False)), _connector='OR'), name='tournament_seed_only_unrated'),
        ),
    ]
