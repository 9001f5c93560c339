"""Fixtures for the API tests: clients for two users and helpers that upload through the API."""

from __future__ import annotations

import pytest

from tests.api.helpers import token_client
from tests.factories import UserFactory


@pytest.fixture(autouse=True)
def _fresh_throttle_counters(fresh_cache):
    """Throttle counters live in the cache; each test starts with none."""


@pytest.fixture
def other_client(db):
    """A second user, who tries to read and change the first user's (``auth_client``) things."""
    return token_client(UserFactory())


@pytest.fixture
def staff_client(db):
    return token_client(UserFactory(is_staff=True))


