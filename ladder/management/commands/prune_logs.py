import json
import math

from django.core.management.base import BaseCommand, CommandError

from ladder.core.errors import ServiceError
from ladder.services.play.retention import seat_logs_prune


def _days(value: str) -> float:
    import argparse

    try:
        days = float(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"a number of days, not {value!r}") from None
    if not math.isfinite(days) or days < 0:
        raise argparse.ArgumentTypeError(f"a number of days of at least 0, not {value!r}")
    return days


class Command(BaseCommand):
    help = ("Drop the logs and decision records of unrated matches that ended more than DAYS days ago, "
            "keeping their results; prints what was freed (seats, matches, bytes) as JSON.")

    def add_arguments(self, parser):
        parser.add_argument("--older-than", type=_days, required=True, metavar="DAYS",
                            help="matches that ended more than DAYS days ago (a number, at least 0)")
        parser.add_argument("--dry-run", action="store_true", help="only count what would be freed")

    def handle(self, *args, older_than: float, dry_run: bool, **options):
        try:
            report = seat_logs_prune(older_than_days=older_than, dry_run=dry_run)
        except ServiceError as exc:
            raise CommandError(exc.message) from exc
        verb = "would free" if dry_run else "freed"
        self.stderr.write(f"{verb} the logs of {report.seats} seats of {report.matches} matches: "
                          f"{report.bytes} bytes")
        self.stdout.write(json.dumps(report.to_json()))
