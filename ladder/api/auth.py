"""Accounts: registration, API tokens for scripts, and who the current credentials belong to.

Scripts send ``Authorization: Token <key>``; the site's pages use the session cookie, for which every
unsafe request must carry the CSRF token (DRF's SessionAuthentication enforces it).
"""

from __future__ import annotations

from drf_spectacular.utils import OpenApiExample, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import AllowAny, IsAuthenticated
from rest_framework.response import Response
from rest_framework.views import APIView

from ladder.api.errors import error_responses
from ladder.api.throttles import LoginThrottle, RegistrationThrottle
from ladder.api.tokens import NewTokenSerializer, TokenOptionsSerializer, new_token_body
from ladder.core.errors import ServiceError
from ladder.core.quotas import unrated_matches_quota, write_rate_usage
from ladder.core.worker_time import worker_seconds_quota
from ladder.models import ApiToken
from ladder.services.accounts.tokens import MAX_EXPIRY_DAYS, token_for_credentials, token_revoke
from ladder.services.accounts.users import USERNAME_RULE, user_register, validate_username

_CREDENTIALS = {"username": "ada", "password": "a-long-passphrase"}
_TOKEN = "9944b09199c62bcf9418ad846dd0e4bbdfc6ee4b"


class AuthRegisterApi(APIView):
    permission_classes = (AllowAny,)
    throttle_classes = (RegistrationThrottle,)

    class InputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "Registration"

        username = serializers.CharField(max_length=150, validators=[validate_username],
                                         help_text=USERNAME_RULE[:1].upper() + USERNAME_RULE[1:] + ".")
        password = serializers.CharField(max_length=512, write_only=True, trim_whitespace=False)

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "RegistrationResult"

        id = serializers.IntegerField()
        username = serializers.CharField()
        token = serializers.CharField()

    @extend_schema(
        operation_id="auth_register",
        summary="Create an account and its API token",
        description="The password must pass the server's password validators (length, not too close to the "
                    "username); a refusal lists what to change. Throttled per client address.",
        request=InputSerializer,
        responses={201: OutputSerializer, **error_responses(400, 429)},
        examples=[
            OpenApiExample("register", value=_CREDENTIALS, request_only=True),
            OpenApiExample("created", value={"id": 1, "username": "ada", "token": _TOKEN}, response_only=True,
                           status_codes=["201"]),
        ],
        auth=[],
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        user, token = user_register(**data.validated_data)
        body = {"id": user.id, "username": user.username, "token": token}
        return Response(self.OutputSerializer(body).data, status=status.HTTP_201_CREATED)


class AuthTokenApi(APIView):
    throttle_classes = (LoginThrottle,)

    class InputSerializer(TokenOptionsSerializer):
        class Meta:
            ref_name = "TokenCredentials"

        username = serializers.CharField(max_length=150)
        password = serializers.CharField(max_length=512, write_only=True, trim_whitespace=False)

    def get_permissions(self):
        # Anyone may exchange a password for a token; only a token's holder may revoke it.
        return [AllowAny()] if self.request.method == "POST" else [IsAuthenticated()]

    @extend_schema(
        operation_id="auth_token",
        summary="Make an API token from a username and password",
        description="Send it as `Authorization: Token <key>` on every request that changes something. Each call "
                    "makes a new token (list them with GET /api/auth/tokens/); the key is in this answer only. "
                    f"Optional `name` and `expires_in_days` (1 to {MAX_EXPIRY_DAYS}; left out: never expires). "
                    "Throttled per client address (scope `logins`, shared with the site's log-in page).",
        request=InputSerializer,
        responses={200: NewTokenSerializer, **error_responses(400, 429)},
        examples=[
            OpenApiExample("credentials", value=_CREDENTIALS, request_only=True),
            OpenApiExample("token", value={"id": 1, "name": "", "prefix": _TOKEN[:8],
                                           "created_at": "2026-05-01T12:00:00Z", "expires_at": None,
                                           "current": False, "token": _TOKEN},
                           response_only=True, status_codes=["200"]),
        ],
        auth=[],
    )
    def post(self, request):
        data = self.InputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        token, key = token_for_credentials(request=request, **data.validated_data)
        return Response(new_token_body(token, key, request))

    @extend_schema(
        operation_id="auth_token_revoke",
        summary="Revoke the API token this request is authenticated with",
        description="Log a script out: its key is refused (401) from now on. A request not authenticated with "
                    "a token (the site's session) is refused with 400.",
        request=None,
        responses={204: None, **error_responses(400, 401)},
    )
    def delete(self, request):
        if not isinstance(request.auth, ApiToken):
            raise ServiceError("this request is not authenticated with an API token: send "
                               "'Authorization: Token <key>' with the key to revoke")
        token_revoke(user=request.user, token_id=request.auth.pk)
        return Response(status=status.HTTP_204_NO_CONTENT)


class QuotaSerializer(serializers.Serializer):
    limit = serializers.IntegerField(help_text="How many per period.")
    period = serializers.CharField(help_text="hour or day: a rolling window of that length.")
    used = serializers.IntegerField(help_text="Counted in the window now.")
    left = serializers.IntegerField()
    frees_in_s = serializers.IntegerField(allow_null=True,
                                          help_text="Seconds until the oldest counted one leaves the window.")


class WorkerSecondsQuotaSerializer(QuotaSerializer):
    used = serializers.IntegerField(help_text="Worker seconds counted in the window now: what your played "
                                              "matches took, and what the others and your running comparisons "
                                              "reserve (rounded up).")
    reserved = serializers.IntegerField(help_text="Of used, the worst case held for matches still to be played "
                                                  "and by running comparisons; released as they are played.")


class QuotasSerializer(serializers.Serializer):
    unrated_matches = QuotaSerializer(help_text="Matches you may schedule in unrated tournaments "
                                                "(UNRATED_MATCHES_PER_DAY).")
    worker_seconds = WorkerSecondsQuotaSerializer(
        allow_null=True, help_text="Worker seconds your unrated tournaments and comparisons may take "
                                   "(WORKER_SECONDS_PER_DAY): each match reserves the worst case its limits allow "
                                   "when scheduled and counts what it took once played; null for staff, who "
                                   "are not held to it.")
    uploads = QuotaSerializer(allow_null=True, help_text="Uploads (new bots and new versions, through the API "
                                                         "or the site); null when unlimited.")


_QUOTAS_EXAMPLE = {
    "unrated_matches": {"limit": 5000, "period": "day", "used": 12, "left": 4988, "frees_in_s": 81234},
    "worker_seconds": {"limit": 172800, "period": "day", "used": 163, "left": 172637, "reserved": 160,
                       "frees_in_s": 81234},
    "uploads": {"limit": 60, "period": "hour", "used": 2, "left": 58, "frees_in_s": 3012},
}


class AuthMeApi(APIView):
    permission_classes = (IsAuthenticated,)

    class OutputSerializer(serializers.Serializer):
        class Meta:
            ref_name = "Me"

        id = serializers.IntegerField()
        username = serializers.CharField()
        is_staff = serializers.BooleanField()
        quotas = QuotasSerializer(help_text="Your limits, what you used of them and what is left. A request "
                                            "past one is refused with 429, Retry-After and the limit.")

    @extend_schema(
        operation_id="auth_me",
        summary="The account the request is authenticated as, and its quotas",
        description="A cheap way for a script to check its token, and how much it may still schedule and "
                    "upload.",
        responses={200: OutputSerializer, **error_responses(401)},
        examples=[OpenApiExample("me", value={"id": 1, "username": "ada", "is_staff": False,
                                              "quotas": _QUOTAS_EXAMPLE},
                                 response_only=True, status_codes=["200"])],
    )
    def get(self, request):
        user = request.user
        worker_seconds = worker_seconds_quota(user=user)
        uploads = write_rate_usage(user=user, kind="uploads")
        quotas = {"unrated_matches": unrated_matches_quota(user=user).to_json(),
                  "worker_seconds": worker_seconds.to_json() if worker_seconds else None,
                  "uploads": uploads.to_json() if uploads else None}
        body = {"id": user.id, "username": user.username, "is_staff": user.is_staff, "quotas": quotas}
        return Response(self.OutputSerializer(body).data)
