"""``token_for_credentials``: a username and password exchanged for the account's one API token, made on
first use, and the same refusal for a wrong name, a wrong password or an inactive account."""

from __future__ import annotations

import pytest
from rest_framework.authtoken.models import Token

from ladder.services.errors import ServiceError
from ladder.services.tokens import token_for_credentials
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

PASSWORD = "correct-horse-battery"  # the UserFactory's


def test_the_first_exchange_creates_the_token_and_later_ones_return_the_same():
    user = UserFactory()
    assert not Token.objects.filter(user=user).exists()
    key = token_for_credentials(username=user.username, password=PASSWORD)
    assert key == Token.objects.get(user=user).key and len(key) == 40
    assert token_for_credentials(username=user.username, password=PASSWORD) == key
    assert Token.objects.filter(user=user).count() == 1


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
    assert not Token.objects.filter(user=user).exists()


def test_an_inactive_account_gets_no_token():
    user = UserFactory(is_active=False)
    assert "wrong username or password" in refusal(user.username, PASSWORD).message
    assert not Token.objects.filter(user=user).exists()
