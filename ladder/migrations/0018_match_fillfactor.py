"""Room on each page of the match table for the updates that change no indexed column (lease renewals, the
reconciler's stamps): with it they stay on the page as heap-only tuples and write no index entry."""

from django.db import migrations

#: Per cent of each page that inserts fill (PostgreSQL's storage parameter).
MATCH_FILLFACTOR = 80


class Migration(migrations.Migration):

    dependencies = [
        ("ladder", "0017_match_deal_rotations"),
    ]

    operations = [
        migrations.RunSQL(f"ALTER TABLE ladder_match SET (fillfactor = {MATCH_FILLFACTOR})",
                          "ALTER TABLE ladder_match RESET (fillfactor)"),
    ]
