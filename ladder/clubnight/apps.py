from django.apps import AppConfig


class ClubNightConfig(AppConfig):
    """The club night (app label ``clubnight``)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "ladder.clubnight"
    label = "clubnight"
