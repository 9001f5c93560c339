"""Every API error in one JSON shape, with a message that says what to fix (never a 500 for bad input).

    {"detail": "<what went wrong and what to do>", "code": "<machine-readable>", "fields": {"<input>": ["..."]}}

``fields`` names each input at fault (empty when the request as a whole is refused). A failed smoke match
of an upload adds ``log_tail``, the end of the bot's log. Throttled requests (429) carry ``Retry-After``.
"""

from __future__ import annotations

from django.core.exceptions import PermissionDenied as DjangoPermissionDenied
from django.http import Http404, JsonResponse
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import OpenApiExample, OpenApiResponse
from rest_framework import exceptions, serializers
from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from ladder.api.parsers import refusal_of_django_limit
from ladder.core.errors import ServiceError
from ladder.core.quotas import QuotaExceeded

_SERVICE_CODES = {400: "invalid", 403: "permission_denied", 404: "not_found", 409: "conflict", 410: "gone",
                  429: "throttled", 503: "unavailable"}


def error_body(message: str, *, code: str, fields: dict[str, list[str]] | None = None) -> dict:
    return {"detail": message, "code": code, "fields": fields or {}}


def _flatten(detail, prefix: str = "") -> dict[str, list[str]]:
    """``{"bots": {0: ["A valid integer is required."]}}`` -> ``{"bots.0": ["A valid integer is required."]}``."""
    if isinstance(detail, dict):
        flat: dict[str, list[str]] = {}
        for key, value in detail.items():
            # A nested object refused as a whole ("expected a dictionary") is named by its own field.
            name = prefix if prefix and key == "non_field_errors" else f"{prefix}.{key}" if prefix else str(key)
            flat.update(_flatten(value, name))
        return flat
    if isinstance(detail, list) and any(isinstance(item, (dict, list)) for item in detail):
        flat = {}
        for index, value in enumerate(detail):
            flat.update(_flatten(value, f"{prefix}.{index}" if prefix else str(index)))
        return flat
    items = detail if isinstance(detail, list) else [detail]
    return {prefix or "non_field_errors": [str(item) for item in items]}


def _validation_body(exc: exceptions.ValidationError) -> dict:
    fields = _flatten(exc.detail)
    general = fields.pop("non_field_errors", [])
    parts = general + [f"{name}: {' '.join(messages)}" for name, messages in fields.items()]
    return error_body("fix the request: " + "; ".join(parts), code="invalid", fields=fields)


def exception_handler(exc, context):
    """DRF's exception handler, reshaped into the one error format of this module."""
    if isinstance(exc, ServiceError):
        body = error_body(exc.message, code=_SERVICE_CODES.get(exc.status, "error"),
                          fields={exc.field: [exc.message]} if exc.field else {})
        if exc.detail:
            body["log_tail"] = exc.detail
        headers = {"Retry-After": str(exc.retry_after_s)} if isinstance(exc, QuotaExceeded) else None
        return Response(body, status=exc.status, headers=headers)
    if (refusal := refusal_of_django_limit(exc)) is not None:
        exc = refusal
    elif isinstance(exc, Http404):
        exc = exceptions.NotFound("nothing found at this address: check the id in the URL")
    elif isinstance(exc, DjangoPermissionDenied):
        exc = exceptions.PermissionDenied()
    response = drf_exception_handler(exc, context)
    if response is None:
        return None
    if isinstance(exc, exceptions.ValidationError):
        response.data = _validation_body(exc)
    elif isinstance(exc, exceptions.NotAuthenticated):
        response.data = error_body(
            "log in first: send 'Authorization: Token <key>' (POST /api/auth/token/ gives the key)",
            code="not_authenticated",
        )
    else:
        detail = exc.detail if isinstance(exc, exceptions.APIException) else str(exc)
        code = exc.get_codes() if isinstance(exc, exceptions.APIException) else "error"
        response.data = error_body(str(detail), code=code if isinstance(code, str) else "error")
    return response


class ErrorSerializer(serializers.Serializer):
    """The body of every 4xx answer."""

    detail = serializers.CharField(help_text="What went wrong and what to do about it.")
    code = serializers.CharField(help_text="A stable machine-readable code, e.g. invalid, not_found, throttled.")
    fields = serializers.DictField(
        child=serializers.ListField(child=serializers.CharField()),
        help_text="Messages per input at fault (empty when the request as a whole is refused).",
    )
    log_tail = serializers.CharField(required=False, help_text="Uploads only: the end of the smoke match log.")


_ERROR_EXAMPLES = {
    400: ("invalid", "fix the request: name: This field is required.", {"name": ["This field is required."]}),
    401: ("not_authenticated",
          "log in first: send 'Authorization: Token <key>' (POST /api/auth/token/ gives the key)", {}),
    403: ("permission_denied", "You do not have permission to perform this action.", {}),
    404: ("not_found", "no bot with id 42", {}),
    409: ("conflict", "match 7 is queued; replays exist once it finished", {}),
    410: ("gone", "match 7 was played under version 1 of the kingdomino rules, and the server now plays version 2: "
                  "the rules changed since, so its moves cannot be replayed. Its actions and its result (scores, "
                  "places, outcomes) can still be read (GET /api/matches/7/ and the match's page).", {}),
    429: ("throttled", "too many uploads: at most 30 per hour; try again in 1200 seconds", {}),
    503: ("unavailable", "bots cannot be checked right now, try again later (sandbox unavailable)", {}),
}


def error_responses(*statuses: int) -> dict[int, OpenApiResponse]:
    """Schema entries for the given error statuses, each with an example body."""
    responses = {}
    for status in statuses:
        code, message, fields = _ERROR_EXAMPLES[status]
        responses[status] = OpenApiResponse(
            response=ErrorSerializer,
            description=message,
            examples=[OpenApiExample(code, value=error_body(message, code=code, fields=fields),
                                     response_only=True, status_codes=[str(status)])],
        )
    return responses


@csrf_exempt
def api_not_found(request, *args, **kwargs):
    """Unknown addresses under /api/ answer in the same JSON shape as every other error. CSRF-exempt
    like the API views, so that an unknown address is a 404 for every method rather than a CSRF page."""
    message = f"no API route {request.path!r}: GET /api/docs/ lists them"
    return JsonResponse(error_body(message, code="not_found"), status=404)
