from django.apps import AppConfig


class PlayConfig(AppConfig):
    name = "ladder.play"
    label = "play"
    verbose_name = "Challenges, open games and calendars"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from ladder.play import receivers  # noqa: F401  (connects the matches app's signals)
