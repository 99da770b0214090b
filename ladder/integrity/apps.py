from django.apps import AppConfig


class IntegrityConfig(AppConfig):
    """Integrity: flags for moderators, bans with refunds (app label ``integrity``)."""

    default_auto_field = "django.db.models.BigAutoField"
    name = "ladder.integrity"
    label = "integrity"
