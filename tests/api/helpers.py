"""Helpers shared by the API tests: authenticated clients, uploads through the API and their checks, the error
shape."""

from __future__ import annotations

from django.core.files.uploadedfile import SimpleUploadedFile
from rest_framework.test import APIClient

from tests.factories import FIRST_LEGAL_BOT, api_token_key


def token_client(user) -> APIClient:
    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {api_token_key(user)}")
    client.user = user
    return client


def upload(client, *, name="firstlegal", code=FIRST_LEGAL_BOT, game="kingdomino", filename="bot.py"):
    return client.post("/api/bots/", {"game": game, "name": name, "code": SimpleUploadedFile(filename, code)},
                       format="multipart")


def upload_version(client, bot_id, *, code=FIRST_LEGAL_BOT + b"# v2\n", filename="bot.py"):
    return client.post(f"/api/bots/{bot_id}/versions/", {"code": SimpleUploadedFile(filename, code)},
                       format="multipart")


def check_pending_uploads() -> list[str]:
    """Decide every pending version as a worker's ``validate_version`` task would (the same service, in
    this process's real sandbox); returns their statuses in version id order."""
    from ladder.models import BotVersion
    from ladder.services.uploads.validation import bot_version_validate

    pending = BotVersion.objects.filter(validation_status=BotVersion.Validation.PENDING).order_by("id")
    return [bot_version_validate(version_id=version_id) for version_id in pending.values_list("id", flat=True)]


def error_of(response) -> dict:
    """The error body, after checking it has the one shape every API error has."""
    body = response.json()
    assert set(body) >= {"detail", "code", "fields"}, body
    assert isinstance(body["detail"], str) and body["detail"]
    return body
