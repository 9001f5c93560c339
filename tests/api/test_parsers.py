"""The API's body parsers (``ladder.api.parsers``), called directly on streams: JSON bounded in bytes and
depth and strict, forms and multipart bodies bounded by their declared or read length, charsets that are
text encodings only, and the 400s for Django's own body limits. No database."""

from __future__ import annotations

import io
from types import SimpleNamespace

import pytest
from django.core.exceptions import RequestDataTooBig, SuspiciousOperation, TooManyFieldsSent, TooManyFilesSent
from django.test import RequestFactory
from rest_framework.exceptions import ParseError

from ladder.api.parsers import (
    MAX_DEPTH,
    FormParser,
    JSONParser,
    MultiPartParser,
    json_body_max_bytes,
    refusal_of_django_limit,
)


def context(length: int | None = None, encoding: str | None = None) -> dict:
    request = SimpleNamespace(META={} if length is None else {"CONTENT_LENGTH": str(length)})
    return {"request": request} if encoding is None else {"request": request, "encoding": encoding}


def parse_json(body: bytes, **kwargs):
    return JSONParser().parse(io.BytesIO(body), "application/json", context(**kwargs))


def test_json_bodies_are_parsed():
    assert parse_json(b'{"name": "cup", "bots": [1, 2], "x": null}') == {"name": "cup", "bots": [1, 2], "x": None}


def test_the_json_cap_is_the_setting(settings):
    settings.API_JSON_MAX_BYTES = 20
    assert json_body_max_bytes() == 20
    assert parse_json(b'{"a": "' + b"x" * 11 + b'"}') == {"a": "x" * 11}
    with pytest.raises(ParseError, match="larger than 20 bytes, the most a JSON body may have"):
        parse_json(b'{"a": "' + b"x" * 12 + b'"}')


def test_a_declared_length_past_the_cap_is_refused_before_reading(settings):
    settings.API_JSON_MAX_BYTES = 100

    class Unreadable(io.BytesIO):
        def read(self, *args):
            raise AssertionError("the body was read")

    with pytest.raises(ParseError, match="larger than 100 bytes"):
        JSONParser().parse(Unreadable(b"{}"), "application/json", context(length=101))


def test_json_nested_past_max_depth_is_a_parse_error_not_a_recursion_error():
    assert parse_json(b"[" * MAX_DEPTH + b"]" * MAX_DEPTH) is not None
    deep = b"[" * (MAX_DEPTH + 1) + b"]" * (MAX_DEPTH + 1)
    with pytest.raises(ParseError, match=f"nested deeper than {MAX_DEPTH} levels"):
        parse_json(deep)
    with pytest.raises(ParseError, match="nested deeper"):
        parse_json(b"[" * 100_000)


@pytest.mark.parametrize(
    "body", [b'{"a": NaN}', b'{"a": Infinity}', b'{"a": "\\ud800"}', b"{'a': 1}", b'{"a": 1', b"\xff\xfe"],
)
def test_json_that_is_not_strict_is_refused_pointing_at_the_docs(body):
    with pytest.raises(ParseError, match=r"the request body is not JSON.*GET /api/docs/"):
        parse_json(body)


def test_an_integer_past_64_bits_is_read_as_a_float():
    assert isinstance(parse_json(b'{"n": 123456789012345678901234567890}')["n"], float)


def test_json_in_another_text_charset_is_decoded_first():
    assert parse_json('{"name": "café"}'.encode("latin-1"), encoding="latin-1") == {"name": "café"}
    with pytest.raises(ParseError, match="not valid ascii"):
        parse_json('{"name": "café"}'.encode(), encoding="ascii")


@pytest.mark.parametrize("encoding", ["bz2", "zlib_codec", "no-such-charset"])
def test_charsets_that_are_not_text_encodings_are_refused(encoding):
    with pytest.raises(ParseError, match="unsupported charset"):
        parse_json(b"{}", encoding=encoding)
    with pytest.raises(ParseError, match="unsupported charset"):
        FormParser().parse(io.BytesIO(b"a=1"), "application/x-www-form-urlencoded", context(encoding=encoding))


def test_forms_are_parsed_and_bounded_by_the_upload_setting(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 10
    form = FormParser().parse(io.BytesIO(b"a=1&b=xy"), "application/x-www-form-urlencoded", context())
    assert form["a"] == "1" and form["b"] == "xy"
    with pytest.raises(ParseError, match="larger than 10 bytes, the most a form may have"):
        FormParser().parse(io.BytesIO(b"a=1&b=xyz12"), "application/x-www-form-urlencoded", context())


def test_a_form_with_too_many_fields_raises_djangos_refusal(settings):
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 3
    with pytest.raises(TooManyFieldsSent):
        FormParser().parse(io.BytesIO(b"a=1&b=2&c=3&d=4"), "application/x-www-form-urlencoded", context())


def test_a_multipart_body_declared_past_fields_plus_one_upload_is_refused(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE, settings.BOTS_MAX_UPLOAD_BYTES = 100, 50
    with pytest.raises(ParseError, match="larger than 150 bytes, the most a multipart body may have"):
        MultiPartParser().parse(io.BytesIO(b""), "multipart/form-data; boundary=x", context(length=151))


def test_a_multipart_upload_within_the_bound_is_parsed(settings):
    request = RequestFactory().post("/", {"name": "bot", "code": io.BytesIO(b"print(1)")})
    parser_context = {"request": request}
    parsed = MultiPartParser().parse(io.BytesIO(request.body), request.META["CONTENT_TYPE"], parser_context)
    assert parsed.data["name"] == "bot"
    assert parsed.files["code"].read() == b"print(1)"


def test_djangos_body_limits_become_400s_naming_the_limit(settings):
    settings.DATA_UPLOAD_MAX_MEMORY_SIZE = 1234
    settings.DATA_UPLOAD_MAX_NUMBER_FILES = 7
    settings.DATA_UPLOAD_MAX_NUMBER_FIELDS = 99
    assert "larger than 1234 bytes" in str(refusal_of_django_limit(RequestDataTooBig()).detail)
    assert "more than 7 files" in str(refusal_of_django_limit(TooManyFilesSent()).detail)
    assert "more than 99 fields" in str(refusal_of_django_limit(TooManyFieldsSent()).detail)
    assert all(isinstance(refusal_of_django_limit(exc), ParseError)
               for exc in (RequestDataTooBig(), TooManyFilesSent(), TooManyFieldsSent()))


@pytest.mark.parametrize("exc", [ValueError("x"), SuspiciousOperation("x"), ParseError("x")])
def test_other_exceptions_are_not_body_limits(exc):
    assert refusal_of_django_limit(exc) is None
