from django.apps import AppConfig


class AccountsConfig(AppConfig):
    default_auto_field = "django.db.models.BigAutoField"
    name = "accounts"

    def ready(self) -> None:
        from axes.signals import user_locked_out

        from accounts import (
            roles,  # noqa: F401  (connects the Moderators → staff signal)
            tokens,  # noqa: F401  (connects the revoked-token marks)
        )
        from accounts.security import refuse_locked_out_api_login

        user_locked_out.connect(refuse_locked_out_api_login, dispatch_uid="api-lockout")
