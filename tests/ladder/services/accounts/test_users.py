"""``user_register``: a new account with its API token; refusals for a blank name, a weak password, a name
taken in any letter case, each naming the field at fault."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model

from ladder.core.errors import ServiceError
from ladder.services.accounts.tokens import token_authenticate
from ladder.services.accounts.users import user_register
from tests.factories import UserFactory

pytestmark = pytest.mark.django_db

STRONG = "plenty-of-words-here-42"


def refusal(username: str, password: str = STRONG) -> ServiceError:
    count = get_user_model().objects.count()
    with pytest.raises(ServiceError) as caught:
        user_register(username=username, password=password)
    assert get_user_model().objects.count() == count
    return caught.value


def test_registering_creates_the_user_with_its_password_and_its_token():
    user, key = user_register(username="  newcomer  ", password=STRONG)
    assert user.username == "newcomer"  # stripped
    assert user.check_password(STRONG)
    assert token_authenticate(key=key).user == user


def test_a_blank_name_is_refused():
    error = refusal("   ")
    assert error.field == "username" and error.status == 400


@pytest.mark.parametrize("password", ["short", "12345678901", "password"])
def test_a_weak_password_is_refused_with_the_validators_words(password):
    error = refusal("someone", password)
    assert error.field == "password"
    assert error.message


def test_a_password_like_the_name_is_refused():
    assert refusal("longusername", "longusername").field == "password"


def test_a_taken_name_is_refused_in_any_letter_case():
    taken = UserFactory()
    for name in (taken.username, taken.username.upper()):
        error = refusal(name)
        assert error.field == "username" and "is taken" in error.message


@pytest.mark.parametrize("username, named", [("evil\x1b[31m", "U+001B"), ("bell\x07", "U+0007"),
                                             ("rtl\u202egnp", "U+202E"), ("<b>bold</b>", "'<'"),
                                             ("a&b", "'&'"), ("two words", "a space"), ("x" * 151, "150")])
def test_a_username_breaking_the_one_rule_is_refused_by_the_service_itself(username, named):
    error = refusal(username)
    assert error.field == "username" and error.status == 400
    assert named in error.message
