from django.apps import AppConfig
from django.db.models.signals import post_migrate


class RatingsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ratings"

    def ready(self) -> None:
        from ratings import signals  # connects the receivers

        post_migrate.connect(signals.replay_after_migrate, sender=self)
