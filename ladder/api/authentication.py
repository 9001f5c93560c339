"""``Authorization: Token <key>`` for scripts, checked against the stored digests of ``ApiToken``
(``ladder.services.accounts.tokens``): a wrong, revoked, rotated or expired key is a 401 saying which."""

from __future__ import annotations

from drf_spectacular.extensions import OpenApiAuthenticationExtension
from drf_spectacular.plumbing import build_bearer_security_scheme_object
from rest_framework import exceptions
from rest_framework.authentication import BaseAuthentication, get_authorization_header

from ladder.services.accounts.tokens import TokenRefused, token_authenticate

KEYWORD = "Token"


class ApiTokenAuthentication(BaseAuthentication):
    """The request's user and ``ApiToken`` (``request.auth``) from its ``Authorization: Token <key>``
    header; None (no claim) without such a header."""

    def authenticate(self, request):
        parts = get_authorization_header(request).split()
        if not parts or parts[0].lower() != KEYWORD.lower().encode():
            return None
        if len(parts) != 2:
            raise exceptions.AuthenticationFailed("invalid token header: send 'Authorization: Token <key>', the key "
                                                  "without spaces")
        try:
            key = parts[1].decode("ascii")
        except UnicodeError:
            raise exceptions.AuthenticationFailed("invalid token header: a key is 40 hex characters") from None
        try:
            token = token_authenticate(key=key)
        except TokenRefused as refusal:
            raise exceptions.AuthenticationFailed(str(refusal)) from None
        return token.user, token

    def authenticate_header(self, request) -> str:
        # Naming a scheme makes a missing or refused credential a 401 rather than a 403.
        return KEYWORD


class ApiTokenScheme(OpenApiAuthenticationExtension):
    """The schema's ``tokenAuth`` security scheme, as DRF's TokenAuthentication was described."""

    target_class = "ladder.api.authentication.ApiTokenAuthentication"
    name = "tokenAuth"

    def get_security_definition(self, auto_schema):
        return build_bearer_security_scheme_object(header_name="Authorization", token_prefix=KEYWORD)
