"""A seat's log and its decisions become one compressed column, ``Seat.logs`` (``ladder.seat_logs``): the
log was stored twice (whole, and decision by decision), uncompressed.

Existing rows are converted in batches, and back when the migration is reversed. The codec is imported
rather than copied: every format it ever wrote stays readable, so this conversion means the same later.
"""

from django.db import migrations, models

from ladder import seat_logs

BATCH = 500


def pack_rows(apps, schema_editor):
    Seat = apps.get_model("ladder", "Seat")
    rows = Seat.objects.exclude(log="", decisions=[]).only("id", "log", "decisions").order_by("id")
    last = 0
    while batch := list(rows.filter(id__gt=last)[:BATCH]):
        for seat in batch:
            seat.logs = seat_logs.pack(seat.log, seat.decisions or [])
        Seat.objects.bulk_update(batch, ["logs"])
        last = batch[-1].id


def unpack_rows(apps, schema_editor):
    Seat = apps.get_model("ladder", "Seat")
    rows = Seat.objects.filter(logs__isnull=False).only("id", "logs").order_by("id")
    last = 0
    while batch := list(rows.filter(id__gt=last)[:BATCH]):
        for seat in batch:
            unpacked = seat_logs.unpack(seat.logs)
            seat.log, seat.decisions = unpacked.log, unpacked.decisions
        Seat.objects.bulk_update(batch, ["log", "decisions"])
        last = batch[-1].id


class Migration(migrations.Migration):

    dependencies = [
        ("ladder", "0008_comparisons"),
    ]

    operations = [
        migrations.AddField(
            model_name="seat",
            name="logs",
            field=models.BinaryField(blank=True, null=True),
        ),
        migrations.RunPython(pack_rows, unpack_rows, elidable=False),
        migrations.RemoveField(
            model_name="seat",
            name="decisions",
        ),
        migrations.RemoveField(
            model_name="seat",
            name="log",
        ),
    ]
