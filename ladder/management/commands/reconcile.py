import json

from django.core.management.base import BaseCommand

from ladder.services.play.matches import matches_reconcile
from ladder.services.uploads.validation import versions_reconcile


class Command(BaseCommand):
    help = ("Requeue matches whose worker vanished, re-send lost messages and the checks of uploads left "
            "pending (what the beat task does).")

    def handle(self, *args, **options):
        report = matches_reconcile().to_json()
        report["validations_resent"] = versions_reconcile()
        self.stdout.write(json.dumps(report))
