"""The API's request body parsers: every body anyone sends is read with a bounded size, and JSON with a
bounded nesting depth, so that no body, however deep or large, answers anything but a 400 that says what
is wrong (``REST_FRAMEWORK["DEFAULT_PARSER_CLASSES"]`` names these three, and the upload routes name the
two form parsers).

* JSON goes through ``bots.untrusted.parse_json``, the same orjson parse with a depth cap as the bot
  protocol's boundary: no ``RecursionError`` (the standard library's parser recurses once per level), no
  NaN or infinity, no lone surrogate escape (PostgreSQL stores none), at most ``API_JSON_MAX_BYTES``
  bytes and ``MAX_DEPTH`` levels. An integer beyond 64 bits is read as a float (orjson's reading), which
  every integer field of the API then refuses ("a valid integer is required").
* Forms (``application/x-www-form-urlencoded``) are bounded by Django's ``DATA_UPLOAD_MAX_MEMORY_SIZE``
  and ``DATA_UPLOAD_MAX_NUMBER_FIELDS``; multipart bodies by those for their fields and by
  ``BOTS_MAX_UPLOAD_BYTES`` more for the one file an upload carries. A declared ``Content-Length`` past
  the cap is refused before a byte is read.

No field of the API takes JSON inside a form field (the serializers' input ``JSONField`` would parse
it with the standard library); a form's nested values are ``name.key`` fields, bounded by their count.
Django's own refusals (``RequestDataTooBig``, ``TooManyFieldsSent``, ``TooManyFilesSent``), which it
raises while DRF reads a body, are answered in the same shape by :func:`refusal_of_django_limit`
(``ladder.api.errors`` calls it).
"""

from __future__ import annotations

from django.conf import settings
from django.core.exceptions import RequestDataTooBig, TooManyFieldsSent, TooManyFilesSent
from django.http import QueryDict
from rest_framework import parsers
from rest_framework.exceptions import ParseError

from bots.untrusted import MAX_DEPTH, UntrustedOutput, parse_json

__all__ = ["MAX_DEPTH", "FormParser", "JSONParser", "MultiPartParser", "json_body_max_bytes", "refusal_of_django_limit"]


def json_body_max_bytes() -> int:
    """The largest JSON body the API reads (``API_JSON_MAX_BYTES``)."""
    return settings.API_JSON_MAX_BYTES


def _too_large(limit: int, what: str) -> ParseError:
    return ParseError(f"the request body is larger than {limit} bytes, the most {what} may have: send less")


def _declared_length(parser_context: dict | None) -> int:
    request = (parser_context or {}).get("request")
    meta = getattr(request, "META", {})
    try:
        return int(meta.get("CONTENT_LENGTH") or 0)
    except (TypeError, ValueError):
        return 0


def _read_bounded(stream, limit: int, parser_context: dict | None, what: str) -> bytes:
    """At most ``limit`` bytes of ``stream``; ParseError past it (from the declared length when there is
    one, so that nothing is read then)."""
    if _declared_length(parser_context) > limit:
        raise _too_large(limit, what)
    data = stream.read(limit + 1) if stream is not None else b""
    if len(data) > limit:
        raise _too_large(limit, what)
    return data


def _encoding(parser_context: dict | None) -> str:
    """The charset the body is declared in; only text encodings (a bytes-to-bytes codec such as bz2 would
    expand a small body without bound)."""
    encoding = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
    try:
        "".encode(encoding)
    except (LookupError, UnicodeError):
        raise ParseError(f"unsupported charset {str(encoding)[:40]!r} in the Content-Type header: send "
                         "UTF-8") from None
    return encoding


class JSONParser(parsers.JSONParser):
    """``application/json``: at most ``API_JSON_MAX_BYTES`` bytes and :data:`MAX_DEPTH` levels, strict
    JSON; anything else is a ParseError (400) that says which."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = json_body_max_bytes()
        data = _read_bounded(stream, limit, parser_context, "a JSON body")
        encoding = _encoding(parser_context)
        if encoding.lower().replace("_", "-") not in ("utf-8", "utf8"):
            try:
                data = data.decode(encoding)
            except UnicodeDecodeError:
                raise ParseError(f"the request body is not valid {encoding}: send UTF-8 JSON") from None
        try:
            return parse_json(data, max_depth=MAX_DEPTH, what="the request body")
        except UntrustedOutput as refusal:
            raise ParseError(f"{refusal.reason}; send a JSON object as the route's schema describes "
                             "(GET /api/docs/)") from None


class FormParser(parsers.FormParser):
    """``application/x-www-form-urlencoded``, at most ``DATA_UPLOAD_MAX_MEMORY_SIZE`` bytes (Django's
    ``QueryDict`` bounds the number of fields)."""

    def parse(self, stream, media_type=None, parser_context=None):
        data = _read_bounded(stream, settings.DATA_UPLOAD_MAX_MEMORY_SIZE, parser_context, "a form")
        return QueryDict(data, encoding=_encoding(parser_context))


class MultiPartParser(parsers.MultiPartParser):
    """``multipart/form-data``: fields as Django bounds them, and the whole body at most
    ``DATA_UPLOAD_MAX_MEMORY_SIZE`` (the fields) plus ``BOTS_MAX_UPLOAD_BYTES`` (the file of an upload),
    refused from its declared length."""

    def parse(self, stream, media_type=None, parser_context=None):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE + settings.BOTS_MAX_UPLOAD_BYTES
        if _declared_length(parser_context) > limit:
            raise _too_large(limit, "a multipart body")
        _encoding(parser_context)
        return super().parse(stream, media_type, parser_context)


def refusal_of_django_limit(exc: Exception) -> ParseError | None:
    """The 400 for one of Django's request body limits that it raised while the body was read, or None
    for any other exception."""
    if isinstance(exc, RequestDataTooBig):
        return _too_large(settings.DATA_UPLOAD_MAX_MEMORY_SIZE, "a request")
    if isinstance(exc, TooManyFilesSent):
        return ParseError(f"the request has more than {settings.DATA_UPLOAD_MAX_NUMBER_FILES} files: an upload "
                          "sends one, named 'code'")
    if isinstance(exc, TooManyFieldsSent):
        return ParseError(f"the request has more than {settings.DATA_UPLOAD_MAX_NUMBER_FIELDS} fields: send only "
                          "the fields the route's schema describes (GET /api/docs/)")
    return None
