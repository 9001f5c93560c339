"""Serializers of sandbox limits: a tournament's overrides (input and output) and a match's limits.

The fields come from ``ladder.core.limits`` (names, floors, the server's caps), so the schema states
the caps in force. The service checks the same rules again for callers other than the API.
"""

from __future__ import annotations

from collections.abc import Mapping

from rest_framework import serializers

from ladder.core.limits import TOURNAMENT_LIMITS, limit_cap, limit_names

# What each limit means, for the fields no tournament sets (the settable ones carry their own).
_MATCH_LIMIT_HELP = {
    "cpu_seconds": "CPU seconds of the bot's whole process tree over the match.",
    "max_processes": "Processes and threads the bot may have at once.",
    "tmp_mb": "Size of the bot's private writable /tmp (MiB).",
    "start_ms": "Wall-clock milliseconds to import the bot and answer start.",
    "max_message_bytes": "Largest single protocol message accepted from the bot.",
    "file_mb": "Largest file the bot may write (MiB).",
    "max_open_files": "Open file descriptors.",
}


class TournamentLimitsSerializer(serializers.Serializer):
    """A tournament's overrides: only the limits it sets appear; the rest come from the settings."""

    def get_fields(self):
        return {name: serializers.IntegerField(required=False, help_text=settable.help)
                for name, settable in TOURNAMENT_LIMITS.items()}


class TournamentLimitsInputSerializer(serializers.Serializer):
    """Overrides asked for at creation: known names only, whole numbers between floor and cap."""

    class Meta:
        ref_name = "TournamentLimitsCreate"

    def get_fields(self):
        # Built per use, so that the caps (and the schema that shows them) follow the settings.
        return {
            name: serializers.IntegerField(
                required=False, min_value=settable.minimum, max_value=limit_cap(name),
                help_text=f"{settable.help} {settable.minimum} to {limit_cap(name)}.",
                error_messages={"max_value": "may be at most {max_value} (the server's cap)",
                                "min_value": "must be at least {min_value}"},
            )
            for name, settable in TOURNAMENT_LIMITS.items()
        }

    def to_internal_value(self, data):
        if isinstance(data, Mapping):
            unknown = sorted(str(name) for name in data if name not in TOURNAMENT_LIMITS)
            if unknown:
                message = f"no such limit; a tournament may set {', '.join(TOURNAMENT_LIMITS)}"
                raise serializers.ValidationError({name: [message] for name in unknown})
        return super().to_internal_value(data)


class MatchLimitsSerializer(serializers.Serializer):
    """Every limit a match is played under, fixed when it was scheduled; empty for matches scheduled
    before matches recorded their limits (those play under the settings of the moment)."""

    def get_fields(self):
        help_texts = {name: settable.help for name, settable in TOURNAMENT_LIMITS.items()} | _MATCH_LIMIT_HELP
        return {name: serializers.IntegerField(required=False, help_text=help_texts.get(name, ""))
                for name in limit_names()}
