"""``manage.py play GAME BOT [BOT ...] [--seed N] [--options JSON] [--json]``: one local match through the
same sandbox and limits as the workers; ``manage.py play --from-bundle FILE [--seat N BOT] [--from-step K]
[--json]``: a match bundle (``GET /api/matches/{id}/bundle/``) replayed in that sandbox under the bundle's
limits, or one of its seats handed to BOT from step K. The logic is ``bots.play.main`` and
``bots.bundle_replay.main``."""

import signal
import sys

from django.conf import settings
from django.core.management.base import BaseCommand

from ladder.core.limits import sandbox_limit_caps, sandbox_limits


class Command(BaseCommand):
    help = ("Play one match locally in the sandbox: play GAME BOT [BOT ...] [--seed N] [--options JSON] [--json]; "
            "or replay a match bundle: play --from-bundle FILE [--seat N BOT] [--from-step K] [--json]")

    def run_from_argv(self, argv):
        # bots.play and bots.bundle_replay parse their own options (and --help); Django's would reject them.
        sys.exit(self.play(argv[2:]))

    def add_arguments(self, parser):
        parser.add_argument("play_args", nargs="*")

    def handle(self, *args, play_args=(), **options):
        status = self.play(list(play_args))
        if status:
            sys.exit(status)

    def play(self, argv: list[str]) -> int:
        from bots import bundle_replay, play
        from bots.sandbox import remove_cgroups_on

        # A SIGTERM ends play where it stands (no atexit hook runs): the sandbox's cgroups go first.
        remove_cgroups_on(signal.SIGTERM)
        if bundle_replay.asks_for_replay(argv):
            return bundle_replay.main(argv, limits=sandbox_limits(), limit_caps=sandbox_limit_caps(),
                                      allow_unsafe=settings.BOTS_ALLOW_UNSAFE, stdout=self.stdout,
                                      stderr=self.stderr)
        return play.main(argv, limits=sandbox_limits(), allow_unsafe=settings.BOTS_ALLOW_UNSAFE,
                         stdout=self.stdout, stderr=self.stderr)
