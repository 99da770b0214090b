from django.apps import AppConfig


class LadderConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ladder"
