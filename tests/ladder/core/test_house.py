"""``is_house``: the house account is the one named ``examples`` with no usable password; a user who
registered that name with a password, any other user, and no user at all are not."""

from __future__ import annotations

import pytest

from ladder.core.house import EXAMPLES_OWNER, is_house
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db


def test_the_account_named_examples_without_a_usable_password_is_the_house():
    user = UserFactory.build(username=EXAMPLES_OWNER)
    user.set_unusable_password()
    assert is_house(user)


def test_a_user_who_registered_the_name_with_a_password_is_not_the_house():
    assert not is_house(UserFactory(username=EXAMPLES_OWNER))


def test_another_name_without_a_password_is_not_the_house():
    user = UserFactory()
    user.set_unusable_password()
    assert not is_house(user)


def test_no_user_and_an_anonymous_user_are_not_the_house():
    from django.contrib.auth.models import AnonymousUser

    assert not is_house(None)
    assert not is_house(AnonymousUser())
