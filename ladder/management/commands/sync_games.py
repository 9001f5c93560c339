from django.core.management.base import BaseCommand

from ladder.core.games import games_sync


class Command(BaseCommand):
    help = "Create or update one game row per installed engine (also done after every migrate)."

    def handle(self, *args, **options):
        games = games_sync()
        self.stdout.write("games: " + ", ".join(game.slug for game in games))
