"""The webhooks API: create (the secret shown once), list, read and delete your own; refusals are 400s
that say what to fix; another user's webhook is a 404; private targets are refused unless allowed."""

from __future__ import annotations

import pytest

from ladder.models import Webhook
from tests.api.helpers import error_of

# A public address, written as a literal: creating a webhook to it needs no DNS.
PUBLIC = "http://93.184.215.14/hooks/ladder"


def create(client, url=PUBLIC, events=("bot.validated", "comparison.finished")):
    return client.post("/api/webhooks/", {"url": url, "events": list(events)}, format="json")


def test_a_webhook_is_created_with_its_secret_shown_once(auth_client):
    response = create(auth_client)
    assert response.status_code == 201, response.json()
    body = response.json()
    assert set(body) == {"id", "url", "events", "secret", "created_at"}
    assert body["url"] == PUBLIC and body["events"] == ["bot.validated", "comparison.finished"]
    assert body["secret"].startswith("whsec_") and len(body["secret"]) > 40

    detail = auth_client.get(f"/api/webhooks/{body['id']}/").json()
    listed = auth_client.get("/api/webhooks/").json()
    assert "secret" not in detail and detail["url"] == PUBLIC
    assert [row["id"] for row in listed["results"]] == [body["id"]] and "secret" not in listed["results"][0]
    # Stored sealed: the database holds no copy of the secret in the clear.
    assert body["secret"] not in Webhook.objects.get(pk=body["id"]).secret_sealed


def test_the_owner_deletes_a_webhook(auth_client):
    webhook_id = create(auth_client).json()["id"]
    assert auth_client.delete(f"/api/webhooks/{webhook_id}/").status_code == 204
    assert auth_client.get(f"/api/webhooks/{webhook_id}/").status_code == 404
    assert auth_client.get("/api/webhooks/").json()["count"] == 0


def test_another_users_webhook_is_not_found_for_any_method(auth_client, other_client, staff_client):
    webhook_id = create(auth_client).json()["id"]
    for client in (other_client, staff_client):
        for response in (client.get(f"/api/webhooks/{webhook_id}/"), client.delete(f"/api/webhooks/{webhook_id}/"),
                         client.get(f"/api/webhooks/{webhook_id}/deliveries/")):
            assert response.status_code == 404
            assert error_of(response)["code"] == "not_found"
        assert client.get("/api/webhooks/").json()["count"] == 0
    assert Webhook.objects.filter(pk=webhook_id).exists()


def test_webhooks_need_a_login(api_client):
    assert api_client.get("/api/webhooks/").status_code == 401
    assert create(api_client).status_code == 401


@pytest.mark.parametrize("url, says", [
    ("ftp://93.184.215.14/x", "only http:// and https://"),
    ("javascript:alert(1)", "only http:// and https://"),
    ("http://user:pass@93.184.215.14/x", "user name or password"),
    ("http://user@93.184.215.14/x", "user name or password"),
    ("http:///nohost", "no host"),
    ("http://93.184.215.14/" + "a" * 2000, "2000 characters"),
    ("http://93.184.215.14/a b", "space or a control character"),
    ("http://93.184.215.14:99999/", "cannot be read"),
    ("http://does-not-exist.invalid/hook", "does not resolve"),
])
def test_a_url_the_rules_refuse_is_a_400_that_names_the_rule(auth_client, url, says):
    response = create(auth_client, url=url)
    assert response.status_code == 400, response.json()
    body = error_of(response)
    assert says in body["detail"] and "url" in body["fields"]
    assert not Webhook.objects.exists()


@pytest.mark.parametrize("events, says", [
    ([], "events"),
    (["bot.exploded"], "unknown event 'bot.exploded'"),
    ([7], "events"),
])
def test_unknown_or_missing_events_are_a_400(auth_client, events, says):
    response = create(auth_client, events=events)
    assert response.status_code == 400
    body = error_of(response)
    assert says in body["detail"] and "events" in body["fields"]


@pytest.mark.parametrize("url", [
    "http://127.0.0.1:8000/hook",
    "http://localhost/hook",             # a name that resolves to the loopback
    "http://[::1]/hook",                 # IPv6 loopback
    "http://169.254.169.254/latest/",    # link-local (cloud metadata)
    "http://[fe80::1]/hook",             # IPv6 link-local
    "http://[::ffff:127.0.0.1]/hook",    # IPv4-mapped IPv6
    "http://2130706433/hook",            # 127.0.0.1 in decimal
    "http://0177.0.0.1/hook",            # 127.0.0.1 in octal
    "http://0x7f.1/hook",                # and in hexadecimal, shortened
    "http://10.1.2.3/hook", "http://172.16.0.1/hook", "http://192.168.1.1/hook",  # private
    "http://100.64.0.1/hook",            # shared address space (carrier NAT)
    "http://0.0.0.0/hook", "http://[::]/hook",  # unspecified
    "http://224.0.0.1/hook",             # multicast
    "https://[fc00::1]/hook",            # IPv6 unique local
])
def test_a_private_loopback_or_link_local_target_is_refused(auth_client, url):
    response = create(auth_client, url=url)
    assert response.status_code == 400, response.json()
    assert "public addresses only" in error_of(response)["detail"]


def test_the_operator_may_allow_private_targets(auth_client, settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    assert create(auth_client, url="http://127.0.0.1:8000/hook").status_code == 201
    # The other rules stay.
    assert create(auth_client, url="http://u:p@127.0.0.1/hook").status_code == 400


def test_a_user_holds_at_most_the_configured_number_of_webhooks(auth_client, other_client, settings):
    settings.WEBHOOKS_PER_USER = 2
    assert [create(auth_client).status_code for _ in range(2)] == [201, 201]
    response = create(auth_client)
    assert response.status_code == 400 and "delete one first" in error_of(response)["detail"]
    assert create(other_client).status_code == 201


def test_a_new_webhook_has_no_deliveries(auth_client):
    webhook_id = create(auth_client).json()["id"]
    assert auth_client.get(f"/api/webhooks/{webhook_id}/deliveries/").json() == {
        "count": 0, "next": None, "previous": None, "results": []}


@pytest.mark.usefixtures("fresh_cache")
def test_creating_and_deleting_webhooks_and_toggling_bots_are_throttled_per_user_with_a_clear_429(
        auth_client, other_client, throttle_rates, bot_factory):
    """Each deactivation tells every webhook of the owner: the routes that make deliveries, or renew the
    webhooks that receive them, are limited per user."""
    throttle_rates(webhooks="3/hour", activations="2/hour")
    first = create(auth_client).json()["id"]
    assert auth_client.delete(f"/api/webhooks/{first}/").status_code == 204
    assert create(auth_client).status_code == 201
    refused = create(auth_client)
    assert refused.status_code == 429 and 1 <= int(refused["Retry-After"]) <= 3600
    assert error_of(refused)["detail"].startswith("too many webhooks created or deleted: at most 3 per hour; "
                                                  "try again in ")
    assert create(other_client).status_code == 201

    bot = bot_factory(owner=auth_client.user)
    assert [auth_client.post(f"/api/bots/{bot.id}/{action}/").status_code
            for action in ("deactivate", "reactivate", "deactivate")] == [200, 200, 429]
    refused = auth_client.post(f"/api/bots/{bot.id}/reactivate/")
    assert error_of(refused)["detail"].startswith("too many bot deactivations and reactivations: at most 2 per hour")
    assert Webhook.objects.filter(owner=auth_client.user).count() == 1
