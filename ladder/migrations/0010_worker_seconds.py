"""Match.reserved_s: the worker seconds a match may take at worst, which its creator's daily budget of
worker time holds until the match is played (ladder.core.worker_time).

Nullable, so that code which does not write it may still be deployed. The matches still to be played
(queued or running) get it from their stored limits, so that the budget counts them from the first
request after the deploy; finished matches count at their duration and need none.
"""

from django.conf import settings
from django.db import migrations, models

# The referee's start_ms default (bots.limits.Limits) and limits.MATCH_OVERHEAD_S when this was written:
# a migration keeps its own figures rather than importing code that may change after it.
_START_MS = 5000
_OVERHEAD_S = 10


def _reserve_unplayed(apps, schema_editor):
    Match = apps.get_model("ladder", "Match")
    unplayed = Match.objects.filter(status__in=["queued", "running"], reserved_s__isnull=True)
    batch = []
    for match in unplayed.only("id", "players", "limits").iterator(chunk_size=2000):
        limits = match.limits or {}
        per_seat_ms = limits.get("start_ms", _START_MS) + limits.get("match_ms", settings.BOTS_MATCH_MS)
        match.reserved_s = match.players * per_seat_ms / 1000 + _OVERHEAD_S
        batch.append(match)
        if len(batch) >= 2000:
            Match.objects.bulk_update(batch, ["reserved_s"])
            batch = []
    Match.objects.bulk_update(batch, ["reserved_s"])


class Migration(migrations.Migration):

    dependencies = [
        ('ladder', '0009_storage_seat_logs'),
    ]

    operations = [
        migrations.AddField(
            model_name='match',
            name='reserved_s',
            field=models.FloatField(blank=True, null=True),
        ),
        migrations.RunPython(_reserve_unplayed, migrations.RunPython.noop),
    ]
