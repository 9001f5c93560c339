"""The Redoc page (``ladder.api.docs``): the stock page of drf-spectacular without its web fonts, titled as
the API, pointing at the API's own schema and at scripts served by this site; the page itself is not an
operation of the schema."""

from __future__ import annotations

import re

import pytest

pytestmark = pytest.mark.django_db


def test_the_redoc_page_is_titled_and_points_at_the_schema(api_client, settings):
    page = api_client.get("/api/redoc/")
    assert page.status_code == 200 and page["Content-Type"].startswith("text/html")
    html = page.content.decode()
    assert f"<title>{settings.SPECTACULAR_SETTINGS['TITLE']}</title>" in html
    assert '<meta charset="utf-8">' in html and 'name="viewport"' in html
    assert "/api/schema/" in html


def test_the_redoc_page_loads_no_fonts_and_nothing_from_elsewhere(api_client):
    html = api_client.get("/api/redoc/").content.decode()
    assert "fonts.googleapis" not in html and "fonts.gstatic" not in html
    scripts = re.findall(r'<script[^>]*src="([^"]+)"', html)
    assert scripts and all(src.startswith("/") for src in scripts), scripts
    assert api_client.get(scripts[0]).status_code == 200


def test_the_redoc_page_is_not_in_the_schema(api_client):
    schema = api_client.get("/api/schema/", HTTP_ACCEPT="application/json").json()
    assert schema["paths"] and not any("redoc" in path for path in schema["paths"])
