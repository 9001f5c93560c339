"""Room on each page of the match table for the updates that change no indexed column (lease renewals, the
reconciler's stamps): with it they stay on the page as heap-only tuples and write no index entry."""

from django.db import migrations

#: Per cent of each page that inserts fill (PostgreSQL's storage parameter).
MATCH_FILLFACTOR = 80


def set_fillfactor(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute(f"ALTER TABLE ladder_match SET (fillfactor = {MATCH_FILLFACTOR})")


def reset_fillfactor(apps, schema_editor):
    if schema_editor.connection.vendor == "postgresql":
        schema_editor.execute("ALTER TABLE ladder_match RESET (fillfactor)")


class Migration(migrations.Migration):

    dependencies = [
        ("ladder", "0017_match_deal_rotations"),
    ]

    operations = [
        migrations.RunPython(set_fillfactor, reset_fillfactor),
    ]
