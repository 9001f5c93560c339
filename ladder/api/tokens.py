"""API tokens: list an account's tokens, make another, revoke one (or the one in use), rotate one.

A key is shown once, in the answer that makes or rotates it; lists show its first characters
(``prefix``). Revoking or rotating refuses the old key at once (401), as does expiry.
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from ladder.api.errors import error_responses
from ladder.models import ApiToken
from ladder.services.accounts.tokens import (
    MAX_EXPIRY_DAYS,
    token_create,
    token_revoke,
    token_rotate,
    tokens_of,
)

_KEY = "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"
_TOKEN_EXAMPLE = {"id": 3, "name": "laptop", "prefix": "9944b091", "created_at": "2026-05-01T12:00:00Z",
                  "expires_at": "2026-07-30T12:00:00Z", "current": True}


class TokenSerializer(serializers.Serializer):
    """A token as lists show it: never its key."""

    class Meta:
        ref_name = "ApiToken"

    id = serializers.IntegerField()
    name = serializers.CharField()
    prefix = serializers.CharField(help_text="The key's first characters, to tell tokens apart.")
    created_at = serializers.DateTimeField(help_text="When it was made or last rotated.")
    expires_at = serializers.DateTimeField(allow_null=True, help_text="Null: it never expires.")
    current = serializers.SerializerMethodField(help_text="Whether this request is authenticated with it.")

    def get_current(self, token: ApiToken) -> bool:
        auth = self.context.get("auth")
        return isinstance(auth, ApiToken) and auth.pk == token.pk


class NewTokenSerializer(TokenSerializer):
    class Meta:
        ref_name = "NewApiToken"

    token = serializers.CharField(help_text="The key: send it as `Authorization: Token <key>`. Shown this once; "
                                            "the server keeps only its digest.")


class TokenOptionsSerializer(serializers.Serializer):
    class Meta:
        ref_name = "ApiTokenOptions"

    name = serializers.CharField(max_length=100, required=False, allow_blank=True,
                                 help_text="What the token is for (a script, a machine).")
    expires_in_days = serializers.IntegerField(required=False, allow_null=True, min_value=1,
                                               max_value=MAX_EXPIRY_DAYS,
                                               help_text="Days until it stops working; left out: never.")


def new_token_body(token: ApiToken, key: str, request) -> dict:
    """The answer that makes or rotates ``token``: the token as lists show it, plus its ``key`` once."""
    return {**TokenSerializer(token, context={"auth": request.auth}).data, "token": key}


class AuthTokenListApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="auth_tokens_list",
        summary="Your API tokens (never their keys)",
        responses={200: TokenSerializer(many=True), **error_responses(401)},
        examples=[OpenApiExample("tokens", value=[_TOKEN_EXAMPLE], response_only=True, status_codes=["200"])],
    )
    def get(self, request):
        tokens = tokens_of(user=request.user)
        return Response(TokenSerializer(tokens, many=True, context={"auth": request.auth}).data)

    @extend_schema(
        operation_id="auth_tokens_create",
        summary="Make another API token for your account",
        description=f"For another script or machine, so that each can be revoked alone. Optional `expires_in_days` "
                    f"(1 to {MAX_EXPIRY_DAYS}); the key is in this answer only. An account holds at most "
                    "API_TOKENS_PER_USER tokens.",
        request=TokenOptionsSerializer,
        responses={201: NewTokenSerializer, **error_responses(400, 401)},
        examples=[OpenApiExample("options", value={"name": "laptop", "expires_in_days": 90}, request_only=True),
                  OpenApiExample("made", value={**_TOKEN_EXAMPLE, "current": False, "token": _KEY},
                                 response_only=True, status_codes=["201"])],
    )
    def post(self, request):
        data = TokenOptionsSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token, key = token_create(user=request.user, name=data.validated_data.get("name", ""),
                                  expires_in_days=data.validated_data.get("expires_in_days"))
        return Response(new_token_body(token, key, request), status=status.HTTP_201_CREATED)


class AuthTokenDetailApi(APIView):
    permission_classes = (IsAuthenticated,)

    @extend_schema(
        operation_id="auth_tokens_destroy",
        summary="Revoke one of your API tokens",
        description="Its key is refused (401) from now on. Another account's token id answers 404.",
        responses={204: None, **error_responses(401, 404)},
    )
    def delete(self, request, token_id: int):
        token_revoke(user=request.user, token_id=token_id)
        return Response(status=status.HTTP_204_NO_CONTENT)


class AuthTokenRotateApi(APIView):
    permission_classes = (IsAuthenticated,)

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "ApiTokenRotation"

        expires_in_days = serializers.IntegerField(
            required=False, allow_null=True, min_value=1, max_value=MAX_EXPIRY_DAYS,
            help_text="Days until the new key stops working; left out: the lifetime the token had (never, if "
                      "it never expired).")

    @extend_schema(
        operation_id="auth_tokens_rotate",
        summary="Give one of your API tokens a new key; the old key stops working",
        description="The token keeps its id and name. The new key is in this answer only.",
        request=InputSerializer,
        responses={200: NewTokenSerializer, **error_responses(400, 401, 404)},
        examples=[OpenApiExample("a new lifetime", value={"expires_in_days": 90}, request_only=True),
                  OpenApiExample("rotated", value={**_TOKEN_EXAMPLE, "token": _KEY}, response_only=True,
                                 status_codes=["200"])],
    )
    def post(self, request, token_id: int):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token, key = token_rotate(user=request.user, token_id=token_id,
                                  expires_in_days=data.validated_data.get("expires_in_days"))
        return Response(new_token_body(token, key, request))
