from django.core.management.base import BaseCommand

from ladder.core.games import games_sync
from ladder.services.uploads.examples import examples_seed


class Command(BaseCommand):
    help = ("Upload the example bots of every game with an engine (bots/examples/<game>/*_bot.py); a worker "
            "then checks them like any upload.")

    def handle(self, *args, **options):
        games_sync()
        for game, names in examples_seed().items():
            self.stdout.write(f"{game}: {', '.join(names)}")
        self.stdout.write("Uploaded bots are pending until a worker has compiled them and played their smoke "
                          "matches (celery -A workers worker).")
