from django.apps import AppConfig


class ClubsConfig(AppConfig):
    """The ladders and who plays on them (app label ``clubs``)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "ladder.clubs"
    label = "clubs"

    def ready(self) -> None:
        # Connects the receivers that replace the visitor pages' epoch (in every process:
        # the Celery worker saves members and ladders too).
        from ladder.clubs import caching  # noqa: F401
