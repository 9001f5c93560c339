"""Webhook deliveries, one attempt at a time as the ``ladder.deliver_webhook`` task makes them, against a
real HTTP receiver on the loopback (allowed by ``WEBHOOKS_ALLOW_PRIVATE`` unless the test is about the
address rule): the signature, the retries and their bound, the time-out, an answer dripped past the
attempt's deadline and a path not ASCII each listed as an attempt, no redirect followed, the answer kept
short and escaped, the address checked again at delivery (DNS rebinding), and which changes emit which
event to whom."""

from __future__ import annotations

import json
import socket
import uuid
from datetime import timedelta

import pytest
from django.db import transaction
from django.utils import timezone

from ladder.models import Bot, BotVersion, Webhook, WebhookAttempt, WebhookDelivery
from ladder.services.tournaments.round_robins import tournament_finish_if_done
from ladder.services.webhooks import targets
from ladder.services.webhooks.deliveries import (
    webhook_deliveries_sweep,
    webhook_delivery_attempt,
    webhooks_emit,
)
from ladder.services.webhooks.subscriptions import webhook_create
from tests.api.helpers import check_pending_uploads, token_client, upload
from tests.conftest import broker_queue_purge
from tests.factories import TournamentFactory, UserFactory
from tests.webhook_receiver import Dripper, Receiver

pytestmark = pytest.mark.django_db


@pytest.fixture
def allow_private(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    settings.WEBHOOKS_RETRY_BASE_S = 10.0
    settings.WEBHOOKS_MAX_ATTEMPTS = 3


def emit_one(owner, *, event="bot.deactivated", data=None) -> WebhookDelivery:
    """Emit ``event`` for ``owner`` without publishing (the test makes the attempts itself)."""
    webhooks_emit(event=event, owner_id=owner.id, data=data or {"bot": {"id": 1, "name": "b", "game": "kingdomino"}})
    return WebhookDelivery.objects.filter(webhook__owner=owner).latest("id")


def make_due(delivery: WebhookDelivery) -> None:
    WebhookDelivery.objects.filter(pk=delivery.pk, status="pending").update(
        next_attempt_at=timezone.now() - timedelta(seconds=1))


def test_a_delivery_posts_the_stored_body_signed_with_the_secret(allow_private, django_capture_on_commit_callbacks):
    owner = UserFactory()
    with Receiver() as receiver:
        webhook, secret = webhook_create(owner=owner, url=receiver.url, events=["bot.deactivated"])
        with django_capture_on_commit_callbacks(execute=False) as published:
            delivery = emit_one(owner)
        assert len(published) == 1
        assert webhook_delivery_attempt(delivery_id=delivery.id) == "delivered"
    [got] = receiver.received
    assert got.body == delivery.body.encode()
    assert got.signed_by(secret) and not got.signed_by(secret + "x")
    assert got.headers["X-Ladder-Signature"].startswith("sha256=")
    assert got.headers["Content-Type"] == "application/json" and got.headers["X-Ladder-Event"] == "bot.deactivated"
    payload = json.loads(got.body)
    assert set(payload) == {"event", "id", "created_at", "data"}
    assert payload["event"] == "bot.deactivated" and payload["id"] == str(delivery.event_id)
    [attempt] = WebhookAttempt.objects.filter(delivery=delivery)
    assert (attempt.number, attempt.status_code, attempt.error) == (1, 200, "")
    assert WebhookDelivery.objects.get(pk=delivery.pk).next_attempt_at is None
    assert webhook.deliveries.count() == 1


def test_a_failed_attempt_is_retried_later_with_the_same_body_and_each_attempt_is_listed(allow_private):
    owner = UserFactory()
    with Receiver(statuses=[500, 200]) as receiver:
        webhook, secret = webhook_create(owner=owner, url=receiver.url, events=["bot.deactivated"])
        delivery = emit_one(owner)
        before = timezone.now()
        assert webhook_delivery_attempt(delivery_id=delivery.id) == "pending"
        pending = WebhookDelivery.objects.get(pk=delivery.pk)
        # Due again after the first wait of the schedule, not at once: an early message leaves it.
        assert pending.next_attempt_at >= before + timedelta(seconds=9)
        assert webhook_delivery_attempt(delivery_id=delivery.id) == "skipped"
        make_due(delivery)
        assert webhook_delivery_attempt(delivery_id=delivery.id) == "delivered"
    assert [r.body for r in receiver.received] == [delivery.body.encode()] * 2
    assert all(r.signed_by(secret) for r in receiver.received)
    rows = token_client(owner).get(f"/api/webhooks/{webhook.id}/deliveries/").json()["results"]
    assert [(row["attempt"], row["status_code"], row["delivery_status"]) for row in rows] == [
        (2, 200, "delivered"), (1, 500, "delivered")]
    assert rows[1]["error"] == "answered 500" and rows[1]["event_id"] == str(delivery.event_id)
    assert all(row["duration_ms"] >= 0 and row["time"] for row in rows)


def test_retries_are_bounded(allow_private):
    owner = UserFactory()
    with Receiver(statuses=[503]) as receiver:
        webhook_create(owner=owner, url=receiver.url, events=["bot.deactivated"])
        delivery = emit_one(owner)
        statuses = []
        for _ in range(5):
            make_due(delivery)
            statuses.append(webhook_delivery_attempt(delivery_id=delivery.id))
    assert statuses == ["pending", "pending", "failed", "skipped", "skipped"]
    assert len(receiver.received) == 3
    assert WebhookDelivery.objects.get(pk=delivery.pk).attempts == 3


def test_a_receiver_that_never_answers_times_out(allow_private, settings):
    settings.WEBHOOKS_TIMEOUT_S = 0.5
    owner = UserFactory()
    silent = socket.create_server(("127.0.0.1", 0))
    try:
        webhook_create(owner=owner, url=f"http://127.0.0.1:{silent.getsockname()[1]}/", events=["bot.deactivated"])
        delivery = emit_one(owner)
        assert webhook_delivery_attempt(delivery_id=delivery.id) == "pending"
    finally:
        silent.close()
    attempt = WebhookAttempt.objects.get(delivery=delivery)
    assert attempt.status_code is None and attempt.error == "no answer within 0.5 s"
    assert 400 <= attempt.duration_ms < 3000


def listed(owner, webhook_id: int) -> list[dict]:
    """The attempts the owner reads at ``GET /api/webhooks/{id}/deliveries/``, newest first."""
    return token_client(owner).get(f"/api/webhooks/{webhook_id}/deliveries/").json()["results"]


def test_a_receiver_that_drips_its_answer_is_listed_as_a_failed_attempt_at_the_deadline(allow_private, settings):
    """One byte every 1.5 s never trips a timeout per read: the attempt has one deadline in all."""
    settings.WEBHOOKS_TIMEOUT_S = 2.0
    owner = UserFactory()
    with Dripper(every_s=1.5) as dripper:
        webhook, _ = webhook_create(owner=owner, url=dripper.url, events=["bot.deactivated"])
        delivery = emit_one(owner)
        assert webhook_delivery_attempt(delivery_id=delivery.id) == "pending"
    [row] = listed(owner, webhook.id)
    assert (row["attempt"], row["status_code"], row["delivery_status"]) == (1, None, "pending")
    assert row["error"] == "no answer within 2 s" and 1900 <= row["duration_ms"] < 3500


def test_a_path_not_ascii_is_sent_percent_encoded_and_its_attempt_listed(allow_private):
    owner = UserFactory()
    with Receiver() as receiver:
        response = token_client(owner).post("/api/webhooks/", {"url": receiver.url + "/hé?q=ü",
                                                               "events": ["bot.deactivated"]}, format="json")
        assert response.status_code == 201, response.json()
        assert response.json()["url"] == receiver.url + "/h%C3%A9?q=%C3%BC"
        webhook_id = response.json()["id"]
        assert webhook_delivery_attempt(delivery_id=emit_one(owner).id) == "delivered"
        # A webhook stored before URLs were kept as URIs is sent as one all the same.
        Webhook.objects.filter(pk=webhook_id).update(url=receiver.url + "/hé")
        assert webhook_delivery_attempt(delivery_id=emit_one(owner).id) == "delivered"
    assert [r.path for r in receiver.received] == ["/hook/h%C3%A9?q=%C3%BC", "/hook/h%C3%A9"]
    assert [(row["attempt"], row["status_code"], row["error"]) for row in listed(owner, webhook_id)] == [
        (1, 200, ""), (1, 200, "")]


def test_a_redirect_is_not_followed(allow_private):
    owner = UserFactory()
    with Receiver(statuses=[302]) as receiver:
        webhook_create(owner=owner, url=receiver.url, events=["bot.deactivated"])
        delivery = emit_one(owner)
        assert webhook_delivery_attempt(delivery_id=delivery.id) == "pending"
    assert len(receiver.received) == 1
    assert WebhookAttempt.objects.get(delivery=delivery).error == "answered 302: redirects are not followed"


def test_only_a_short_escaped_excerpt_of_the_answer_is_kept(allow_private):
    owner = UserFactory()
    answer = b"\x1b[2J<script>alert(1)</script>\n\xff\xfe" + b"x" * 100_000
    with Receiver(body=answer) as receiver:
        webhook_create(owner=owner, url=receiver.url, events=["bot.deactivated"])
        delivery = emit_one(owner)
        webhook_delivery_attempt(delivery_id=delivery.id)
    excerpt = WebhookAttempt.objects.get(delivery=delivery).response_excerpt
    assert len(excerpt) <= 600 and excerpt.isascii() and excerpt.isprintable()
    assert excerpt.startswith(r"\x1b[2J<script>") and r"\n\xff\xfe" in excerpt


@pytest.fixture
def rebinding_dns(monkeypatch):
    """``rebind.test`` resolves to whatever ``answers[0]`` holds when asked (the system resolver answers
    for every other name): a DNS server an attacker controls, whose answer changes between two looks."""
    real = socket.getaddrinfo
    answers = ["93.184.215.14"]

    def getaddrinfo(host, port, *args, **kwargs):
        if host == "rebind.test":
            return real(answers[0], port, *args, **kwargs)
        return real(host, port, *args, **kwargs)

    monkeypatch.setattr(targets.socket, "getaddrinfo", getaddrinfo)
    return answers


def test_a_name_that_resolves_to_the_loopback_at_delivery_time_is_refused(settings, rebinding_dns):
    owner = UserFactory()
    with Receiver() as receiver:
        response = token_client(owner).post("/api/webhooks/", {
            "url": f"http://rebind.test:{receiver.port}/hook", "events": ["bot.deactivated"]}, format="json")
        assert response.status_code == 201  # public when created
        rebinding_dns[0] = "127.0.0.1"
        delivery = emit_one(owner)
        assert webhook_delivery_attempt(delivery_id=delivery.id) == "pending"
    assert receiver.received == []
    attempt = WebhookAttempt.objects.get(delivery=delivery)
    assert attempt.status_code is None
    assert "refused" in attempt.error and "127.0.0.1" in attempt.error


def test_a_delivery_connects_to_the_address_it_checked_and_names_the_host(allow_private, rebinding_dns):
    owner = UserFactory()
    rebinding_dns[0] = "127.0.0.1"
    with Receiver() as receiver:
        webhook_create(owner=owner, url=f"http://rebind.test:{receiver.port}/hook?x=1", events=["bot.deactivated"])
        webhook_delivery_attempt(delivery_id=emit_one(owner).id)
    [got] = receiver.received
    assert got.headers["Host"] == f"rebind.test:{receiver.port}" and got.path == "/hook?x=1"


def test_a_loopback_target_allowed_at_creation_is_refused_once_the_setting_is_off(settings):
    settings.WEBHOOKS_ALLOW_PRIVATE = True
    owner = UserFactory()
    with Receiver() as receiver:
        webhook_create(owner=owner, url=f"http://localhost:{receiver.port}/hook", events=["bot.deactivated"])
        settings.WEBHOOKS_ALLOW_PRIVATE = False
        webhook_delivery_attempt(delivery_id=emit_one(owner).id)
    assert receiver.received == []
    assert "public addresses only" in WebhookAttempt.objects.get().error


def test_a_rolled_back_change_sends_nothing(allow_private, django_capture_on_commit_callbacks):
    owner = UserFactory()
    webhook_create(owner=owner, url="http://127.0.0.1:9/", events=["bot.deactivated"])
    with django_capture_on_commit_callbacks(execute=False) as published:
        with pytest.raises(RuntimeError), transaction.atomic():
            emit_one(owner)
            raise RuntimeError("the change fails")
    assert published == [] and not WebhookDelivery.objects.exists()


def test_the_sweep_sends_again_a_delivery_whose_message_or_worker_was_lost(
        allow_private, django_capture_on_commit_callbacks):
    owner = UserFactory()
    webhook_create(owner=owner, url="http://127.0.0.1:9/", events=["bot.deactivated"])
    delivery = emit_one(owner)
    assert webhook_deliveries_sweep() == 0  # just sent
    long_ago = timezone.now() - timedelta(minutes=5)
    WebhookDelivery.objects.filter(pk=delivery.pk).update(next_attempt_at=long_ago, sent_at=long_ago)
    with django_capture_on_commit_callbacks(execute=False) as published:
        assert webhook_deliveries_sweep() == 1
    assert len(published) == 1
    assert webhook_deliveries_sweep() == 0  # once per interval, not at every run


# --- Which change emits which event, to whom ------------------------------------------------------------


def events_of(user) -> list[dict]:
    return [json.loads(body) for body in
            WebhookDelivery.objects.filter(webhook__owner=user).order_by("id").values_list("body", flat=True)]


@pytest.fixture
def subscribed(allow_private):
    """Two users, each with a webhook to every event."""
    users = [UserFactory(), UserFactory()]
    for user in users:
        webhook_create(owner=user, url="http://127.0.0.1:9/", events=["bot.validated", "comparison.finished",
                                                                     "tournament.finished", "bot.deactivated"])
    return users


def test_deactivating_a_bot_tells_its_owner_once(subscribed, bot_factory):
    owner, other = subscribed
    bot = bot_factory(owner=owner)
    client = token_client(owner)
    assert client.post(f"/api/bots/{bot.id}/deactivate/").status_code == 200
    assert client.post(f"/api/bots/{bot.id}/deactivate/").status_code == 200
    client.post(f"/api/bots/{bot.id}/reactivate/")
    [event] = events_of(owner)
    assert event["event"] == "bot.deactivated"
    assert event["data"] == {"bot": {"id": bot.id, "name": bot.name, "game": "kingdomino"}, "active": False}
    assert events_of(other) == []


def test_a_decided_upload_tells_its_owner_accepted_or_rejected_with_the_message(subscribed):
    owner, other = subscribed
    client = token_client(owner)
    assert upload(client, name="good").status_code == 202
    assert upload(client, name="bad", code=b"def act(observation, legal_actions):\n    return None\n").status_code == 202
    assert check_pending_uploads() == ["accepted", "rejected"]
    events = events_of(owner)
    assert [e["event"] for e in events] == ["bot.validated", "bot.validated"]
    good, bad = (e["data"] for e in events)
    versions = {v.bot.name: v for v in BotVersion.objects.select_related("bot")}
    assert good == {"bot": {"id": versions["good"].bot_id, "name": "good", "game": "kingdomino"}, "version": 1,
                    "status": "accepted", "message": versions["good"].validation_message}
    assert bad["status"] == "rejected" and bad["message"] == versions["bad"].validation_message and bad["message"]
    assert events_of(other) == []


def test_a_finished_tournament_tells_its_creator(subscribed):
    creator, other = subscribed
    tournament = TournamentFactory(created_by=creator)
    with transaction.atomic():
        assert tournament_finish_if_done(tournament_id=tournament.id)
    [event] = events_of(creator)
    assert event["event"] == "tournament.finished"
    assert event["data"]["tournament"] == tournament.id and event["data"]["status"] == "finished"
    assert event["data"]["standings_url"] == f"/api/tournaments/{tournament.id}/standings/"
    assert events_of(other) == []


def test_a_user_hears_only_the_events_subscribed_to(allow_private, bot_factory):
    owner = UserFactory()
    webhook_create(owner=owner, url="http://127.0.0.1:9/", events=["bot.validated"])
    bot = bot_factory(owner=owner)
    token_client(owner).post(f"/api/bots/{bot.id}/deactivate/")
    assert not Bot.objects.get(pk=bot.pk).active and events_of(owner) == []
    assert Webhook.objects.count() == 1


def test_two_workers_attempting_one_delivery_at_once_post_it_once(allow_private):
    owner = UserFactory()
    with Receiver() as receiver:
        webhook_create(owner=owner, url=receiver.url, events=["bot.deactivated"])
        delivery = emit_one(owner)
        statuses = [webhook_delivery_attempt(delivery_id=delivery.id) for _ in range(2)]
    assert statuses == ["delivered", "skipped"] and len(receiver.received) == 1




def test_the_secret_survives_a_key_rotation_through_the_fallbacks_and_fails_closed_without(allow_private, settings):
    owner = UserFactory()
    with Receiver() as receiver:
        webhook, secret = webhook_create(owner=owner, url=receiver.url, events=["bot.deactivated"])
        old_key = settings.SECRET_KEY
        settings.SECRET_KEY, settings.SECRET_KEY_FALLBACKS = "a-new-key-" + "x" * 40, [old_key]
        assert webhook_delivery_attempt(delivery_id=emit_one(owner).id) == "delivered"
        settings.SECRET_KEY_FALLBACKS = []
        assert webhook_delivery_attempt(delivery_id=emit_one(owner).id) == "pending"
    assert len(receiver.received) == 1 and receiver.received[0].signed_by(secret)
    assert WebhookAttempt.objects.latest("id").error.startswith("not sent: the webhook's secret cannot be opened")


@pytest.mark.django_db(transaction=True)
def test_a_webhook_deleted_while_its_delivery_is_posted_ends_the_attempt_quietly(allow_private, settings, request):
    from django.db import connection

    # Committed for real, the delivery's message is published: to a queue of this test's own.
    settings.WEBHOOKS_QUEUE = f"test-{uuid.uuid4().hex[:10]}.webhooks"
    request.addfinalizer(lambda: broker_queue_purge(settings.WEBHOOKS_QUEUE))
    owner = UserFactory()

    def delete_the_webhook(_received):
        Webhook.objects.filter(owner=owner).delete()  # the receiver's thread: another connection, committed
        connection.close()

    with Receiver(on_post=delete_the_webhook) as receiver:
        webhook_create(owner=owner, url=receiver.url, events=["bot.deactivated"])
        delivery = emit_one(owner)
        assert webhook_delivery_attempt(delivery_id=delivery.id) == "missing"
    assert len(receiver.received) == 1
    assert not WebhookDelivery.objects.exists() and not WebhookAttempt.objects.exists()


@pytest.mark.django_db(transaction=True)
def test_a_delivery_is_claimed_while_another_transaction_writes_a_delivery_of_its_webhook(allow_private, settings,
                                                                                          request):
    """Writing a delivery takes a key share lock on its webhook's row (the foreign key's check, when its
    transaction commits): the claim locks the delivery's row only, so an event being emitted for the same
    webhook does not make it skip one that is due (and leave it to the sweep)."""
    import threading

    from django.db import connection

    settings.WEBHOOKS_QUEUE = f"test-{uuid.uuid4().hex[:10]}.webhooks"
    request.addfinalizer(lambda: broker_queue_purge(settings.WEBHOOKS_QUEUE))
    owner = UserFactory()
    writing, done = threading.Event(), threading.Event()

    def emit_and_hold() -> None:
        with transaction.atomic():
            # The check at once rather than at commit: its lock then lasts until the test lets go.
            connection.cursor().execute("SET CONSTRAINTS ALL IMMEDIATE")
            emit_one(owner)
            writing.set()
            done.wait(10)
        connection.close()

    with Receiver() as receiver:
        webhook_create(owner=owner, url=receiver.url, events=["bot.deactivated"])
        delivery = emit_one(owner)
        other = threading.Thread(target=emit_and_hold)
        other.start()
        try:
            assert writing.wait(10)
            assert webhook_delivery_attempt(delivery_id=delivery.id) == "delivered"
        finally:
            done.set()
            other.join(10)
    assert len(receiver.received) == 1


def test_a_webhook_keeps_its_newest_deliveries_only(allow_private, monkeypatch):
    from ladder.services.webhooks import deliveries

    monkeypatch.setattr(deliveries, "DELIVERIES_KEPT", 3)
    owner = UserFactory()
    webhook, _ = webhook_create(owner=owner, url="http://127.0.0.1:9/", events=["bot.deactivated"])
    emitted = [emit_one(owner).id for _ in range(5)]
    assert sorted(webhook.deliveries.values_list("id", flat=True)) == emitted[-3:]


def self_signed_tls(tmp_path, names_seen: list[str]):
    """A server SSLContext with a self-signed certificate for ``rebind.test``, which records the server
    name (SNI) each client asks for."""
    import datetime
    import ssl

    from cryptography import x509
    from cryptography.hazmat.primitives import hashes, serialization
    from cryptography.hazmat.primitives.asymmetric import ec
    from cryptography.x509.oid import NameOID

    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "rebind.test")])
    now = datetime.datetime.now(datetime.UTC)
    cert = (x509.CertificateBuilder().subject_name(name).issuer_name(name).public_key(key.public_key())
            .serial_number(x509.random_serial_number()).not_valid_before(now - datetime.timedelta(days=1))
            .not_valid_after(now + datetime.timedelta(days=1))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName("rebind.test")]), critical=False)
            .sign(key, hashes.SHA256()))
    (tmp_path / "cert.pem").write_bytes(cert.public_bytes(serialization.Encoding.PEM))
    (tmp_path / "key.pem").write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                                         serialization.PrivateFormat.PKCS8,
                                                         serialization.NoEncryption()))
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    context.load_cert_chain(tmp_path / "cert.pem", tmp_path / "key.pem")
    context.sni_callback = lambda sock, server_name, ctx: names_seen.append(server_name)
    return context


def test_an_https_delivery_names_the_host_in_tls_and_checks_its_certificate(allow_private, rebinding_dns, tmp_path):
    names_seen: list[str] = []
    rebinding_dns[0] = "127.0.0.1"
    owner = UserFactory()
    with Receiver(tls=self_signed_tls(tmp_path, names_seen)) as receiver:
        webhook_create(owner=owner, url=f"https://rebind.test:{receiver.port}/hook", events=["bot.deactivated"])
        assert webhook_delivery_attempt(delivery_id=emit_one(owner).id) == "pending"
    # Connected to the checked address, the TLS server name is the URL's host, and a certificate no
    # authority signed is refused before anything is sent.
    assert names_seen == ["rebind.test"] and receiver.received == []
    error = WebhookAttempt.objects.get().error
    assert error.startswith("TLS failed") and "CERTIFICATE_VERIFY_FAILED" in error


def test_an_https_delivery_to_a_trusted_certificate_is_posted(allow_private, rebinding_dns, tmp_path, monkeypatch):
    names_seen: list[str] = []
    rebinding_dns[0] = "127.0.0.1"
    owner = UserFactory()
    tls = self_signed_tls(tmp_path, names_seen)
    monkeypatch.setenv("SSL_CERT_FILE", str(tmp_path / "cert.pem"))  # the one authority the client trusts
    with Receiver(tls=tls) as receiver:
        _, secret = webhook_create(owner=owner, url=f"https://rebind.test:{receiver.port}/hook",
                                   events=["bot.deactivated"])
        assert webhook_delivery_attempt(delivery_id=emit_one(owner).id) == "delivered"
    [got] = receiver.received
    assert names_seen == ["rebind.test"] and got.headers["Host"] == f"rebind.test:{receiver.port}"
    assert got.signed_by(secret)
