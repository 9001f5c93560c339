"""The Redoc page without its web fonts: the stock template links Google Fonts, and these pages load
nothing from outside this site (the scripts come from drf-spectacular-sidecar)."""

from __future__ import annotations

from django.http import HttpResponse
from django.template import Context, Template
from drf_spectacular.utils import extend_schema
from drf_spectacular.views import SpectacularRedocView

_PAGE = Template(
    '{% extends "drf_spectacular/redoc.html" %}'
    "{% block head %}<title>{{ title }}</title><meta charset=\"utf-8\">"
    '<meta name="viewport" content="width=device-width, initial-scale=1">'
    "<style>body { margin: 0; padding: 0; }</style>{% endblock head %}"
)


class LocalRedocView(SpectacularRedocView):
    @extend_schema(exclude=True)
    def get(self, request, *args, **kwargs):
        context = Context({
            "title": self.title,
            "redoc_standalone": self._redoc_standalone(),
            "schema_url": self._get_schema_url(request),
            "settings": None,
        })
        return HttpResponse(_PAGE.render(context))
