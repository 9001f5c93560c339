"""A webhook delivery knows whether an attempt at it is in flight (``leased_until``) and whether it waits
for room under its owner's caps (``held``): the per-user bounds on deliveries in flight and per hour
(``ladder.services.webhooks``). One column is nullable, the other has a constant default: neither
rewrites the table."""

from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("ladder", "0021_api_tokens"),
    ]

    operations = [
        migrations.AddField(
            model_name="webhookdelivery",
            name="leased_until",
            field=models.DateTimeField(blank=True, null=True),
        ),
        migrations.AddField(
            model_name="webhookdelivery",
            name="held",
            field=models.BooleanField(default=False),
        ),
    ]
