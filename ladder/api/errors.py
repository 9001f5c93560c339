"""Turning service refusals into 400s with a message that says what to fix (never a 500)."""

from __future__ import annotations

from rest_framework.response import Response
from rest_framework.views import exception_handler as drf_exception_handler

from ladder.services.errors import ServiceError


def exception_handler(exc, context):
    if isinstance(exc, ServiceError):
        body = {"detail": exc.message}
        if exc.field:
            body["field"] = exc.field
        if exc.detail:
            body["log_tail"] = exc.detail
        return Response(body, status=exc.status)
    return drf_exception_handler(exc, context)
