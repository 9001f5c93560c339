"""The accounts' model (``ladder.models.accounts``): an API token is stored as its key's digest alone, one
row per digest, and shows only its prefix."""

from __future__ import annotations

import hashlib

import pytest

from ladder.models import ApiToken
from tests.factories import UserFactory, api_token_key
from tests.ladder.models.test_models_matches import refused

pytestmark = pytest.mark.django_db


def test_a_token_keeps_its_keys_digest_and_prefix_never_the_key():
    user = UserFactory()
    key = api_token_key(user, name="laptop")
    token = ApiToken.objects.get(user=user)
    assert token.digest == hashlib.sha256(key.encode()).hexdigest() and key not in token.digest
    assert key.startswith(token.prefix) and key not in str(token) and token.prefix in str(token)
    refused(lambda: ApiToken.objects.create(user=UserFactory(), digest=token.digest, prefix="x"))
