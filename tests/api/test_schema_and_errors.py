"""The OpenAPI schema and its two viewers (served without any CDN), and the one error shape for requests
that never reach a view's logic."""

import re

import pytest
import yaml

from tests.api.helpers import error_of

pytestmark = pytest.mark.django_db

#: An address on another host: absolute (``https://cdn.example``) or protocol-relative (``//cdn.example``).
#: Not the bare letters "cdn", which a random token in the page (its CSRF token, the script's hash) may hold.
REMOTE_ADDRESS = re.compile(r"(?:[a-z][a-z0-9+.-]*:)?//[\w-]+(?:\.[\w-]+)+", re.IGNORECASE)

# Every route of the API (docs/architecture.md, "Interfaces"): each must be in the schema.
DOCUMENTED = {
    ("post", "/api/auth/register/"), ("post", "/api/auth/token/"), ("get", "/api/auth/me/"),
    ("get", "/api/games/"), ("get", "/api/leaderboards/{game}/"),
    ("get", "/api/bots/"), ("post", "/api/bots/"), ("get", "/api/bots/{bot_id}/"),
    ("post", "/api/bots/{bot_id}/deactivate/"), ("post", "/api/bots/{bot_id}/reactivate/"),
    ("get", "/api/bots/{bot_id}/ratings/"), ("get", "/api/bots/{bot_id}/head-to-head/{opponent_id}/"),
    ("get", "/api/bots/{bot_id}/versions/"), ("post", "/api/bots/{bot_id}/versions/"),
    ("get", "/api/bots/{bot_id}/versions/{number}/code/"),
    ("get", "/api/bots/{bot_id}/comparisons/"), ("post", "/api/bots/{bot_id}/comparisons/"),
    ("get", "/api/comparisons/{comparison_id}/"),
    ("get", "/api/tournaments/"), ("post", "/api/tournaments/"), ("get", "/api/tournaments/{tournament_id}/"),
    ("get", "/api/tournaments/{tournament_id}/standings/"), ("get", "/api/tournaments/{tournament_id}/crosstable/"),
    ("get", "/api/matches/"), ("get", "/api/matches/{match_id}/"), ("get", "/api/matches/{match_id}/replay/"),
    ("get", "/api/matches/{match_id}/logs/"),
    ("get", "/api/matches/{match_id}/bundle/"),
    ("get", "/api/webhooks/"), ("post", "/api/webhooks/"), ("get", "/api/webhooks/{webhook_id}/"),
    ("delete", "/api/webhooks/{webhook_id}/"), ("get", "/api/webhooks/{webhook_id}/deliveries/"),
    ("get", "/api/exports/{game}/matches/"),
    ("delete", "/api/auth/token/"), ("get", "/api/auth/tokens/"), ("post", "/api/auth/tokens/"),
    ("delete", "/api/auth/tokens/{token_id}/"), ("post", "/api/auth/tokens/{token_id}/rotate/"),
}


@pytest.fixture(scope="module")
def schema(django_db_blocker):
    from django.test import Client

    with django_db_blocker.unblock():
        response = Client().get("/api/schema/")
    assert response.status_code == 200
    return yaml.safe_load(response.content)


def test_every_route_is_documented_with_examples_and_error_responses(schema):
    operations = {(method, path): op for path, item in schema["paths"].items() for method, op in item.items()}
    assert set(operations) == DOCUMENTED
    for (method, path), op in operations.items():
        assert op.get("summary"), (method, path)
        success = [code for code in op["responses"] if code.startswith("2")]
        assert success, (method, path)
        content = op["responses"][success[0]].get("content", {})
        # A 204 has no body to give an example of.
        if success[0] != "204" and "application/octet-stream" not in content:
            # JSON, or one JSON object per line (the bulk export): an example either way.
            media = content.get("application/json") or content["application/x-ndjson"]
            assert media.get("examples"), f"{method} {path} has no response example"
        if method == "post" and "requestBody" in op:
            body = op["requestBody"]["content"]
            assert any(media.get("examples") for media in body.values()), f"{method} {path} has no request example"
        errors = [code for code in op["responses"] if code.startswith("4")]
        if path != "/api/games/":
            assert errors, f"{method} {path} documents no error"
        for code in errors:
            assert op["responses"][code]["content"]["application/json"]["schema"] == {
                "$ref": "#/components/schemas/Error"}


def test_schema_names_the_filters_and_pagination(schema):
    params = {p["name"] for p in schema["paths"]["/api/matches/"]["get"]["parameters"]}
    # The match list pages by cursor (keyset), the others by page number.
    assert params >= {"game", "bot", "tournament", "status", "created_after", "finished_before", "ordering",
                      "cursor", "page_size"}
    assert "page" in {p["name"] for p in schema["paths"]["/api/tournaments/"]["get"]["parameters"]}
    listed = schema["paths"]["/api/matches/"]["get"]["responses"]["200"]["content"]["application/json"]["schema"]
    page = schema["components"]["schemas"][listed["$ref"].rsplit("/", 1)[1]]
    assert set(page["required"]) == {"count", "count_exact", "next", "previous", "results"}


@pytest.mark.parametrize("path", ["/api/docs/", "/api/redoc/"])
def test_viewers_load_only_local_assets(api_client, path):
    page = api_client.get(path)
    assert page.status_code == 200
    html = page.content.decode()
    sources = re.findall(r'(?:src|href)="([^"]+)"', html)
    assert sources and all(src.startswith("/") for src in sources), sources
    assert not REMOTE_ADDRESS.findall(html)
    for src in sources:
        asset = api_client.get(src.replace("&amp;", "&"))
        assert asset.status_code == 200, src
        assert b"".join(asset.streaming_content if asset.streaming else [asset.content])


def test_swagger_script_is_served_locally_and_points_at_the_schema(api_client):
    html = api_client.get("/api/docs/").content.decode()
    script = re.search(r'<script src="(/api/docs/\?script=[^"]*)"', html)
    assert script, html
    body = api_client.get(script.group(1).replace("&amp;", "&")).content.decode()
    assert "/api/schema/" in body and not REMOTE_ADDRESS.findall(body)


def test_unknown_api_address_is_a_json_404(api_client):
    response = api_client.get("/api/no-such-thing/")
    assert response.status_code == 404
    assert error_of(response)["code"] == "not_found"


def test_wrong_method_and_malformed_json_use_the_error_shape(auth_client):
    wrong = auth_client.delete("/api/games/")
    assert wrong.status_code == 405 and error_of(wrong)["code"] == "method_not_allowed"
    malformed = auth_client.post("/api/tournaments/", data="{not json", content_type="application/json")
    assert malformed.status_code == 400 and "the request body is not JSON" in error_of(malformed)["detail"]
    unsupported = auth_client.post("/api/bots/", data="{}", content_type="application/json")
    assert unsupported.status_code == 415 and error_of(unsupported)["code"] == "unsupported_media_type"


def test_unknown_api_address_is_a_json_404_for_writes_with_a_session_cookie_too(api_client):
    api_client.cookies["sessionid"] = "stale"
    response = api_client.post("/api/bots/-1/deactivate/")
    assert response.status_code == 404 and error_of(response)["code"] == "not_found"


def test_schema_states_the_limits_a_tournament_may_set_within_the_servers_caps(schema, settings):
    components = schema["components"]["schemas"]
    settable = components["TournamentLimitsCreateRequest"]["properties"]
    assert list(settable) == ["move_ms", "bank_ms", "match_ms", "memory_mb", "log_bytes"]
    assert (settable["move_ms"]["minimum"], settable["move_ms"]["maximum"]) == (10, settings.BOTS_MAX_MOVE_MS)
    assert settable["bank_ms"]["maximum"] == settings.BOTS_MAX_BANK_MS
    assert (settable["match_ms"]["minimum"], settable["match_ms"]["maximum"]) == (10, settings.BOTS_MAX_MATCH_MS)
    assert "limits" in components["Tournament"]["properties"]
    assert "start_ms" in components["MatchLimits"]["properties"]
