"""Query-string filters of the list routes (django-filter). Invalid values answer 400 naming the filter."""

from __future__ import annotations

from datetime import UTC

import django_filters
from django import forms
from django.db.models import Exists, OuterRef
from django_filters.fields import IsoDateTimeField

from ladder.core.rated_play import RATED_MATCHES
from ladder.models import Bot, Match, Seat, Tournament

# Ids are 64-bit; bounding them turns a silly value into a 400 instead of a database error.
_MAX_ID = (1 << 63) - 1


class IdFilter(django_filters.NumberFilter):
    field_class = forms.IntegerField

    def __init__(self, *args, **kwargs):
        kwargs.setdefault("min_value", 1)
        kwargs.setdefault("max_value", _MAX_ID)
        super().__init__(*args, **kwargs)


class UtcDateTimeField(IsoDateTimeField):
    """An ISO 8601 date-time, converted to UTC: PostgreSQL refuses offsets beyond 16 hours, which ISO allows."""

    def to_python(self, value):
        moment = super().to_python(value)
        if moment is None or moment.tzinfo is None:
            return moment
        try:
            return moment.astimezone(UTC)
        except OverflowError:
            raise forms.ValidationError("this date-time is out of range: use years 1 to 9999") from None


class UtcDateTimeFilter(django_filters.IsoDateTimeFilter):
    field_class = UtcDateTimeField


class BotFilter(django_filters.FilterSet):
    game = django_filters.CharFilter(field_name="game__slug", help_text="Game slug, e.g. kingdomino.")
    owner = django_filters.CharFilter(field_name="owner__username", help_text="Owner's username.")
    name = django_filters.CharFilter(field_name="name", lookup_expr="icontains",
                                     help_text="Part of the bot's name (any case).")
    active = django_filters.BooleanFilter(help_text="true: bots that play; false: deactivated bots.")

    class Meta:
        model = Bot
        fields = ("game", "owner", "name", "active")


class TournamentFilter(django_filters.FilterSet):
    game = django_filters.CharFilter(field_name="game__slug", help_text="Game slug.")
    status = django_filters.ChoiceFilter(choices=Tournament.Status.choices)
    kind = django_filters.ChoiceFilter(choices=Tournament.Kind.choices)
    bot = IdFilter(field_name="bots", help_text="Tournaments this bot id entered.")
    rated = django_filters.BooleanFilter(help_text="true: tournaments whose matches move leaderboard ratings.")

    class Meta:
        model = Tournament
        fields = ("game", "status", "kind", "bot", "rated")


class MatchFilter(django_filters.FilterSet):
    game = django_filters.CharFilter(field_name="game__slug", help_text="Game slug.")
    bot = IdFilter(method="filter_bot", help_text="Matches where this bot id had a seat (each match once, "
                                                "however many of its seats the bot held).")
    tournament = IdFilter(field_name="tournament", help_text="Tournament id.")
    status = django_filters.ChoiceFilter(choices=Match.Status.choices)
    rated = django_filters.BooleanFilter(method="filter_rated",
                                         help_text="true: matches that move leaderboard ratings; false: every "
                                                   "other match (unrated tournaments' and version comparisons').")
    created_after = UtcDateTimeFilter(field_name="created_at", lookup_expr="gte",
                                                     help_text="Scheduled at or after (ISO 8601).")
    created_before = UtcDateTimeFilter(field_name="created_at", lookup_expr="lt",
                                                      help_text="Scheduled before (ISO 8601).")
    finished_after = UtcDateTimeFilter(field_name="finished_at", lookup_expr="gte",
                                                      help_text="Finished at or after (ISO 8601).")
    finished_before = UtcDateTimeFilter(field_name="finished_at", lookup_expr="lt",
                                                       help_text="Finished before (ISO 8601).")

    class Meta:
        model = Match
        fields = ("game", "bot", "tournament", "status", "rated", "created_after", "created_before",
                  "finished_after", "finished_before")

    def filter_bot(self, queryset, name, value):
        # A subquery, not a join on seats: a comparison seats two versions of one bot in one match, and
        # the join listed such a match once per seat.
        return queryset.filter(Exists(Seat.objects.filter(match=OuterRef("pk"), bot_id=value)))

    def filter_rated(self, queryset, name, value):
        # rated_play's one rule; a comparison's match has no tournament, and a filter on tournament__rated
        # left it out of both answers.
        return queryset.filter(RATED_MATCHES) if value else queryset.exclude(RATED_MATCHES)
