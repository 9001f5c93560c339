"""Hostile request bodies against every operation of the OpenAPI schema: deep JSON, large JSON, forms and
multipart bodies with deep values, too many fields, too many bytes. None may answer a 5xx, logged in or
not; each body the API reads is refused with a 400 in the one error shape, saying what is wrong.

The operations come from the schema the API serves (``/api/schema/``), so a route added later is covered
without touching this file; path parameters are filled with rows that exist and belong to the requesting
user, so the body is read rather than refused by a 404 first.
"""

from __future__ import annotations

import json

import pytest
from django.test import Client
from django.test.client import BOUNDARY, MULTIPART_CONTENT, encode_multipart
from rest_framework.test import APIClient

from ladder.services.accounts.tokens import token_create
from ladder.services.tournaments.comparisons import comparison_create
from ladder.services.webhooks.subscriptions import webhook_create
from tests.api.helpers import token_client
from tests.factories import (
    BotFactory,
    BotVersionFactory,
    StaffFactory,
    TournamentFactory,
    UserFactory,
    finished_match,
)

pytestmark = pytest.mark.django_db

DEEP = b"[" * 50_000
# Under orjson's own limit of 1024 levels, over the API's: the depth check, not orjson, refuses it.
MIDDLING = json.dumps({"username": "a" * 5, "password": "b" * 12, "options": json.loads("[" * 200 + "]" * 200)})


@pytest.fixture
def world(settings):
    """An owner with two bots (one with two versions), a tournament, a finished match, a comparison and a
    webhook; throttles high enough that every request reaches its view."""
    settings.REST_FRAMEWORK = {
        **settings.REST_FRAMEWORK,
        "DEFAULT_THROTTLE_RATES": {scope: "100000/hour" for scope in settings.REST_FRAMEWORK["DEFAULT_THROTTLE_RATES"]},
    }
    # Small caps keep the large bodies small; the caps are read per request.
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 256 * 1024
    settings.API_JSON_MAX_BYTES = 64 * 1024
    owner = UserFactory()
    bots = [BotFactory(owner=owner), BotFactory(owner=owner)]
    BotVersionFactory(bot=bots[0])
    tournament = TournamentFactory(bots=bots, created_by=owner)
    match = finished_match(bots=bots)
    comparison = comparison_create(user=owner, bot_id=bots[0].id, baseline=1, candidate=2)
    settings.WEBHOOKS_ALLOW_PRIVATE = True  # a target that resolves without a network
    webhook, _ = webhook_create(owner=owner, url="http://127.0.0.1:9/hook", events=["bot.validated"])
    spare_token, _key = token_create(user=owner, name="spare")
    values = {"token_id": spare_token.id, "webhook_id": webhook.id, "bot_id": bots[0].id, "opponent_id": bots[1].id, "number": 1, "tournament_id": tournament.id,
              "match_id": match.id, "comparison_id": comparison.id, "game": "kingdomino"}
    return {"owner": owner, "values": values}


def operations(client) -> list[tuple[str, str, dict]]:
    schema = json.loads(client.get("/api/schema/", HTTP_ACCEPT="application/vnd.oai.openapi+json").content)
    return [(method, path, operation) for path, item in schema["paths"].items()
            for method, operation in item.items() if method in {"get", "post", "put", "patch", "delete"}]


def form_fields(operation: dict) -> list[str]:
    """The fields the operation's form or multipart body names (none without a request body)."""
    content = operation.get("requestBody", {}).get("content", {})
    names: list[str] = []
    for media, body in content.items():
        if media != "application/json":
            names += list(body.get("schema", {}).get("properties", {})) or []
    return sorted(set(names)) or ["options"]


def clients(world) -> dict[str, APIClient]:
    anonymous = APIClient(raise_request_exception=False)
    owner = token_client(world["owner"])
    staff = token_client(StaffFactory())
    for client in (owner, staff):
        client.raise_request_exception = False
    return {"anonymous": anonymous, "owner": owner, "staff": staff}


def bodies(operation: dict, settings) -> list[tuple[str, bytes | str, str]]:
    """``(name, body, content type)`` of every hostile body sent to ``operation``."""
    fields = form_fields(operation)
    huge_json = b'{"name":"' + b"x" * settings.API_JSON_MAX_BYTES + b'"}'
    return [
        ("deep json", DEEP, "application/json"),
        ("deep json in an object", b'{"options":' + DEEP, "application/json"),
        ("json deeper than the api allows", MIDDLING, "application/json"),
        ("json larger than the api reads", huge_json, "application/json"),
        ("json beyond django's body cap", b'"' + b"x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10) + b'"',
         "application/json"),
        ("deep form values", "&".join(f"{name}={'[' * 50_000}" for name in fields),
         "application/x-www-form-urlencoded"),
        ("too many form fields", "&".join(f"f{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 5)),
         "application/x-www-form-urlencoded"),
        ("form beyond the body cap", "name=" + "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10),
         "application/x-www-form-urlencoded"),
    ]


def multipart_bodies(operation: dict, settings) -> list[tuple[str, dict]]:
    fields = form_fields(operation)
    return [
        ("deep multipart values", {name: "[" * 50_000 for name in fields}),
        ("too many multipart fields", {f"f{i}": "1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 5)}),
        ("multipart field beyond the body cap", {"name": "x" * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 10)}),
    ]


def assert_refused_cleanly(response, context) -> None:
    assert response.status_code < 500, (context, response.status_code, response.content[:300])
    if response.status_code >= 400:
        assert response["Content-Type"].startswith("application/json"), (context, response.content[:200])
        body = response.json()
        assert set(body) >= {"detail", "code", "fields"} and body["detail"], (context, body)


def test_no_hostile_body_gets_a_server_error_on_any_route(world, settings):
    # Revoking the token in use comes last: after it, the owner's and staff's requests are all 401s.
    listed = sorted(operations(Client()), key=lambda op: op[:2] == ("delete", "/api/auth/token/"))
    assert len(listed) >= 25
    for who, client in clients(world).items():
        for method, path, operation in listed:
            url = path.format(**world["values"])
            sent = [*bodies(operation, settings),
                    *[(name, encode_multipart(BOUNDARY, data), MULTIPART_CONTENT)
                      for name, data in multipart_bodies(operation, settings)]]
            for name, body, content_type in sent:
                # generic(): a body on every method, GET included (its view must ignore it).
                response = client.generic(method.upper(), url, data=body, content_type=content_type)
                assert_refused_cleanly(response, (who, method, url, name))


# The operations that read a JSON body: each refuses a hostile one with a 400 saying what is wrong, for
# anyone who reaches the view (the three public ones for everybody).
JSON_WRITES = [("post", "/api/auth/register/"), ("post", "/api/auth/token/"), ("post", "/api/tournaments/"),
               ("post", "/api/bots/{bot_id}/comparisons/")]


@pytest.mark.parametrize(("method", "path"), JSON_WRITES)
@pytest.mark.parametrize(("body", "words"), [
    (DEEP, "nested deeper than 64 levels"),
    (MIDDLING.encode(), "nested deeper than 64 levels"),
    (b'{"name": NaN}', "is not JSON"),
    (b'{"name": "\\ud800"}', "is not JSON"),
    (b'{"name": "x"', "is not JSON"),
], ids=["deep", "deeper-than-64", "nan", "lone-surrogate", "truncated"])
def test_a_json_body_that_is_not_bounded_strict_json_is_a_400_saying_so(world, method, path, body, words):
    client = token_client(world["owner"])
    response = getattr(client, method)(path.format(**world["values"]), data=body, content_type="application/json")
    assert response.status_code == 400, response.content[:300]
    assert response.json()["code"] == "parse_error"
    assert words in response.json()["detail"]


@pytest.mark.parametrize("path", ["/api/auth/register/", "/api/auth/token/"])
def test_the_routes_open_to_anyone_refuse_deep_and_large_bodies_with_a_400(path, settings, world):
    client = APIClient(raise_request_exception=False)
    deep = client.post(path, data=DEEP, content_type="application/json")
    assert deep.status_code == 400 and "nested deeper than 64 levels" in deep.json()["detail"]
    padded = {"username": "somebody", "password": "a-long-password", "pad": "x" * settings.API_JSON_MAX_BYTES}
    large = client.post(path, data=json.dumps(padded), content_type="application/json")
    assert large.status_code == 400, large.content[:200]
    assert f"larger than {settings.API_JSON_MAX_BYTES} bytes" in large.json()["detail"]
    beyond = client.post(path, data=b" " * (settings.DATA_UPLOAD_MAX_MEMORY_SIZE + 1), content_type="application/json")
    assert beyond.status_code == 400 and "larger than" in beyond.json()["detail"]


def test_too_many_form_fields_is_a_400_in_the_error_shape(world, settings):
    client = APIClient(raise_request_exception=False)
    form = "&".join(f"f{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    response = client.post("/api/auth/register/", data=form, content_type="application/x-www-form-urlencoded")
    assert response.status_code == 400
    assert f"more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} fields" in response.json()["detail"]


def test_a_bounded_json_body_still_works(world):
    client = APIClient()
    body = {"username": "fresh-user", "password": "a-long-password-1"}
    assert client.post("/api/auth/register/", data=body, format="json").status_code == 201
    assert client.post("/api/auth/token/", data=body, format="json").status_code == 200
    latin = json.dumps(body).encode("latin-1")
    assert client.post("/api/auth/token/", data=latin, content_type="application/json; charset=latin-1").status_code == 200
    refused = client.post("/api/auth/token/", data=b"{}", content_type="application/json; charset=bz2_codec")
    assert refused.status_code == 400 and "unsupported charset" in refused.json()["detail"]
