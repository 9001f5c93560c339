import json

from django.core.management.base import BaseCommand

from ladder.services.matches import matches_reconcile


class Command(BaseCommand):
    help = "Requeue matches whose worker vanished and re-send lost messages (what the beat task does)."

    def handle(self, *args, **options):
        self.stdout.write(json.dumps(matches_reconcile().to_json()))
