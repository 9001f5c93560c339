"""Webhooks: create one (its secret shown once), list, read and delete your own, and read its attempts.

Every lookup goes through ``ladder.services.webhooks`` scoped to the requesting user: another user's
webhook answers 404 like one that does not exist. Nothing here sends anything: deliveries are the
workers' (docs/webhooks.md).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.generics import ListAPIView
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from ladder.api.errors import error_responses
from ladder.services.webhooks.subscriptions import (
    EVENTS,
    webhook_attempts,
    webhook_create,
    webhook_delete,
    webhook_get,
    webhooks_of,
)
from ladder.services.webhooks.targets import URL_MAX_LENGTH

_EVENTS_HELP = f"Events to receive, among: {', '.join(EVENTS)}."


class WebhookSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    url = serializers.CharField()
    events = serializers.ListField(child=serializers.ChoiceField(choices=EVENTS), help_text=_EVENTS_HELP)
    created_at = serializers.DateTimeField()


class WebhookCreatedSerializer(WebhookSerializer):
    secret = serializers.CharField(help_text="Signs every delivery (X-Ladder-Signature); shown only in this "
                                             "answer, never again.")


class WebhookAttemptSerializer(serializers.Serializer):
    delivery = serializers.IntegerField(source="delivery_id", help_text="The delivery this attempt is of.")
    event = serializers.CharField(source="delivery.event")
    event_id = serializers.UUIDField(source="delivery.event_id", help_text="The body's id: the same at every "
                                                                          "attempt of a delivery.")
    delivery_status = serializers.ChoiceField(source="delivery.status", choices=["pending", "delivered", "failed"])
    attempt = serializers.IntegerField(source="number", help_text="1 for the first attempt, 2 for its retry...")
    time = serializers.DateTimeField(source="started_at")
    status_code = serializers.IntegerField(allow_null=True, help_text="The receiver's answer; null when none came.")
    error = serializers.CharField(help_text="What went wrong; empty for a 2xx answer.")
    duration_ms = serializers.IntegerField()
    response_excerpt = serializers.CharField(help_text="The first bytes of the answer's body, escaped.")


_WEBHOOK_EXAMPLE = {"id": 3, "url": "https://ci.example.org/ladder-hook",
                    "events": ["bot.validated", "comparison.finished"], "created_at": "2026-05-01T12:00:00Z"}
_ATTEMPT_EXAMPLE = {"delivery": 12, "event": "comparison.finished", "event_id": "1c9f0e4e-5d4b-4f57-a3c5-2b3f0d0d7e21",
                    "delivery_status": "delivered", "attempt": 2, "time": "2026-05-01T12:02:21Z",
                    "status_code": 200, "error": "", "duration_ms": 41, "response_excerpt": "ok"}


class WebhookListCreateApi(ListAPIView):
    serializer_class = WebhookSerializer
    filter_backends = ()
    permission_classes = (IsAuthenticated,)

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "WebhookCreate"

        url = serializers.CharField(max_length=URL_MAX_LENGTH, trim_whitespace=False,
                                    help_text="http:// or https://, no user name or password, to a public address.")
        events = serializers.ListField(child=serializers.CharField(max_length=40), max_length=len(EVENTS) * 2,
                                       allow_empty=False, help_text=_EVENTS_HELP)

    def get_queryset(self):
        return webhooks_of(self.request.user).order_by("id")

    @extend_schema(
        operation_id="webhooks_list",
        summary="Your webhooks",
        description="404 for a page past the last.",
        responses={200: WebhookSerializer(many=True), **error_responses(401, 404)},
        examples=[OpenApiExample("webhooks", value={"count": 1, "next": None, "previous": None,
                                                    "results": [_WEBHOOK_EXAMPLE]},
                                 response_only=True, status_codes=["200"])],
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="webhooks_create",
        summary="Have events of your bots, comparisons and tournaments POSTed to a URL",
        description="Answers with the webhook's secret, once: every delivery carries X-Ladder-Signature: "
                    "sha256=<hex HMAC-SHA256 of the raw body under the secret>. Refused (400, naming the "
                    "input): a scheme other than http/https, a user name or password in the URL, a URL "
                    "too long, a host that does not resolve or resolves to a private, loopback, link-local "
                    "or otherwise non-public address (anything but global unicast, e.g. 6to4, Teredo, NAT64 "
                    "and site-local IPv6 too, unless the server allows private targets), unknown events, and "
                    "past the server's number of webhooks per user. A URL with characters not ASCII is stored "
                    "(and answered) as a URI, percent-encoded. Creating and deleting webhooks are throttled "
                    "per user (scope `webhooks`): 429 past it.",
        request=InputSerializer,
        responses={201: WebhookCreatedSerializer, **error_responses(400, 401, 429)},
        examples=[
            OpenApiExample("create", value={"url": _WEBHOOK_EXAMPLE["url"], "events": _WEBHOOK_EXAMPLE["events"]},
                           request_only=True),
            OpenApiExample("created", value={**_WEBHOOK_EXAMPLE, "secret": "whsec_..."}, response_only=True,
                           status_codes=["201"]),
        ],
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        webhook, secret = webhook_create(owner=request.user, url=data.validated_data["url"],
                                         events=data.validated_data["events"])
        body = {**WebhookSerializer(webhook).data, "secret": secret}
        return Response(WebhookCreatedSerializer(body).data, status=status.HTTP_201_CREATED)


class WebhookDetailApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="webhooks_retrieve",
        summary="One of your webhooks (without its secret)",
        responses={200: WebhookSerializer, **error_responses(401, 404)},
        examples=[OpenApiExample("webhook", value=_WEBHOOK_EXAMPLE, response_only=True, status_codes=["200"])],
    )
    def get(self, request, webhook_id: int):
        return Response(WebhookSerializer(webhook_get(user=request.user, webhook_id=webhook_id)).data)

    @extend_schema(
        operation_id="webhooks_destroy",
        summary="Delete one of your webhooks; its pending deliveries are never sent",
        description="Throttled per user with creations (scope `webhooks`): 429 past it.",
        responses={204: None, **error_responses(401, 404, 429)},
    )
    def delete(self, request, webhook_id: int):
        webhook_delete(user=request.user, webhook_id=webhook_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class WebhookDeliveryListApi(ListAPIView):
    serializer_class = WebhookAttemptSerializer
    filter_backends = ()
    permission_classes = (IsAuthenticated,)

    def get_queryset(self):
        return webhook_attempts(webhook=webhook_get(user=self.request.user, webhook_id=self.kwargs["webhook_id"]))

    @extend_schema(
        operation_id="webhooks_deliveries",
        summary="Every attempt at your webhook's deliveries, newest first",
        description="One row per attempt: a delivery retried after a failure shows each of its attempts. 404 "
                    "for another user's webhook, and for a page past the last.",
        responses={200: WebhookAttemptSerializer(many=True), **error_responses(401, 404)},
        examples=[OpenApiExample("attempts", value={"count": 1, "next": None, "previous": None,
                                                    "results": [_ATTEMPT_EXAMPLE]},
                                 response_only=True, status_codes=["200"])],
    )
    def get(self, request, *args, **kwargs):
        return super().get(request, *args, **kwargs)
