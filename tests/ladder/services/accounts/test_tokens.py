"""API tokens (``ladder.services.accounts.tokens``): a username and password exchanged for a new token, the
same refusal for a wrong name, a wrong password or an inactive account; only the key's digest stored; tokens
listed, revoked, rotated, expiring; another account's token out of reach; the cap per account."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.utils import timezone

from ladder.core.errors import ServiceError
from ladder.models import ApiToken
from ladder.services.accounts.tokens import (
    TokenRefused,
    key_digest,
    token_authenticate,
    token_create,
    token_for_credentials,
    token_revoke,
    token_rotate,
    tokens_of,
)
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"  # the UserFactory's


def test_each_exchange_makes_a_new_token_and_only_its_digest_is_stored():
    user = UserFactory()
    assert not ApiToken.objects.filter(user=user).exists()
    token, key = token_for_credentials(username=user.username, password=PASSWORD)
    assert len(key) == 40 and token.user == user
    stored = ApiToken.objects.get(user=user)
    assert stored.digest == key_digest(key) != key and stored.prefix == key[:8]
    assert key not in {value for value in vars(stored).values() if isinstance(value, str)}
    _second, other_key = token_for_credentials(username=user.username, password=PASSWORD)
    assert other_key != key and ApiToken.objects.filter(user=user).count() == 2
    assert token_authenticate(key=key).user == token_authenticate(key=other_key).user == user


def refusal(username: str, password: str) -> ServiceError:
    with pytest.raises(ServiceError) as caught:
        token_for_credentials(username=username, password=password)
    return caught.value


def test_a_wrong_password_and_an_unknown_name_are_refused_alike_without_saying_which():
    user = UserFactory()
    wrong_password = refusal(user.username, "not-the-password")
    unknown_name = refusal(f"{user.username}-nobody", PASSWORD)
    assert wrong_password.status == unknown_name.status == 400
    assert wrong_password.message == unknown_name.message
    assert "wrong username or password" in wrong_password.message
    assert not ApiToken.objects.filter(user=user).exists()


def test_an_inactive_account_gets_no_token_and_its_tokens_stop_working():
    user = UserFactory()
    _token, key = token_create(user=user)
    user.is_active = False
    user.save()
    assert "wrong username or password" in refusal(user.username, PASSWORD).message
    with pytest.raises(TokenRefused, match="disabled"):
        token_authenticate(key=key)


def test_a_revoked_key_is_refused_and_the_others_keep_working():
    user = UserFactory()
    kept, kept_key = token_create(user=user, name="ci")
    revoked, revoked_key = token_create(user=user, name="laptop")
    assert [token.id for token in tokens_of(user=user)] == [revoked.id, kept.id]
    token_revoke(user=user, token_id=revoked.id)
    with pytest.raises(TokenRefused, match="revoked"):
        token_authenticate(key=revoked_key)
    assert token_authenticate(key=kept_key).id == kept.id


def test_another_accounts_token_can_be_neither_revoked_nor_rotated():
    owner, other = UserFactory(), UserFactory()
    token, key = token_create(user=owner)
    for action in (token_revoke, token_rotate):
        with pytest.raises(ServiceError) as caught:
            action(user=other, token_id=token.id)
        assert caught.value.status == 404 and f"no API token {token.id}" in caught.value.message
    assert token_authenticate(key=key).id == token.id


def test_rotation_kills_the_old_key_and_keeps_the_id_name_and_lifetime():
    user = UserFactory()
    token, old_key = token_create(user=user, name="ci", expires_in_days=30)
    rotated, new_key = token_rotate(user=user, token_id=token.id)
    assert (rotated.id, rotated.name) == (token.id, "ci") and new_key != old_key
    assert abs(rotated.expires_at - (timezone.now() + timedelta(days=30))) < timedelta(minutes=1)
    with pytest.raises(TokenRefused):
        token_authenticate(key=old_key)
    assert token_authenticate(key=new_key).id == token.id
    forever, _ = token_create(user=user)
    assert token_rotate(user=user, token_id=forever.id)[0].expires_at is None


def test_an_expired_key_is_refused_saying_so():
    user = UserFactory()
    token, key = token_create(user=user, expires_in_days=1)
    assert token_authenticate(key=key).id == token.id
    with pytest.raises(TokenRefused, match="this token expired at .* UTC"):
        token_authenticate(key=key, now=timezone.now() + timedelta(days=1, seconds=1))


@pytest.mark.parametrize("days", [0, -1, 4000, True])
def test_an_expiry_out_of_range_is_refused(days):
    with pytest.raises(ServiceError) as caught:
        token_create(user=UserFactory(), expires_in_days=days)
    assert caught.value.field == "expires_in_days"


def test_an_account_holds_at_most_API_TOKENS_PER_USER_tokens(settings):
    settings.API_TOKENS_PER_USER = 2
    user = UserFactory()
    token_create(user=user)
    first, _ = token_create(user=user)
    with pytest.raises(ServiceError, match="already has 2 API tokens.*revoke one"):
        token_create(user=user)
    token_revoke(user=user, token_id=first.id)
    token_create(user=user)
