from django.apps import AppConfig


class ClubsConfig(AppConfig):
    """The ladders and who plays on them (app label ``clubs``)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "ladder.clubs"
    label = "clubs"
