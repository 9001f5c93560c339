"""The migration to ``ApiToken``: every key of Django REST framework's ``authtoken_token`` table keeps
authenticating its account (only the key's digest is stored), and the plain-text keys are deleted."""

import pytest
from django.db import connection

from tests.ladder.migration_steps import migrate, migrate_to_latest

BEFORE = [("ladder", "0020_match_setups")]
AFTER = [("ladder", "0021_api_tokens")]
KEY = "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"

_OLD_TABLE_SQL = """CREATE TABLE authtoken_token (
    key varchar(40) PRIMARY KEY, created timestamp with time zone NOT NULL,
    user_id integer NOT NULL UNIQUE REFERENCES auth_user (id) DEFERRABLE INITIALLY DEFERRED)"""


@pytest.mark.django_db(transaction=True)
def test_old_keys_keep_authenticating_and_leave_no_plain_text_behind():
    from django.contrib.auth import get_user_model

    from ladder.services.accounts.tokens import token_authenticate

    migrate(BEFORE)
    user = get_user_model().objects.create_user(username="scripted", password="x")
    # As DRF's own migration left it (rest_framework.authtoken is no longer installed).
    with connection.cursor() as cursor:
        cursor.execute(_OLD_TABLE_SQL)
        cursor.execute("INSERT INTO authtoken_token (key, created, user_id) VALUES (%s, '2026-01-02T03:04:05Z', %s)",
                       [KEY, user.id])
    try:
        migrate(AFTER)
        token = token_authenticate(key=KEY)
        assert token.user == user and token.prefix == KEY[:8] and token.expires_at is None
        assert token.created_at.year == 2026 and token.created_at.month == 1
        with connection.cursor() as cursor:
            cursor.execute("SELECT count(*) FROM authtoken_token")
            assert cursor.fetchone() == (0,)
    finally:
        with connection.cursor() as cursor:
            cursor.execute("DROP TABLE IF EXISTS authtoken_token")
        migrate_to_latest()
        get_user_model().objects.filter(username="scripted").delete()
