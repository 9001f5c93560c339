"""``ServiceError``, the exception services raise for a request a user can fix: what it carries (the
message, the input at fault, extra detail, the HTTP status) and its defaults."""

from __future__ import annotations

import pytest

from ladder.core.errors import ServiceError


def test_a_service_error_is_a_400_with_its_message_and_no_field_by_default():
    error = ServiceError("choose a name")
    assert (error.status, error.message, error.field, error.detail) == (400, "choose a name", None, "")
    assert str(error) == "choose a name"
    assert isinstance(error, Exception)


def test_a_service_error_carries_the_field_the_detail_and_the_status_it_is_given():
    error = ServiceError("only staff may do this", field="rated", detail="log tail", status=403)
    assert (error.status, error.message, error.field, error.detail) == (403, "only staff may do this", "rated",
                                                                        "log tail")


def test_the_options_are_keyword_only():
    with pytest.raises(TypeError):
        ServiceError("message", "field")  # type: ignore[misc]


def test_it_is_raised_and_caught_like_any_exception_with_its_attributes_intact():
    with pytest.raises(ServiceError) as caught:
        raise ServiceError("the sandbox is busy", status=503)
    assert caught.value.status == 503 and caught.value.message == "the sandbox is busy"
