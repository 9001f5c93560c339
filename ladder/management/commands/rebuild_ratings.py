from django.core.management.base import BaseCommand, CommandError

from ladder.core.errors import ServiceError
from ladder.services.ratings.rating_rebuild import ratings_rebuild


class Command(BaseCommand):
    help = ("Recompute every rating of GAME from its match history, in the order the matches were rated, with "
            "its pair records and its tournaments' standings.")

    def add_arguments(self, parser):
        parser.add_argument("game")

    def handle(self, *args, game: str, **options):
        try:
            replayed = ratings_rebuild(game_slug=game)
        except ServiceError as exc:
            raise CommandError(exc.message) from exc
        self.stdout.write(f"{game}: ratings rebuilt from {replayed} matches")
