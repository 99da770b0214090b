from django.apps import AppConfig


class MatchesConfig(AppConfig):
    """The reported matches, disputes and their audit (app label ``matches``)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "ladder.matches"
    label = "matches"
