from django.apps import AppConfig
from django.core import checks
from django.db.models.signals import post_migrate


class LadderConfig(AppConfig):
    name = "ladder"
    verbose_name = "Bot ladder"

    def ready(self) -> None:
        from ladder.checks import sandbox_limits_check

        post_migrate.connect(_sync_games_after_migrate, sender=self)
        checks.register(sandbox_limits_check, "ladder")


def _sync_games_after_migrate(**kwargs) -> None:
    # Games are rows mirroring engines.names(); syncing after every migrate (and every test-database
    # flush) keeps them present without a data migration frozen at one moment's list of engines.
    from ladder.core.games import games_sync

    games_sync(using=kwargs.get("using", "default"))
