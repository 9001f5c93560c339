"""A seat is inserted small, when its match is scheduled, and rewritten about two and a half times larger
when its result is recorded (the packed logs, the score, the ratings). Pages of the seat table are filled
to :data:`SEAT_FILLFACTOR` per cent at insert, so that the recorded version fits beside the scheduled one
and the update stays on the page as a heap-only tuple: no entry in any of the table's five indexes (a
recording rewrote each seat's). Once the old versions are pruned the pages are about as full as before.

The rating history's own index on its bot goes: the (bot, id) index of the history leads with it."""

import django.db.models.deletion
from django.db import migrations, models

#: Per cent of each page of the seat table that inserts fill (PostgreSQL's storage parameter). A scheduled
#: seat takes 76 bytes of a page, a recorded 2-player Kingdomino seat about 196: at 35, a page's seats
#: still fit on it once recorded.
SEAT_FILLFACTOR = 35


class Migration(migrations.Migration):

    dependencies = [
        ("ladder", "0018_match_fillfactor"),
    ]

    operations = [
        migrations.RunSQL(f"ALTER TABLE ladder_seat SET (fillfactor = {SEAT_FILLFACTOR})",
                          "ALTER TABLE ladder_seat RESET (fillfactor)"),
        migrations.AlterField(
            model_name="ratingchange",
            name="bot",
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE,
                                    related_name="rating_changes", to="ladder.bot"),
        ),
    ]
