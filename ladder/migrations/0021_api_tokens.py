"""API tokens an account may hold several of, revoke, rotate and let expire, stored as the SHA-256 of their
key (``ApiToken``) instead of Django REST framework's one plain-text key per account.

Every key of DRF's ``authtoken_token`` table becomes a token of the same account, found by the digest of
the same key, so the scripts that hold one keep working; the plain-text keys are then deleted. The
table itself stays (``rest_framework.authtoken`` is no longer installed, and nothing reads it). Going
back cannot give the keys again: it drops the new tokens, and scripts need new keys.
"""

import hashlib

import django.db.models.deletion
from django.conf import settings
from django.db import migrations, models

_OLD_TABLE = "authtoken_token"


def tokens_from_authtoken(apps, schema_editor):
    connection = schema_editor.connection
    if _OLD_TABLE not in connection.introspection.table_names():
        return
    ApiToken = apps.get_model("ladder", "ApiToken")
    with connection.cursor() as cursor:
        cursor.execute(f"SELECT key, user_id, created FROM {_OLD_TABLE}")
        rows = cursor.fetchall()
    ApiToken.objects.bulk_create([
        ApiToken(user_id=user_id, digest=hashlib.sha256(key.encode()).hexdigest(), prefix=key[:8],
                 name="from before tokens were listed")
        for key, user_id, _created in rows
    ])
    # created_at is auto_now_add: the old rows' dates are copied after.
    for key, _user_id, created in rows:
        ApiToken.objects.filter(digest=hashlib.sha256(key.encode()).hexdigest()).update(created_at=created)
    with connection.cursor() as cursor:
        cursor.execute(f"DELETE FROM {_OLD_TABLE}")


class Migration(migrations.Migration):
    dependencies = [
        ("ladder", "0020_match_setups"),
        migrations.swappable_dependency(settings.AUTH_USER_MODEL),
    ]

    operations = [
        migrations.CreateModel(
            name="ApiToken",
            fields=[
                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name="ID")),
                ("digest", models.CharField(max_length=64, unique=True)),
                ("prefix", models.CharField(max_length=8)),
                ("name", models.CharField(blank=True, default="", max_length=100)),
                ("created_at", models.DateTimeField(auto_now_add=True)),
                ("expires_at", models.DateTimeField(blank=True, null=True)),
                ("user", models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name="api_tokens",
                                           to=settings.AUTH_USER_MODEL)),
            ],
        ),
        migrations.RunPython(tokens_from_authtoken, migrations.RunPython.noop),
    ]
