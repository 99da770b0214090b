from django.apps import AppConfig


class LadderConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "ladder"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from core.cache import pages_changed
        from ladder import checks  # noqa: F401  (registers the deployment checks)

        # Every deploy runs migrate (Procfile's release): pages kept by the old code go.
        post_migrate.connect(pages_changed, sender=self, dispatch_uid="ladder-pages-changed")
