"""Property-based fuzzing of the whole API from its own OpenAPI schema (schemathesis).

Every operation is called with generated input, valid and invalid, against the live WSGI app and a
database holding real users, bots, a tournament and finished matches. Path ids (and the bots of new
tournaments) are drawn partly from the rows that exist, so the fuzzing reaches past the 404s. Every response must be free of server errors and
match the schema (status code, content type, headers and body). Examples per operation are bounded and
derandomized, so the run is repeatable and takes about a minute.
"""

from __future__ import annotations

import pytest
import schemathesis
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from schemathesis.checks import not_a_server_error
from schemathesis.specs.openapi.checks import (
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from ladder.services.accounts.tokens import token_create
from ladder.services.webhooks.subscriptions import webhook_create
from tests.api.helpers import token_client
from tests.factories import BotFactory, TournamentFactory, UserFactory, finished_match

pytestmark = pytest.mark.django_db

# Path parameter values of rows that exist in the current test; filled by the ``api_schema`` fixture.
KNOWN_PATH_VALUES: dict[str, list] = {}
# The Authorization header of the user who owns those rows; also filled by ``api_schema``.
AUTHORIZATION: dict[str, str] = {}
# The account whose tokens the token routes revoke and rotate: another one, so that no generated id takes
# the owner's token away from the operations still to be fuzzed.
TOKEN_HOLDER: dict[str, object] = {}


@pytest.fixture
def _connection_kept_across_requests():
    """The WSGI handler closes the database connection around each request; inside a test's transaction
    that would close it for good (Django's own test client suspends this the same way)."""
    from django.core.signals import request_finished, request_started
    from django.db import close_old_connections

    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    yield
    request_started.connect(close_old_connections)
    request_finished.connect(close_old_connections)


@pytest.fixture
def api_schema(db, settings, _connection_kept_across_requests):
    from ladder.wsgi import application

    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        # High enough that fuzzing exercises the writes, not only the 429s (which the tests of each route cover).
        "DEFAULT_THROTTLE_RATES": {"uploads": "100000/hour", "registrations": "100000/hour",
                                   "tournaments": "100000/hour", "logins": "100000/hour", "exports": "100000/hour"},
    }
    settings.API_TOKENS_PER_USER = 100_000
    owner = UserFactory()
    holder = UserFactory()
    bots = BotFactory.create_batch(3, owner=owner)
    tournament = TournamentFactory(bots=bots)
    match = finished_match(tournament=tournament, bots=bots[:2])
    webhook, _ = webhook_create(owner=owner, url="http://93.184.215.14/hook", events=["bot.validated"])
    KNOWN_PATH_VALUES.clear()
    KNOWN_PATH_VALUES.update({
        "bot_id": [b.id for b in bots], "opponent_id": [b.id for b in bots], "number": [1],
        "tournament_id": [tournament.id], "match_id": [match.id], "game": ["kingdomino", "dice_king"],
        "webhook_id": [webhook.id],
        "token_id": [token_create(user=holder, name=f"spare {n}")[0].id for n in range(3)],
    })
    TOKEN_HOLDER["user"] = holder
    AUTHORIZATION["Authorization"] = token_client(owner)._credentials["HTTP_AUTHORIZATION"]
    return schemathesis.from_wsgi("/api/schema/", application)


schema = schemathesis.from_pytest_fixture("api_schema")

# What the responses must satisfy. Authentication is not among them: every request here carries a valid
# token (so that writes get exercised), and who may do what is tested route by route.
CHECKS = (
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
)


@schema.hook
def before_generate_path_parameters(context, strategy):
    def mix_in_known(params):
        if not params:
            return st.just(params)
        return st.fixed_dictionaries({
            name: st.sampled_from([value, *KNOWN_PATH_VALUES.get(name, [])]) for name, value in params.items()
        })

    return strategy.flatmap(mix_in_known)


@schema.hook
def before_generate_body(context, strategy):
    """Tournament bodies sometimes name bots that exist, so that creation itself gets fuzzed."""

    def mix_in_known(body):
        if not (isinstance(body, dict) and "bots" in body):
            return st.just(body)
        return st.sampled_from([body, {**body, "game": "kingdomino", "bots": KNOWN_PATH_VALUES["bot_id"]}])

    return strategy.flatmap(mix_in_known)


@schema.parametrize()
@settings(
    max_examples=40,
    deadline=None,
    derandomize=True,
    phases=[Phase.explicit, Phase.generate],
    suppress_health_check=list(HealthCheck),
)
def test_no_server_errors_and_every_response_matches_the_schema(case):
    headers = dict(AUTHORIZATION)
    if case.path.startswith("/api/auth/token"):
        # A fresh key each call: revoking the key in use, or rotating it, is among what is fuzzed.
        headers["Authorization"] = f"Token {token_create(user=TOKEN_HOLDER['user'])[1]}"
    response = case.call_wsgi(headers=headers)
    case.validate_response(response, checks=CHECKS)
