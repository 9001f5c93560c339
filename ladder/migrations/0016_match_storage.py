"""A match stores fewer bytes: its actions compressed (``actions_packed``; older rows keep theirs in the JSON
column ``actions``, now the field ``actions_json``), fewer indexes on the match row (the foreign keys'
own where a unique index leads with them, partial ones where only queued or running matches, or a
comparison's, are searched) and on the seat row. No index holds the lease any more: renewing it is a HOT
update."""

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('ladder', '0015_pending_ratings'),
    ]

    operations = [
        # The attribute is renamed, the column keeps its name and its rows.
        migrations.SeparateDatabaseAndState(state_operations=[
            migrations.RenameField(model_name='match', old_name='actions', new_name='actions_json'),
            migrations.AlterField(model_name='match', name='actions_json',
                                  field=models.JSONField(blank=True, db_column='actions', default=list)),
        ]),
        migrations.AddField(model_name='match', name='actions_packed', field=models.BinaryField(blank=True, null=True)),
        migrations.RemoveConstraint(
            model_name='match',
            name='match_unique_comparison_index',
        ),
        migrations.RemoveIndex(
            model_name='match',
            name='match_status_lease',
        ),
        migrations.RemoveIndex(
            model_name='match',
            name='match_comparison_status',
        ),
        migrations.AlterField(
            model_name='match',
            name='comparison',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='matches', to='ladder.comparison'),
        ),
        migrations.AlterField(
            model_name='match',
            name='tournament',
            field=models.ForeignKey(blank=True, db_index=False, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='matches', to='ladder.tournament'),
        ),
        migrations.AlterField(
            model_name='seat',
            name='match',
            field=models.ForeignKey(db_index=False, on_delete=django.db.models.deletion.CASCADE, related_name='seats', to='ladder.match'),
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(condition=models.Q(('status__in', ['queued', 'running'])), fields=['status', 'priority', 'id'], name='match_waiting'),
        ),
        migrations.AddIndex(
            model_name='match',
            index=models.Index(condition=models.Q(('comparison__isnull', False)), fields=['comparison', 'status'], name='match_comparison_status'),
        ),
        migrations.AddConstraint(
            model_name='match',
            constraint=models.UniqueConstraint(condition=models.Q(('comparison__isnull', False)), fields=('comparison', 'index'), name='match_unique_comparison_index'),
        ),
    ]
